/**
 * A double of the customers' webhook receivers: one HTTP server with any number of endpoints at
 * `POST /hooks/<name>`, each with its own secret, verifying every delivery as a receiver following
 * the Standard Webhooks specification would, with the specification's own library
 * (`new Webhook(secret).verify(body, headers)`): a signature we compute wrongly fails here as it
 * would at a customer's.
 *
 * Tests register an endpoint with its secret and scripted faults (`PUT /__control/endpoints/<name>`):
 * each fault answers one delivery (a status, a `Retry-After`, a `Location`, a delay, a large
 * body), after which the endpoint answers 204. They read what arrived
 * (`GET /__control/endpoints/<name>/deliveries`): headers, body, whether it verified and why not,
 * and how many were repeats of a `webhook-id` already seen. Suites running at once use endpoints
 * of their own names. Run as a process by webhook-receiver-double.main.ts.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** A scripted answer to one delivery. */
export interface ReceiverFault {
  status: number;
  /** Sent as the `Retry-After` header, as given (seconds or an HTTP-date). */
  retryAfter?: string | number;
  /** Waits this long before answering, as a slow receiver would. */
  delayMs?: number;
  /** Sent as the `Location` header (a redirect the sender must not follow). */
  location?: string;
  /** Answers a body of this many bytes ('x' repeated), to test the sender's cut. */
  bodyBytes?: number;
}

export interface EndpointSetup {
  secret: string;
  faults?: ReceiverFault[];
  /** The status of a delivery no fault answers: 204 unless said (200 answers `{"ok":true}`). */
  successStatus?: 200 | 204;
}

export interface ReceivedDelivery {
  webhookId: string | null;
  webhookTimestamp: string | null;
  webhookSignature: string | null;
  headers: Record<string, string>;
  body: string;
  /** Whether `new Webhook(secret).verify(body, headers)` accepted it. */
  verified: boolean;
  /** The library's message when it did not (e.g. "No matching signature found"). */
  verificationError?: string;
  /** 1 for the first delivery of this webhook-id to this endpoint, 2 for the first repeat… */
  attempt: number;
  /** The status the double answered. */
  answeredStatus: number;
  receivedAt: string;
}

export interface DeliveriesView {
  deliveries: ReceivedDelivery[];
  /** Deliveries whose webhook-id had been received before (retries, or a sender's bug). */
  duplicates: number;
}

interface Endpoint {
  secret: string;
  faults: ReceiverFault[];
  successStatus: 200 | 204;
  deliveries: ReceivedDelivery[];
}

/** Bodies larger than this are refused (413): the platform sends short JSON messages. */
const MAX_BODY_BYTES = 1024 * 1024;

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
};

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Headers as the verifier takes them: one string per name. */
function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

/**
 * Waits for a time or an event of the response, or until its connection closes (the sender gave
 * up), whichever comes first, leaving no timer or listener behind: a double that outlives its
 * test's sender must not keep the test's process alive.
 */
function untilClosedOr(res: ServerResponse, what: number | 'drain'): Promise<void> {
  return new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      if (timer) clearTimeout(timer);
      res.off('close', done);
      res.off('drain', done);
      resolve();
    };
    res.once('close', done);
    if (what === 'drain') res.once('drain', done);
    else timer = setTimeout(done, what);
  });
}

function isSetup(v: unknown): v is EndpointSetup {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Record<string, unknown>;
  if (typeof s.secret !== 'string' || s.secret.length === 0) return false;
  if (s.faults !== undefined && (!Array.isArray(s.faults) || !s.faults.every((f) => typeof f === 'object' && f !== null && Number.isInteger((f as ReceiverFault).status)))) return false;
  return s.successStatus === undefined || s.successStatus === 200 || s.successStatus === 204;
}

export interface WebhookReceiverDouble {
  url: string;
  server: Server;
  /** The URL deliveries to an endpoint go to. */
  endpointUrl(name: string): string;
  close(): Promise<void>;
}

