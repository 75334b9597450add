/** WhatsApp tests' helpers: Meta's webhook deliveries, signed, and what the Cloud API double delivered. */
import { randomBytes, randomInt } from 'node:crypto';
import request from 'supertest';
import { signatureOf } from '../../models/whatsapp/webhook.rules';
import { whatsAppDoubleControl, type DeliveredMessage } from '../doubles/whatsapp-double';
import { testConfig } from './service';

export const double = () => whatsAppDoubleControl(process.env.WHATSAPP_DOUBLE_URL!);

/** A phone number of its own (Brazilian mobile, digits only) per test. */
export const newPhone = () => `55119${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;

let seconds = Math.floor(Date.now() / 1000);
/** A message as the Cloud API sends it; each one a second after the one before. */
export function textMessage(from: string, body: string, id = `wamid.${randomBytes(12).toString('hex')}`) {
  return { from, id, timestamp: String(++seconds), type: 'text', text: { body } };
}
export function choiceMessage(from: string, choiceId: string, title = choiceId, kind: 'button_reply' | 'list_reply' = 'list_reply') {
  return { from, id: `wamid.${randomBytes(12).toString('hex')}`, timestamp: String(++seconds), type: 'interactive', interactive: { type: kind, [kind]: { id: choiceId, title } } };
}

export function payload(messages: Record<string, unknown>[] = [], statuses: Record<string, unknown>[] = []) {
  const phoneNumberId = testConfig().whatsapp.api!.phoneNumberId;
  const from = messages[0]?.from as string | undefined;
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
              ...(from ? { contacts: [{ profile: { name: 'Leitor' }, wa_id: from }] } : {}),
              ...(messages.length ? { messages } : {}),
              ...(statuses.length ? { statuses } : {}),
            },
          },
        ],
      },
    ],
  };
}

/** POSTs a delivery as Meta does: the exact body signed with the app secret (or `signature`). */
export function deliver(callback: Parameters<typeof request>[0], body: unknown, options: { signature?: string | null; raw?: string } = {}) {
  const raw = options.raw ?? JSON.stringify(body);
  const req = request(callback).post('/api/whatsapp/webhook').set('Content-Type', 'application/json');
  const signature = options.signature === undefined ? signatureOf(raw, testConfig().whatsapp.appSecret!) : options.signature;
  if (signature !== null) req.set('X-Hub-Signature-256', signature);
  return req.send(raw);
}

/** Waits until the double has delivered at least `n` messages to `phone`; returns them in order. */
export async function messagesTo(phone: string, n: number, timeoutMs = 30_000): Promise<DeliveredMessage[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const got = await double().messages(phone);
    if (got.length >= n) return got;
    if (Date.now() > until) throw new Error(`expected ${n} messages to ${phone}, got ${got.length}: ${JSON.stringify(got.map((m) => m.text))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The text of each delivered message (body text, or the template's name). */
export const texts = (messages: DeliveredMessage[]) => messages.map((m) => m.text);
