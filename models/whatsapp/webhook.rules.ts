/**
 * The WhatsApp Cloud API's webhook (spec §4.10, §4.11): the verification handshake, the signature
 * over the raw body, and the payload's shape (`entry[].changes[].value.messages[]` and
 * `statuses[]`), reduced to what the conversation workflows use. Pure.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** Constant-time equality of two strings (different lengths compare unequal, in constant time too). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  // Compare equal-length digests so neither the content nor the length leaks through timing.
  const hx = createHmac('sha256', 'compare').update(x).digest();
  const hy = createHmac('sha256', 'compare').update(y).digest();
  return timingSafeEqual(hx, hy) && x.length === y.length;
}

/**
 * Meta's verification request: `hub.mode=subscribe` and our verify token give the challenge back;
 * anything else is refused (undefined).
 */
export function verificationChallenge(query: Record<string, unknown>, verifyToken: string): string | undefined {
  const mode = query['hub.mode'];
  const token = query['hub.verify_token'];
  const challenge = query['hub.challenge'];
  if (mode !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string' || challenge.length === 0) return undefined;
  return safeEqual(token, verifyToken) ? challenge : undefined;
}

/** `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with the app secret>`. */
export function signatureOf(rawBody: string | Buffer, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

export function validSignature(rawBody: string | Buffer, header: string | undefined, appSecret: string): boolean {
  if (!header || !/^sha256=[0-9a-f]{64}$/i.test(header)) return false;
  return safeEqual(header.toLowerCase(), signatureOf(rawBody, appSecret));
}

/** A phone number as WhatsApp writes it (`wa_id`): digits only, country code first. */
export const WA_ID = z.string().max(15).regex(/^\d{8,15}$/, 'digits only, country code first (E.164 without +)');

const TextMessage = z.object({ type: z.literal('text'), text: z.object({ body: z.string() }) });
const InteractiveMessage = z.object({
  type: z.literal('interactive'),
  interactive: z.union([
    z.object({ type: z.literal('button_reply'), button_reply: z.object({ id: z.string(), title: z.string() }) }),
    z.object({ type: z.literal('list_reply'), list_reply: z.object({ id: z.string(), title: z.string() }) }),
    z.object({ type: z.literal('nfm_reply'), nfm_reply: z.object({ response_json: z.string(), name: z.string().optional() }) }),
  ]),
});
/** A quick-reply button of a template message. */
const ButtonMessage = z.object({ type: z.literal('button'), button: z.object({ payload: z.string(), text: z.string() }) });

/** Bounds well above what Meta sends (ids ~60 characters, Unix-second timestamps), so that none is refused. */
const timestamp = z.string().max(20).regex(/^\d+$/);
const InboundBase = z.object({ from: WA_ID, id: z.string().min(1).max(200), timestamp });
const InboundMessage = z.looseObject({ ...InboundBase.shape, type: z.string().max(64) });

/** Entries, changes, messages and statuses per delivery at most (Meta batches a handful). */
export const MAX_ITEMS = 100;

const Status = z.looseObject({
  id: z.string().min(1).max(200),
  status: z.enum(['sent', 'delivered', 'read', 'failed', 'deleted']),
  timestamp,
  recipient_id: z.string().max(64),
  errors: z
    .array(z.looseObject({ code: z.number(), title: z.string().max(1_024).optional(), message: z.string().max(4_096).optional() }))
    .max(MAX_ITEMS)
    .optional(),
});

/** The webhook's body: what Meta sends for the `messages` field of a WhatsApp Business Account. */
export const WebhookPayload = z.looseObject({
  object: z.literal('whatsapp_business_account'),
  entry: z.array(
    z.looseObject({
      id: z.string().max(200),
      changes: z.array(
        z.looseObject({
          field: z.string().max(64),
          value: z.looseObject({
            messaging_product: z.literal('whatsapp').optional(),
            metadata: z.looseObject({ phone_number_id: z.string().max(64) }).optional(),
            contacts: z
              .array(z.looseObject({ wa_id: z.string().max(64), profile: z.looseObject({ name: z.string().max(1_024) }).optional() }))
              .max(MAX_ITEMS)
              .optional(),
            messages: z.array(InboundMessage).max(MAX_ITEMS).optional(),
            statuses: z.array(Status).max(MAX_ITEMS).optional(),
          }),
        }),
      ).max(MAX_ITEMS),
    }),
  ).max(MAX_ITEMS),
});
export type WebhookPayload = z.infer<typeof WebhookPayload>;

/** What a reader sent, as the conversation reads it. */
export type InboundContent =
  | { kind: 'text'; text: string }
  /** A button or list row chosen: its id (ours) and title. */
  | { kind: 'choice'; id: string; title: string }
  /** A WhatsApp Flow's answers. */
  | { kind: 'flow'; response: Record<string, unknown> }
  /** Media, locations, reactions…: answered with help. */
  | { kind: 'unsupported'; type: string };

export interface Inbound {
  /** WhatsApp's message id (`wamid…`): a message is handled once by it. */
  id: string;
  phone: string;
  /** The name on the reader's WhatsApp profile, when sent. */
  profileName: string | null;
  /** When the reader sent it (WhatsApp's timestamp). */
  sentAt: Date;
  phoneNumberId: string | null;
  content: InboundContent;
}

export interface DeliveryStatus {
  /** The id of the message we sent. */
  messageId: string;
  status: 'sent' | 'delivered' | 'read' | 'failed' | 'deleted';
  at: Date;
  recipient: string;
  error: { code: number; title: string | null } | null;
}

function contentOf(message: z.infer<typeof InboundMessage>): InboundContent {
  const text = TextMessage.safeParse(message);
  if (text.success) return { kind: 'text', text: text.data.text.body };
  const interactive = InteractiveMessage.safeParse(message);
  if (interactive.success) {
    const i = interactive.data.interactive;
    if (i.type === 'button_reply') return { kind: 'choice', id: i.button_reply.id, title: i.button_reply.title };
    if (i.type === 'list_reply') return { kind: 'choice', id: i.list_reply.id, title: i.list_reply.title };
    try {
      const response = JSON.parse(i.nfm_reply.response_json) as unknown;
      if (typeof response === 'object' && response !== null && !Array.isArray(response)) return { kind: 'flow', response: response as Record<string, unknown> };
    } catch {
      // not JSON: unsupported below
    }
    return { kind: 'unsupported', type: 'nfm_reply' };
  }
  const button = ButtonMessage.safeParse(message);
  if (button.success) return { kind: 'choice', id: button.data.button.payload, title: button.data.button.text };
  return { kind: 'unsupported', type: message.type };
}

/** The messages and delivery statuses a payload carries, in the order it lists them. */
export function readPayload(payload: WebhookPayload): { messages: Inbound[]; statuses: DeliveryStatus[] } {
  const messages: Inbound[] = [];
  const statuses: DeliveryStatus[] = [];
  for (const entry of payload.entry) {
    for (const change of entry.changes) {
      if (change.field !== 'messages') continue;
      const { value } = change;
      const names = new Map((value.contacts ?? []).map((c) => [c.wa_id, c.profile?.name ?? null]));
      for (const m of value.messages ?? []) {
        messages.push({ id: m.id, phone: m.from, profileName: names.get(m.from) ?? null, sentAt: new Date(Number(m.timestamp) * 1000), phoneNumberId: value.metadata?.phone_number_id ?? null, content: contentOf(m) });
      }
      for (const s of value.statuses ?? []) {
        const first = s.errors?.[0];
        statuses.push({ messageId: s.id, status: s.status, at: new Date(Number(s.timestamp) * 1000), recipient: s.recipient_id, error: first ? { code: first.code, title: first.title ?? first.message ?? null } : null });
      }
    }
  }
  return { messages, statuses };
}