export async function startWebhookReceiverDouble(port: number, host = '127.0.0.1'): Promise<WebhookReceiverDouble> {
  const endpoints = new Map<string, Endpoint>();

  async function receive(name: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const endpoint = endpoints.get(name);
    if (!endpoint) return json(res, 404, { error: `no endpoint ${name}: PUT /__control/endpoints/${name} first` });
    const body = await readBody(req);
    if (body === null) return json(res, 413, { error: `over ${MAX_BODY_BYTES} bytes` });
    const headers = flatHeaders(req.headers);
    let verified = true;
    let verificationError: string | undefined;
    try {
      new Webhook(endpoint.secret).verify(body, headers);
    } catch (err) {
      verified = false;
      verificationError = (err as Error).message;
    }
    const webhookId = headers['webhook-id'] ?? null;
    const attempt = 1 + endpoint.deliveries.filter((d) => webhookId !== null && d.webhookId === webhookId).length;
    const fault = endpoint.faults.shift();
    const answeredStatus = fault?.status ?? endpoint.successStatus;
    // Recorded on arrival, before the answer: a sender that gave up on a slow answer still delivered.
    endpoint.deliveries.push({
      webhookId,
      webhookTimestamp: headers['webhook-timestamp'] ?? null,
      webhookSignature: headers['webhook-signature'] ?? null,
      headers,
      body,
      verified,
      ...(verificationError === undefined ? {} : { verificationError }),
      attempt,
      answeredStatus,
      receivedAt: new Date().toISOString(),
    });
    if (fault?.delayMs) await untilClosedOr(res, fault.delayMs);
    if (res.destroyed) return;
    if (!fault) {
      if (answeredStatus === 204) return void res.writeHead(204).end();
      return json(res, 200, { ok: true });
    }
    const answerHeaders: Record<string, string> = { 'Content-Type': 'text/plain' };
    if (fault.retryAfter !== undefined) answerHeaders['Retry-After'] = String(fault.retryAfter);
    if (fault.location !== undefined) answerHeaders.Location = fault.location;
    res.writeHead(fault.status, answerHeaders);
    if (!fault.bodyBytes) return void res.end(`fault ${fault.status}`);
    // Written in pieces, so a reader that stops early leaves the rest unsent.
    const piece = Buffer.alloc(Math.min(64 * 1024, fault.bodyBytes), 'x');
    let left = fault.bodyBytes;
    res.on('error', () => undefined);
    while (left > 0 && !res.destroyed) {
      const part = left >= piece.length ? piece : piece.subarray(0, left);
      left -= part.length;
      if (!res.write(part)) await untilClosedOr(res, 'drain');
    }
    if (!res.destroyed) res.end();
  }

  async function control(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (path === '/__control/reset' && req.method === 'POST') {
      endpoints.clear();
      return json(res, 200, { ok: true });
    }
    const setup = /^\/__control\/endpoints\/([^/]+)$/.exec(path);
    if (setup && req.method === 'PUT') {
      let parsed: unknown;
      try {
        parsed = JSON.parse((await readBody(req)) ?? '');
      } catch {
        return json(res, 400, { error: 'a JSON body is needed' });
      }
      if (!isSetup(parsed)) return json(res, 400, { error: 'expected {secret, faults?: [{status, retryAfter?, delayMs?, location?, bodyBytes?}], successStatus?: 200 | 204}' });
      try {
        new Webhook(parsed.secret);
      } catch (err) {
        return json(res, 400, { error: `the secret is not one the library takes: ${(err as Error).message}` });
      }
      endpoints.set(decodeURIComponent(setup[1]!), { secret: parsed.secret, faults: [...(parsed.faults ?? [])], successStatus: parsed.successStatus ?? 204, deliveries: [] });
      return json(res, 200, { ok: true });
    }
    const read = /^\/__control\/endpoints\/([^/]+)\/deliveries$/.exec(path);
    if (read && req.method === 'GET') {
      const endpoint = endpoints.get(decodeURIComponent(read[1]!));
      if (!endpoint) return json(res, 404, { error: 'no such endpoint' });
      const view: DeliveriesView = { deliveries: endpoint.deliveries, duplicates: endpoint.deliveries.filter((d) => d.attempt > 1).length };
      return json(res, 200, view);
    }
    return json(res, 404, { error: `no control route ${req.method} ${path}` });
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://double').pathname;
    const hook = /^\/hooks\/([^/]+)$/.exec(path);
    const work = path.startsWith('/__control/')
      ? control(path, req, res)
      : hook && req.method === 'POST'
        ? receive(decodeURIComponent(hook[1]!), req, res)
        : Promise.resolve(json(res, 404, { error: `no route ${req.method} ${path}` }));
    work.catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: `double failed: ${(err as Error).message}` });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, host, () => resolve()));
  const address = server.address() as { port: number };
  const url = `http://${host}:${address.port}`;
  return {
    url,
    server,
    endpointUrl: (name) => `${url}/hooks/${encodeURIComponent(name)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The control API, for tests. */
export function webhookReceiverControl(baseUrl: string) {
  return {
    async endpoint(name: string, setup: EndpointSetup): Promise<void> {
      const res = await fetch(`${baseUrl}/__control/endpoints/${encodeURIComponent(name)}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(setup) });
      if (!res.ok) throw new Error(`endpoint ${name}: ${res.status} ${await res.text()}`);
    },
    async deliveries(name: string): Promise<DeliveriesView> {
      const res = await fetch(`${baseUrl}/__control/endpoints/${encodeURIComponent(name)}/deliveries`);
      if (!res.ok) throw new Error(`deliveries of ${name}: ${res.status}`);
      return (await res.json()) as DeliveriesView;
    },
    async reset(): Promise<void> {
      const res = await fetch(`${baseUrl}/__control/reset`, { method: 'POST' });
      if (!res.ok) throw new Error(`reset: ${res.status}`);
    },
  };
}
