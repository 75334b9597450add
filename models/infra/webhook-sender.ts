/**
 * Sends one webhook delivery: a POST of a signed body to a customer's endpoint. The endpoint's URL
 * is someone else's choice, so the connection obeys the polite fetcher's SSRF rules (safe-connect:
 * every address of the host checked, the connection pinned to them, private networks only for
 * allow-listed development hosts). Redirects are never followed: the address behind one was never
 * checked, and a receiver that moved should be re-registered. One hard timeout covers connecting,
 * the answer and the little of its body we read (4 KiB, kept for the customer's delivery log; the
 * rest is dropped unread). The sender never throws for the endpoint's sake: every outcome is a
 * result, which webhook.rules judges (outcomeOf, nextAttemptDelay).
 *
 * Connections are kept alive between deliveries to the same origin, in an agent per origin and
 * checked addresses: the host is still resolved and every address checked at each delivery, and a
 * delivery uses a pooled connection only when its check found exactly the addresses that
 * connection was made under (a changed DNS answer gets an agent, and connections, of its own). An
 * agent idle for {@link AGENT_IDLE_MS} is closed, as are the least recently used past
 * {@link AGENTS_KEPT}.
 */
import type { LookupAddress } from 'node:dns';
import type { Readable } from 'node:stream';
import { LRUCache } from 'lru-cache';
import { type Agent, request } from 'undici';
import { honoursRetryAfter, MAX_RETRY_DELAY_MS, type AttemptResult } from '../events/webhook.rules';
import { describeUrl, FetchError, isAllowlisted, parseRetryAfter, urlRefusal } from './polite-fetch.rules';
import { checkedAddresses, type Lookup, pinnedAgent } from './safe-connect';

/** How much of an answer's body is kept: enough for an error message, never a whole page. */
export const RESPONSE_BODY_LIMIT = 4 * 1024;

export interface WebhookSenderOptions {
  /** Hosts (or host:port) that may be on loopback or private networks, and be plain HTTP: development doubles only. */
  allowHosts?: readonly string[];
  /** One attempt, from resolving the host to the last byte read of the answer. */
  timeoutMs?: number;
  /** Sent when the headers given name no User-Agent. */
  userAgent: string;
  /** Resolves host names (tests substitute their own; the system's resolver otherwise). */
  lookup?: Lookup;
}

export interface WebhookAttempt {
  /** The answer's HTTP status, or why there was none. */
  status: AttemptResult;
  durationMs: number;
  /** What a 429 or 503 asked for in `Retry-After`, capped at a day; absent when it said nothing. */
  retryAfterMs?: number;
  /** The first 4 KiB of the answer's body as text ('' when there was no answer). */
  responseBody: string;
  /** What went wrong, for the delivery log: never the URL's query, which may carry a token. */
  error?: string;
}

export interface WebhookSender {
  send(url: string, headers: Record<string, string>, body: string): Promise<WebhookAttempt>;
  /** Closes the kept connections (a worker shutting down, a test's end). */
  close(): Promise<void>;
}

/** How long an agent (and its kept-alive connections) waits unused before it is closed. */
export const AGENT_IDLE_MS = 60_000;
/** Agents kept at most (origins × their address sets); the least recently used is closed first. */
export const AGENTS_KEPT = 500;

/** An agent's key: the origin, and the checked addresses its connections may go to. */
export const agentKey = (url: URL, addresses: readonly LookupAddress[]): string =>
  `${url.origin} ${addresses
    .map((a) => `${a.family}/${a.address}`)
    .sort()
    .join(',')}`;

/**
 * Why this URL may not be an endpoint, or null when it may. Pure, so registration calls it too,
 * and the sender again at each delivery. HTTPS only, since the body carries the customer's news
 * and the signature proves only who sent it; plain HTTP only for hosts on the allow-list
 * (development doubles). No credentials in the URL, as for every fetch. Where the host resolves is
 * checked at each delivery (safe-connect), not here: DNS may change after registration.
 */
