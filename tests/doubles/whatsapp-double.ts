/**
 * A double of the WhatsApp Cloud API (Meta's Graph API) for what the platform sends: it speaks the
 * wire protocol of `POST /{version}/{phone-number-id}/messages` (bearer token, the request body of
 * text, interactive and template messages, the `{messaging_product, contacts, messages}` answer,
 * Graph's error shape `{error: {message, type, code, error_subcode?, fbtrace_id}}`), and limits
 * throughput per phone number as Meta does (error 130429, answered 429 here).
 *
 * Tests script failures per recipient (`/__control/script`), so suites running at once never use
 * each other's steps, and read what was delivered (`/__control/messages`). `npm test` and, without
 * real credentials, `npm start` run one as a process (whatsapp-double.main.ts).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** A scripted answer for the next request to one recipient. */
export interface FailureStep {
  status: number;
  code: number;
  message?: string;
  /** Accept the message (deliver it) but answer this failure anyway, as a timed-out request would. */
  deliverAnyway?: boolean;
}

export interface DeliveredMessage {
  id: string;
  phoneNumberId: string;
  to: string;
  type: 'text' | 'interactive' | 'template';
  /** The body text (text and interactive messages) or the template's name. */
  text: string;
  /** The whole request body, as sent. */
  body: Record<string, unknown>;
  at: string;
}

export interface WhatsAppDoubleOptions {
  /** The access token the platform must send (Bearer). */
  accessToken: string;
  /** The phone number ids that exist (requests for others answer Graph's "does not exist"). */
  phoneNumberIds: string[];
  /** Messages per second per phone number before 130429 (Cloud API's default throughput is 80). */
  messagesPerSecond?: number;
}

const graphError = (res: ServerResponse, status: number, code: number, message: string, extra: Record<string, unknown> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', 'www-authenticate': status === 401 ? 'OAuth "Facebook Platform" "invalid_token"' : '' });
  res.end(JSON.stringify({ error: { message, type: code === 190 ? 'OAuthException' : 'OAuthException', code, ...extra, fbtrace_id: randomBytes(8).toString('base64url') } }));
};

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
};

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += (chunk as Buffer).toString();
  return body;
}

type Body = Record<string, unknown>;
const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the Cloud API would refuse in a message body (error 100), or its type and text. */
function readMessage(body: Body): { problem: string } | { type: DeliveredMessage['type']; text: string } {
  if (body.messaging_product !== 'whatsapp') return { problem: '(#100) The parameter messaging_product is required.' };
  if (typeof body.to !== 'string' || !/^\+?\d{8,15}$/.test(body.to)) return { problem: '(#100) Invalid parameter: to' };
  if (body.type === 'text' || body.type === undefined) {
    const text = isObject(body.text) ? body.text.body : undefined;
    if (typeof text !== 'string' || text.length === 0) return { problem: '(#100) The parameter text[\'body\'] is required.' };
    if (text.length > 4096) return { problem: '(#100) Param text[\'body\'] must be at most 4096 characters long.' };
    return { type: 'text', text };
  }
  if (body.type === 'interactive') {
    const i = isObject(body.interactive) ? body.interactive : undefined;
    const text = i && isObject(i.body) ? i.body.text : undefined;
    if (!i || typeof text !== 'string' || text.length === 0 || text.length > 1024) return { problem: "(#100) Param interactive['body']['text'] is required and must be at most 1024 characters long." };
    const action = isObject(i.action) ? i.action : {};
    if (i.type === 'button') {
      const buttons = Array.isArray(action.buttons) ? action.buttons : [];
      if (buttons.length < 1 || buttons.length > 3) return { problem: "(#100) Param interactive['action']['buttons'] must have between 1 and 3 elements." };
      for (const b of buttons) {
        const reply = isObject(b) && isObject(b.reply) ? b.reply : undefined;
        if (!reply || typeof reply.id !== 'string' || typeof reply.title !== 'string' || reply.title.length > 20) return { problem: '(#100) Button title length must be at most 20 characters and every button needs an id.' };
      }
    } else if (i.type === 'list') {
      const sections = Array.isArray(action.sections) ? action.sections : [];
      const rows = sections.flatMap((s) => (isObject(s) && Array.isArray(s.rows) ? s.rows : []));
      if (typeof action.button !== 'string' || action.button.length > 20) return { problem: "(#100) Param interactive['action']['button'] is required and must be at most 20 characters long." };
      if (rows.length < 1 || rows.length > 10) return { problem: '(#100) Total row count exceed max allowed count: 10' };
      for (const r of rows) {
        if (!isObject(r) || typeof r.id !== 'string' || typeof r.title !== 'string' || r.title.length > 24) return { problem: '(#100) Row title length must be at most 24 characters and every row needs an id.' };
      }
    } else return { problem: `(#100) Param interactive['type'] must be one of {BUTTON, LIST, PRODUCT, PRODUCT_LIST, FLOW, CTA_URL} - got "${String(i.type)}".` };
    return { type: 'interactive', text };
  }
  if (body.type === 'template') {
    const t = isObject(body.template) ? body.template : undefined;
    if (!t || typeof t.name !== 'string' || !isObject(t.language) || typeof t.language.code !== 'string') return { problem: "(#100) The parameter template['name'] and template['language']['code'] are required." };
    return { type: 'template', text: t.name };
  }
  return { problem: `(#100) Param type must be one of {AUDIO, CONTACTS, DOCUMENT, IMAGE, INTERACTIVE, LOCATION, REACTION, STICKER, TEMPLATE, TEXT, VIDEO} - got "${String(body.type)}".` };
}

