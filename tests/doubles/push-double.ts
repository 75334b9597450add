/**
 * A double of a Web Push service (RFC 8030) that also plays the browser. As the browser, it
 * subscribes (`POST /__control/subscriptions`, PushManager.subscribe's part): it makes the user
 * agent's P-256 key pair and auth secret, keeps the private key and hands out the subscription
 * JSON a browser would. As the push service, it takes `POST /push/<id>` the way one does: it
 * requires TTL, checks the VAPID token (RFC 8292) and the size cap, and answers 201 with the
 * message's Location. Then, as the browser again, it decrypts the payload (RFC 8291 and RFC 8188)
 * with node:crypto alone, so a test that reads the plaintext back proves that what we sent could
 * be read by a browser, not merely that two copies of one library agree.
 *
 * It is HTTPS because push services are, and because web-push sends with `https.request` only:
 * the double makes a throw-away self-signed certificate for 127.0.0.1 with openssl, and clients
 * trust its file (`caFile`). Tests script faults per subscription (`/__control/subscriptions/<id>/faults`)
 * so that suites running at once never consume each other's, and read what was delivered
 * (`/__control/messages`). A process runs it with push-double.main.ts.
 */
import { execFileSync } from 'node:child_process';
import { createECDH, createPublicKey, createDecipheriv, hkdfSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import path from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';

/** RFC 8030 §7.2: a push service must accept payloads of up to 4096 octets, and may refuse more. */
export const MAX_PUSH_BODY_BYTES = 4096;

/** RFC 8292 §2: a VAPID token that expires more than 24 hours from now is refused. */
export const MAX_VAPID_LIFETIME_SECONDS = 24 * 60 * 60;

/** A scripted answer to the next push to one subscription. */
export interface PushFault {
  /** The status to answer; without one, the push is handled normally after the delay. */
  status?: number;
  /** A Retry-After header to send with the answer (seconds or an HTTP date), as 429 and 503 do. */
  retryAfter?: string;
  /** Wait this long before answering, to test the sender's timeout. */
  delayMs?: number;
  /** Close the connection without an answer, as a failing network would. */
  reset?: boolean;
}

/** A push message as the browser read it, with the headers the push service was given. */
export interface ReceivedPush {
  messageId: string;
  subscription: string;
  /** The decrypted payload as UTF-8 text ('' for a push without a payload). */
  text: string;
  ttl: number;
  urgency: string | null;
  topic: string | null;
  /** The VAPID token's `sub` claim and the application server's public key (base64url). */
  vapid: { subject: string; publicKey: string };
  receivedAt: string;
}

/** The subscription JSON a browser hands to the application (PushSubscription.toJSON()). */
export interface PushSubscriptionJson {
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
}

interface Subscription {
  id: string;
  ecdh: ReturnType<typeof createECDH>;
  auth: Buffer;
  /** The application server key given at subscription (a restricted subscription, RFC 8292 §3.2). */
  applicationServerKey: string | null;
  gone: boolean;
  faults: PushFault[];
}

/**
 * Makes a throw-away self-signed P-256 certificate for 127.0.0.1 in `dir`, valid for two days. One
 * made in the last day is kept, so a restarted double is still trusted by clients that read the
 * file before; an older one is replaced before it can expire under a running double.
 */
export function makeSelfSignedCertificate(dir: string): { certFile: string; keyFile: string } {
  mkdirSync(dir, { recursive: true });
  const certFile = path.join(dir, 'push-double.crt');
  const keyFile = path.join(dir, 'push-double.key');
  if (existsSync(certFile) && existsSync(keyFile) && Date.now() - statSync(certFile).mtimeMs < 24 * 60 * 60 * 1000) return { certFile, keyFile };
  execFileSync(
    '/usr/bin/openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return { certFile, keyFile };
}

const hkdf = (salt: Buffer, ikm: Buffer, info: Buffer, length: number) => Buffer.from(hkdfSync('sha256', ikm, salt, info, length));

/** The user agent's keys for one subscription: its P-256 private key (32 bytes raw) and auth secret (16 bytes). */
export interface UserAgentKeys {
  privateKey: Buffer;
  auth: Buffer;
}

/**
 * Decrypts a Web Push message body as a browser does (RFC 8291 §3.3–3.4 over RFC 8188's
 * aes128gcm), or throws saying why it cannot. Written from the RFCs with node:crypto alone, so it
 * shares no code with the library that encrypts.
 */
export function decryptPushPayload(body: Buffer, keys: UserAgentKeys): Buffer {
  // RFC 8188 §2.1: salt (16), record size (4), key id length (1), key id (the sender's public key here).
  if (body.length < 21) throw new Error('shorter than the aes128gcm header');
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  if (recordSize < 18) throw new Error(`record size ${recordSize} is below the minimum of 18`);
  // RFC 8291 §4: the key id is the application server's uncompressed P-256 public key.
  if (idLength !== 65) throw new Error(`key id of ${idLength} bytes, not an uncompressed P-256 key (65)`);
  if (body.length < 21 + idLength + 17) throw new Error('no record after the header');
  const asPublic = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  // RFC 8291 §4: a push message is one record, so it must fit in the record size.
  if (record.length > recordSize) throw new Error('more than one record');

  const ua = createECDH('prime256v1');
  ua.setPrivateKey(keys.privateKey);
  const uaPublic = ua.getPublicKey();
  const ecdhSecret = ua.computeSecret(asPublic);
  // RFC 8291 §3.3: the auth secret and both public keys go into the key that encrypts the content.
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = hkdf(keys.auth, ecdhSecret, keyInfo, 32);
  // RFC 8188 §2.2 and §2.3: the content encryption key and the nonce (the first record's, sequence 0).
  const cek = hkdf(salt, ikm, Buffer.from('Content-Encoding: aes128gcm\0'), 16);
  const nonce = hkdf(salt, ikm, Buffer.from('Content-Encoding: nonce\0'), 12);

  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  let padded: Buffer;
  try {
    padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  } catch {
    throw new Error('the record does not authenticate (wrong keys or altered bytes)');
  }
  // RFC 8188 §2: the plaintext ends with a delimiter (2 in the last record) and any zeros of padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (end < 0) throw new Error('no padding delimiter');
  if (padded[end] !== 2) throw new Error(`padding delimiter ${padded[end]}, not the last record's 2`);
  return padded.subarray(0, end);
}

/** Why a VAPID check failed, and the status a push service answers for it. */
export type VapidCheck = { ok: true; subject: string; publicKey: string } | { ok: false; status: 401 | 403; reason: string };

/**
 * Checks an `Authorization: vapid t=<JWT>, k=<key>` header (RFC 8292 §3) for a push to an endpoint
 * of `audience` (its origin): an ES256 token signed by k's key, for this audience, expiring in the
 * next 24 hours, with a mailto: or https: contact. A restricted subscription (`expectedKey`)
 * accepts only its own application server key (403 otherwise, §4.2).
 */
export function checkVapid(authorization: string | undefined, options: { audience: string; nowSeconds: number; expectedKey?: string | null }): VapidCheck {
  const refuse = (reason: string, status: 401 | 403 = 401): VapidCheck => ({ ok: false, status, reason });
  if (!authorization) return refuse('no Authorization header');
  const scheme = /^vapid\s+(.*)$/i.exec(authorization.trim());
  if (!scheme) return refuse('the Authorization scheme is not vapid');
  const params = new Map<string, string>();
  for (const part of scheme[1]!.split(',')) {
    const m = /^\s*([a-z]+)\s*=\s*"?([A-Za-z0-9_.-]+)"?\s*$/i.exec(part);
    if (m) params.set(m[1]!.toLowerCase(), m[2]!);
  }
  const token = params.get('t');
  const k = params.get('k');
  if (!token || !k) return refuse('vapid needs both t and k');

  const raw = Buffer.from(k, 'base64url');
  if (raw.length !== 65 || raw[0] !== 4) return refuse('k is not an uncompressed P-256 public key');
  let key: KeyObject;
  try {
    key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33, 65).toString('base64url') }, format: 'jwk' });
  } catch {
    return refuse('k is not a point on P-256');
  }

  const parts = token.split('.');
  if (parts.length !== 3) return refuse('t is not a JWS in compact form');
  const [headerPart, claimsPart, signaturePart] = parts as [string, string, string];
  let header: { alg?: unknown };
  let claims: { aud?: unknown; exp?: unknown; sub?: unknown };
  try {
    header = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8')) as typeof header;
    claims = JSON.parse(Buffer.from(claimsPart, 'base64url').toString('utf8')) as typeof claims;
  } catch {
    return refuse('the token is not JSON');
  }
  if (header.alg !== 'ES256') return refuse(`the token is signed with ${String(header.alg)}, not ES256`);
  // JWS ES256 signatures are r‖s (64 bytes), not DER.
  const signature = Buffer.from(signaturePart, 'base64url');
  const signed = verify('sha256', Buffer.from(`${headerPart}.${claimsPart}`), { key, dsaEncoding: 'ieee-p1363' }, signature);
  if (!signed) return refuse('the token is not signed by k');
  if (claims.aud !== options.audience) return refuse(`the token's audience is ${String(claims.aud)}, not ${options.audience}`);
  if (typeof claims.exp !== 'number') return refuse('the token has no expiry');
  if (claims.exp <= options.nowSeconds) return refuse('the token has expired');
  if (claims.exp > options.nowSeconds + MAX_VAPID_LIFETIME_SECONDS) return refuse('the token expires more than 24 hours from now');
  if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub)) return refuse('the token\'s sub is not a mailto: or https: contact');
  if (options.expectedKey && options.expectedKey !== k) return refuse('the subscription is restricted to another application server key', 403);
  return { ok: true, subject: claims.sub, publicKey: k };
}