export function webhookUrlRefusal(raw: string, options: { allowHosts: readonly string[] }): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid URL';
  }
  const refusal = urlRefusal(url);
  if (refusal) return refusal;
  if (url.protocol !== 'https:' && !isAllowlisted(url, options.allowHosts)) return 'only https URLs are allowed';
  return null;
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** The first value of a response header. */
function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

/**
 * Reads at most `limit` bytes of a body, then destroys it: leaving the loop closes the
 * connection, so a receiver answering a huge body costs us nothing past the limit. A body that
 * fails half-way (the timeout, a reset) keeps what arrived: the status already came.
 */
async function readHead(body: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  body.on('error', () => undefined);
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) break;
    }
  } catch {
    // What arrived is kept; the status is what matters.
  } finally {
    if (!body.readableEnded) body.destroy();
  }
  return Buffer.concat(chunks, size).subarray(0, limit);
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  if (!options.userAgent?.trim()) throw new Error('createWebhookSender: userAgent is required');
  const allowHosts = options.allowHosts ?? [];
  const timeoutMs = options.timeoutMs ?? 15_000;
  const agents = new LRUCache<string, Agent>({
    max: AGENTS_KEPT,
    ttl: AGENT_IDLE_MS,
    updateAgeOnGet: true,
    // Closing lets a delivery in flight on it finish; a new one gets a new agent.
    dispose: (agent) => void agent.close().catch(() => agent.destroy().catch(() => undefined)),
  });
  const agentFor = (url: URL, addresses: LookupAddress[]): Agent => {
    const key = agentKey(url, addresses);
    let agent = agents.get(key);
    if (!agent) agents.set(key, (agent = pinnedAgent(addresses)));
    return agent;
  };

  async function send(raw: string, headers: Record<string, string>, body: string): Promise<WebhookAttempt> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const failed = (status: Exclude<AttemptResult, number>, error: string): WebhookAttempt => ({ status, durationMs: elapsed(), responseBody: '', error });

    // Checked again at each delivery: the allow-list may differ from the one at registration.
    const refusal = webhookUrlRefusal(raw, { allowHosts });
    if (refusal) return failed('refused-address', `refused ${describeUrl(raw)}: ${refusal}`);
    const url = new URL(raw);

    const signal = AbortSignal.timeout(timeoutMs);
    let agent: Agent;
    try {
      agent = agentFor(url, await checkedAddresses(url, { allowHosts, lookup: options.lookup, signal }));
    } catch (err) {
      if (err instanceof FetchError && err.code === 'refused') return failed('refused-address', err.message);
      if (signal.aborted) return failed('timeout', `timed out after ${timeoutMs} ms resolving ${url.hostname}`);
      return failed('network-error', (err as Error).message);
    }

    try {
      const sent: Record<string, string> = { ...headers };
      if (!Object.keys(sent).some((name) => name.toLowerCase() === 'user-agent')) sent['user-agent'] = options.userAgent;
      // undici's request never follows a redirect (that takes an interceptor we do not add): a
      // 3xx comes back as it is.
      const res = await request(url, { method: 'POST', headers: sent, body, signal, dispatcher: agent });
      const status = res.statusCode;
      const retryAfterMs = honoursRetryAfter(status) ? parseRetryAfter(headerOf(res.headers, 'retry-after'), Date.now(), MAX_RETRY_DELAY_MS) : undefined;
      const responseBody = new TextDecoder().decode(await readHead(res.body, RESPONSE_BODY_LIMIT));
      return { status, durationMs: elapsed(), ...(retryAfterMs === undefined ? {} : { retryAfterMs }), responseBody };
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      if (signal.aborted || (typeof code === 'string' && TIMEOUT_CODES.has(code))) return failed('timeout', `timed out after ${timeoutMs} ms: ${describeUrl(url)}`);
      const what = typeof code === 'string' ? code : ((err as Error | null)?.name ?? 'error');
      return failed('network-error', `network error (${what}): ${describeUrl(url)}`);
    }
  }

  return {
    send,
    async close() {
      const open = [...agents.values()];
      agents.clear();
      await Promise.all(open.map((agent) => agent.close().catch(() => agent.destroy())));
    },
  };
}