export interface WhatsAppDouble {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startWhatsAppDouble(port: number, options: WhatsAppDoubleOptions): Promise<WhatsAppDouble> {
  const delivered: DeliveredMessage[] = [];
  const scripts = new Map<string, FailureStep[]>();
  const perSecond = options.messagesPerSecond ?? 80;
  const recent = new Map<string, number[]>(); // phone number id → send times in the last second

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://double');
      const raw = await readBody(req);
      // The control API (tests and npm start's operators).
      if (url.pathname === '/__control/messages' && req.method === 'GET') {
        const to = url.searchParams.get('to');
        return json(res, 200, { messages: delivered.filter((m) => !to || m.to === to) });
      }
      if (url.pathname === '/__control/script' && req.method === 'POST') {
        const { to, steps } = JSON.parse(raw) as { to: string; steps: FailureStep[] };
        scripts.set(to, [...(scripts.get(to) ?? []), ...steps]);
        return json(res, 200, { ok: true });
      }
      if (url.pathname === '/__control/reset' && req.method === 'POST') {
        delivered.length = 0;
        scripts.clear();
        return json(res, 200, { ok: true });
      }
      const match = /^\/(v\d+\.\d+)\/([^/]+)\/messages$/.exec(url.pathname);
      if (!match) return graphError(res, 400, 100, `Unknown path components: ${url.pathname}`, { error_subcode: 2500 });
      if (req.method !== 'POST') return graphError(res, 400, 100, 'Unsupported get request.', { error_subcode: 33 });
      if (req.headers.authorization !== `Bearer ${options.accessToken}`) return graphError(res, 401, 190, 'Invalid OAuth access token - Cannot parse access token');
      const phoneNumberId = match[2]!;
      if (!options.phoneNumberIds.includes(phoneNumberId)) {
        return graphError(res, 400, 100, `Unsupported post request. Object with ID '${phoneNumberId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`, { error_subcode: 33 });
      }
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        return graphError(res, 400, 100, '(#100) Invalid JSON in the request body');
      }
      if (!isObject(body)) return graphError(res, 400, 100, '(#100) The request body must be a JSON object');
      const read = readMessage(body);
      if ('problem' in read) return graphError(res, 400, 100, read.problem);
      const to = String(body.to).replace(/^\+/, '');
      // Throughput: Meta's 130429 when a phone number sends more than its rate.
      const now = Date.now();
      const times = (recent.get(phoneNumberId) ?? []).filter((t) => t > now - 1000);
      if (times.length >= perSecond) return graphError(res, 429, 130429, '(#130429) Rate limit hit', { error_data: { messaging_product: 'whatsapp', details: 'Cloud API message throughput has been reached.' } });
      times.push(now);
      recent.set(phoneNumberId, times);
      const deliver = (): string => {
        const id = `wamid.${randomBytes(24).toString('base64url')}`;
        delivered.push({ id, phoneNumberId, to, type: read.type, text: read.text, body, at: new Date().toISOString() });
        return id;
      };
      const step = scripts.get(to)?.shift();
      if (step) {
        if (step.deliverAnyway) deliver();
        return graphError(res, step.status, step.code, step.message ?? (step.status === 429 ? `(#${step.code}) Rate limit hit` : 'An unknown error has occurred.'), { is_transient: step.status >= 500 });
      }
      const id = deliver();
      return json(res, 200, { messaging_product: 'whatsapp', contacts: [{ input: String(body.to), wa_id: to }], messages: [{ id, ...(read.type === 'template' ? { message_status: 'accepted' } : {}) }] });
    })().catch((err: unknown) => graphError(res, 500, 1, `double failed: ${(err as Error).message}`));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The control API, for tests. */
export function whatsAppDoubleControl(baseUrl: string) {
  return {
    async script(to: string, steps: FailureStep[]): Promise<void> {
      const res = await fetch(`${baseUrl}/__control/script`, { method: 'POST', body: JSON.stringify({ to, steps }) });
      if (!res.ok) throw new Error(`script: ${res.status}`);
    },
    async messages(to?: string): Promise<DeliveredMessage[]> {
      const res = await fetch(`${baseUrl}/__control/messages${to ? `?to=${encodeURIComponent(to)}` : ''}`);
      return ((await res.json()) as { messages: DeliveredMessage[] }).messages;
    },
  };
}