export interface PushDoubleOptions {
  /** Where the certificate and its key are written (and reused). */
  certDir: string;
}

export interface PushDouble {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  /** The certificate to trust (it is its own CA). */
  caFile: string;
  server: Server;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/** Reads a body up to `max` bytes; undefined when it is larger (the rest is drained, not kept). */
async function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= max) chunks.push(chunk as Buffer);
  }
  return size > max ? undefined : Buffer.concat(chunks);
}

const URGENCIES = new Set(['very-low', 'low', 'normal', 'high']);

export async function startPushDouble(port: number, options: PushDoubleOptions): Promise<PushDouble> {
  const { certFile, keyFile } = makeSelfSignedCertificate(options.certDir);
  const subscriptions = new Map<string, Subscription>();
  const received: ReceivedPush[] = [];
  let origin = '';

  const handlePush = async (req: IncomingMessage, res: ServerResponse, subscription: Subscription) => {
    // The body is read in full first: answering before it is read would reset the connection under the sender.
    const body = await readBody(req, MAX_PUSH_BODY_BYTES);
    const fault = subscription.faults.shift();
    if (fault?.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    if (fault?.reset) {
      req.socket.destroy();
      return;
    }
    if (fault?.status) {
      return json(res, fault.status, { reason: `scripted ${fault.status}` }, fault.retryAfter ? { 'Retry-After': fault.retryAfter } : {});
    }
    if (subscription.gone) return json(res, 410, { reason: 'the subscription has expired or was unsubscribed' });
    if (body === undefined) return json(res, 413, { reason: `the payload is larger than ${MAX_PUSH_BODY_BYTES} bytes` });
    // RFC 8030 §5.2: TTL is required, a number of seconds.
    const ttlHeader = req.headers.ttl;
    if (typeof ttlHeader !== 'string' || !/^\d+$/.test(ttlHeader.trim())) return json(res, 400, { reason: 'a TTL header (seconds) is required' });
    const urgency = typeof req.headers.urgency === 'string' ? req.headers.urgency : null;
    if (urgency !== null && !URGENCIES.has(urgency)) return json(res, 400, { reason: `unknown Urgency ${urgency}` });
    const topic = typeof req.headers.topic === 'string' ? req.headers.topic : null;
    if (topic !== null && !/^[A-Za-z0-9_-]{1,32}$/.test(topic)) return json(res, 400, { reason: 'a Topic is at most 32 base64url characters' });
    const vapid = checkVapid(req.headers.authorization, { audience: origin, nowSeconds: Math.floor(Date.now() / 1000), expectedKey: subscription.applicationServerKey });
    if (!vapid.ok) return json(res, vapid.status, { reason: vapid.reason });
    let text = '';
    if (body.length > 0) {
      if (req.headers['content-encoding'] !== 'aes128gcm') return json(res, 400, { reason: 'the payload must be encrypted with Content-Encoding: aes128gcm' });
      try {
        text = decryptPushPayload(body, { privateKey: subscription.ecdh.getPrivateKey(), auth: subscription.auth }).toString('utf8');
      } catch (err) {
        // A real push service cannot read the payload and would deliver it; the browser would drop
        // it. The double says so at once, since a test wants to know.
        return json(res, 400, { reason: `the payload does not decrypt: ${(err as Error).message}` });
      }
    }
    const messageId = randomBytes(12).toString('base64url');
    const ttl = Number(ttlHeader.trim());
    received.push({ messageId, subscription: subscription.id, text, ttl, urgency, topic, vapid: { subject: vapid.subject, publicKey: vapid.publicKey }, receivedAt: new Date().toISOString() });
    res.writeHead(201, { Location: `/message/${messageId}`, TTL: String(ttl) });
    res.end();
  };

  const handleControl = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const raw = (await readBody(req, 1_000_000)) ?? Buffer.alloc(0);
    let input: unknown = {};
    try {
      if (raw.length) input = JSON.parse(raw.toString('utf8'));
    } catch {
      return json(res, 400, { reason: 'the body is not JSON' });
    }
    if (url.pathname === '/__control/subscriptions' && req.method === 'POST') {
      const id = randomBytes(16).toString('base64url');
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const applicationServerKey = (input as { applicationServerKey?: string }).applicationServerKey ?? null;
      subscriptions.set(id, { id, ecdh, auth, applicationServerKey, gone: false, faults: [] });
      const subscription: PushSubscriptionJson = { endpoint: `${origin}/push/${id}`, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } };
      return json(res, 201, { id, ...subscription });
    }
    const one = /^\/__control\/subscriptions\/([A-Za-z0-9_-]+)(\/faults)?$/.exec(url.pathname);
    if (one) {
      const subscription = subscriptions.get(one[1]!);
      if (!subscription) return json(res, 404, { reason: 'no such subscription' });
      if (one[2] && req.method === 'POST') {
        const faults = (Array.isArray(input) ? input : (input as { faults?: PushFault[] }).faults ?? []) as PushFault[];
        subscription.faults.push(...faults);
        return json(res, 200, { queued: subscription.faults.length });
      }
      if (!one[2] && req.method === 'DELETE') {
        // The browser unsubscribed (or the service expired it): every push from now on is 410.
        subscription.gone = true;
        return json(res, 200, { gone: true });
      }
    }
    if (url.pathname === '/__control/messages' && req.method === 'GET') {
      const id = url.searchParams.get('subscription');
      return json(res, 200, { messages: received.filter((m) => !id || m.subscription === id) });
    }
    if (url.pathname === '/__control/reset' && req.method === 'POST') {
      // Messages and queued faults go; subscriptions stay, since the platform may have stored them.
      received.length = 0;
      for (const s of subscriptions.values()) s.faults = [];
      return json(res, 200, { ok: true });
    }
    return json(res, 404, { reason: `no control route ${req.method} ${url.pathname}` });
  };

  const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      if (url.pathname.startsWith('/__control/')) return handleControl(req, res, url);
      const push = /^\/push\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
      if (!push) return json(res, 404, { reason: 'not found' });
      if (req.method !== 'POST') return json(res, 405, { reason: 'push with POST' }, { Allow: 'POST' });
      const subscription = subscriptions.get(push[1]!);
      if (!subscription) {
        req.resume();
        return json(res, 404, { reason: 'no such subscription' });
      }
      return handlePush(req, res, subscription);
    })().catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { reason: `double failed: ${(err as Error).message}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  origin = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: origin,
    caFile: certFile,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        // Keep-alive sockets of a sender would hold the server open.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The control API, for tests: trusts the double's certificate file. */
export function pushDoubleControl(baseUrl: string, caFile: string) {
  const dispatcher = new Agent({ connect: { ca: readFileSync(caFile, 'utf8') } });
  const call = async (method: string, route: string, body?: unknown) => {
    const res = await undiciFetch(`${baseUrl}${route}`, { method, dispatcher, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }) });
    const data = (await res.json()) as unknown;
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(data)}`);
    return data;
  };
  return {
    /** Subscribes as a browser would; the answer is the subscription JSON plus the double's id. */
    subscribe: async (applicationServerKey?: string) => (await call('POST', '/__control/subscriptions', applicationServerKey ? { applicationServerKey } : {})) as PushSubscriptionJson & { id: string },
    faults: async (id: string, faults: PushFault[]) => void (await call('POST', `/__control/subscriptions/${id}/faults`, faults)),
    unsubscribe: async (id: string) => void (await call('DELETE', `/__control/subscriptions/${id}`)),
    messages: async (id?: string) => ((await call('GET', `/__control/messages${id ? `?subscription=${encodeURIComponent(id)}` : ''}`)) as { messages: ReceivedPush[] }).messages,
    reset: async () => void (await call('POST', '/__control/reset')),
    close: () => dispatcher.close(),
  };
}
