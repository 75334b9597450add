/**
 * The WhatsApp Cloud API client: sends a message (`POST /{version}/{phone-number-id}/messages`)
 * and says what a failure means for a retry. The access token goes in the Authorization header
 * only; no error, log line or answer carries it.
 */
import { fetch as undiciFetch } from 'undici';

/** What the platform sends: text, buttons (up to 3), a list (up to 10 rows), or a template. */
export type OutboundMessage =
  | { type: 'text'; text: string }
  | { type: 'buttons'; text: string; buttons: { id: string; title: string }[] }
  | { type: 'list'; text: string; button: string; rows: { id: string; title: string; description?: string }[] }
  | { type: 'template'; name: string; language: string; parameters: string[] };

/** The Cloud API's request body for a message to `to`. */
export function requestBody(to: string, message: OutboundMessage): Record<string, unknown> {
  const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to };
  switch (message.type) {
    case 'text':
      return { ...base, type: 'text', text: { preview_url: false, body: message.text } };
    case 'buttons':
      return { ...base, type: 'interactive', interactive: { type: 'button', body: { text: message.text }, action: { buttons: message.buttons.map((b) => ({ type: 'reply', reply: b })) } } };
    case 'list':
      return { ...base, type: 'interactive', interactive: { type: 'list', body: { text: message.text }, action: { button: message.button, sections: [{ title: message.button, rows: message.rows }] } } };
    case 'template':
      return {
        ...base,
        type: 'template',
        template: { name: message.name, language: { code: message.language }, components: message.parameters.length ? [{ type: 'body', parameters: message.parameters.map((text) => ({ type: 'text', text })) }] : [] },
      };
  }
}

/**
 * A failed send. `retryable`: the message was not accepted and may be sent again (429, 5xx, the
 * network); otherwise the request itself is wrong (4xx) and sending it again changes nothing.
 */
export class WhatsAppSendError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly code: number | null,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'WhatsAppSendError';
  }
}

export interface WhatsAppClientOptions {
  /** Graph's base address with its version: `https://graph.facebook.com/v21.0`. */
  apiUrl: string;
  accessToken: string;
  phoneNumberId: string;
  timeoutMs?: number;
}

export function createWhatsAppClient(options: WhatsAppClientOptions) {
  const endpoint = `${options.apiUrl.replace(/\/+$/, '')}/${encodeURIComponent(options.phoneNumberId)}/messages`;
  return {
    phoneNumberId: options.phoneNumberId,
    /** Sends one message; resolves to WhatsApp's id of it (`wamid…`). */
    async send(to: string, message: OutboundMessage): Promise<string> {
      let res: Response;
      try {
        res = (await undiciFetch(endpoint, {
          method: 'POST',
          headers: { Authorization: `Bearer ${options.accessToken}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(requestBody(to, message)),
          signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
        })) as unknown as Response;
      } catch (err) {
        throw new WhatsAppSendError(`WhatsApp Cloud API unreachable: ${(err as Error).message}`, null, null, true);
      }
      const text = await res.text();
      let body: { messages?: { id?: string }[]; error?: { message?: string; code?: number } } = {};
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        // not JSON (a proxy's error page): the status decides
      }
      const id = body.messages?.[0]?.id;
      if (res.ok && typeof id === 'string') return id;
      const code = typeof body.error?.code === 'number' ? body.error.code : null;
      // Throughput (130429), pair rate (131056), spam rate (131048) and Graph's own throttles (4, 80007) are worth waiting for.
      const throttled = res.status === 429 || (code !== null && [4, 80007, 130429, 131048, 131056].includes(code));
      const retryable = throttled || res.status >= 500 || (res.ok && !id);
      throw new WhatsAppSendError(`WhatsApp Cloud API answered ${res.status}${code !== null ? ` (code ${code})` : ''}: ${(body.error?.message ?? text).slice(0, 300)}`, res.status, code, retryable);
    },
  };
}

export type WhatsAppClient = ReturnType<typeof createWhatsAppClient>;
