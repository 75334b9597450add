/**
 * The one way the news platform fetches from sites it does not control (feeds, article pages).
 * Polite: a User-Agent naming the bot on every request, robots.txt honoured on request,
 * conditional GETs, at most N concurrent requests per origin across all workers (hostSlots).
 * Safe: every address a host resolves to is checked before connecting and the connection goes to
 * the checked address (no second lookup, so DNS rebinding cannot slip a private address in: both
 * steps live in safe-connect.ts, shared with the webhook sender), redirects are followed by hand
 * and each hop checked again, bodies are capped after decompression, and one timeout covers each
 * request including its body.
 */
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { LRUCache } from 'lru-cache';
import robotsParser from 'robots-parser';
import { type Agent, request } from 'undici';
import { codingsToUndo, describeUrl, FetchError, hasZlibHeader, isRedirect, parseFetchUrl, parseRetryAfter, urlRefusal, visitKey } from './polite-fetch.rules';
import { checkedAddresses, type Lookup, pinnedAgent, systemLookup } from './safe-connect';

export { FetchError, retryable, type FetchErrorCode } from './polite-fetch.rules';
export type { Lookup } from './safe-connect';

/** A cross-process limiter of concurrent requests per origin; `acquire` resolves with its release. */
export interface HostSlots {
  acquire(origin: string, signal?: AbortSignal): Promise<() => Promise<void>>;
}

export interface PoliteFetcherOptions {
  /** Names the bot and where to read about it, e.g. `NewsletterPlatformBot/0.1 (+https://example.com/bot)`. */
  userAgent: string;
  /** One request, from connecting to the last byte of its body (each redirect hop has its own). */
  timeoutMs?: number;
  /** Largest body accepted, after decompression. */
  maxBytes?: number;
  maxRedirects?: number;
  /** Hosts (or host:port) that may be on loopback or private networks: development doubles only. */
  allowHosts?: readonly string[];
  hostSlots?: HostSlots;
  /** How long a robots.txt verdict is kept per origin, whatever it was. */
  robotsCacheMs?: number;
  lookup?: Lookup;
}

export interface FetchRequest {
  /** Validators of the copy we hold: a 304 answers `not-modified`. */
  etag?: string | null;
  lastModified?: string | null;
  accept?: string;
  /** Refuse (`robots`) when robots.txt disallows this URL or any URL it redirects through. */
  checkRobots?: boolean;
  signal?: AbortSignal;
}

export type FetchResult =
  | { kind: 'ok'; status: 200; body: Buffer; contentType: string | null; etag: string | null; lastModified: string | null; finalUrl: string }
  | { kind: 'not-modified' };

export interface PoliteFetcher {
  fetch(url: string, req?: FetchRequest): Promise<FetchResult>;
  robotsAllows(url: string): Promise<boolean>;
}

type Hop = FetchResult | { kind: 'redirect'; to: URL };

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotliDecompress = promisify(zlib.brotliDecompress);

/** robots.txt verdicts: the file's rules, or everything allowed (4xx) or disallowed (unreachable). */
type RobotsVerdict = { rules: ReturnType<typeof robotsParser> } | { all: boolean };

/** The first value of a response header. */
function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

/** Drops a body we will not read; destroying an unread body reports an abort nobody needs. */
function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

export function createPoliteFetcher(options: PoliteFetcherOptions): PoliteFetcher {
  if (!options.userAgent?.trim()) throw new Error('createPoliteFetcher: userAgent is required');
  const userAgent = options.userAgent;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  const maxRedirects = options.maxRedirects ?? 5;
  const allowHosts = options.allowHosts ?? [];
  const lookup = options.lookup ?? systemLookup;
  const robotsCache = new LRUCache<string, Promise<RobotsVerdict>>({ max: 10_000, ttl: options.robotsCacheMs ?? 60 * 60 * 1000 });

  /** Reads a body, giving up as soon as it passes the cap. */
  async function readCapped(body: Readable, url: URL): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      // Leaving the loop destroys the stream, and so the connection.
      if (size > maxBytes) {
        throw new FetchError('too-large', `response over ${maxBytes} bytes: ${describeUrl(url)}`);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, size);
  }

  /** Undoes the content codings, the cap applying to what each one produces. */
  async function decode(raw: Buffer, contentEncoding: string | null, url: URL): Promise<Buffer> {
    let body = raw;
    for (const coding of codingsToUndo(contentEncoding)) {
      const unzip =
        coding === 'gzip' || coding === 'x-gzip' ? gunzip : coding === 'br' ? brotliDecompress : coding === 'deflate' ? (hasZlibHeader(body) ? inflate : inflateRaw) : null;
      if (!unzip) throw new FetchError('http', `unsupported content-encoding ${coding}: ${describeUrl(url)}`, { status: 200 });
      try {
        body = await unzip(body, { maxOutputLength: maxBytes });
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new FetchError('too-large', `response over ${maxBytes} bytes decompressed: ${describeUrl(url)}`);
        throw new FetchError('network', `could not decompress the ${coding} body: ${describeUrl(url)}`, { cause: err });
      }
    }
    return body;
  }

  /** A failure of one request as a FetchError, except the caller's own cancellation. */
  function classify(err: unknown, url: URL, timeout: AbortSignal, caller: AbortSignal | undefined): unknown {
    if (err instanceof FetchError) return err;
    if (caller?.aborted) return caller.reason;
    const code = (err as { code?: unknown } | null)?.code;
    if (timeout.aborted || (typeof code === 'string' && TIMEOUT_CODES.has(code))) return new FetchError('timeout', `timed out after ${timeoutMs} ms: ${describeUrl(url)}`, { cause: err });
    const what = typeof code === 'string' ? code : ((err as Error | null)?.name ?? 'error');
    return new FetchError('network', `network error (${what}): ${describeUrl(url)}`, { cause: err });
  }

  /** One request to one URL, holding a host slot, connected to the address that was checked. */
  async function hop(url: URL, req: FetchRequest): Promise<Hop> {
    const release = await options.hostSlots?.acquire(url.origin, req.signal);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
    let agent: Agent | undefined;
    try {
      const addresses = await checkedAddresses(url, { allowHosts, lookup, signal });
      // One agent per request: its only lookup is the checked addresses, and no pooled connection
      // outlives the check. Polite fetching is a few requests per host, so keep-alive buys little.
      agent = pinnedAgent(addresses);
      const headers: Record<string, string> = { 'user-agent': userAgent, accept: req.accept ?? '*/*', 'accept-encoding': 'gzip, deflate, br' };
      if (req.etag) headers['if-none-match'] = req.etag;
      if (req.lastModified) headers['if-modified-since'] = req.lastModified;
      const res = await request(url, { method: 'GET', headers, signal, dispatcher: agent });
      const status = res.statusCode;

      if (status !== 200) discard(res.body);
      if (status === 304) return { kind: 'not-modified' };
      if (isRedirect(status)) {
        const location = headerOf(res.headers, 'location');
        let to: URL | null = null;
        try {
          to = location ? new URL(location, url) : null;
        } catch {
          to = null;
        }
        if (!to) throw new FetchError('http', `HTTP ${status} without a valid Location: ${describeUrl(url)}`, { status });
        return { kind: 'redirect', to };
      }
      if (status === 429 || status === 503) {
        const retryAfterMs = parseRetryAfter(headerOf(res.headers, 'retry-after'), Date.now());
        const after = retryAfterMs === undefined ? '' : `, retry after ${Math.ceil(retryAfterMs / 1000)} s`;
        throw new FetchError('retry-later', `HTTP ${status}${after}: ${describeUrl(url)}`, { status, retryAfterMs });
      }
      if (status !== 200) throw new FetchError('http', `HTTP ${status}: ${describeUrl(url)}`, { status });

      const declared = Number(headerOf(res.headers, 'content-length'));
      if (declared > maxBytes) {
        discard(res.body);
        throw new FetchError('too-large', `response of ${declared} bytes is over ${maxBytes}: ${describeUrl(url)}`);
      }
      const body = await decode(await readCapped(res.body, url), headerOf(res.headers, 'content-encoding'), url);
      return {
        kind: 'ok',
        status: 200,
        body,
        contentType: headerOf(res.headers, 'content-type'),
        etag: headerOf(res.headers, 'etag'),
        lastModified: headerOf(res.headers, 'last-modified'),
        finalUrl: url.href,
      };
    } catch (err) {
      throw classify(err, url, timeout, req.signal);
    } finally {
      agent?.destroy().catch(() => undefined);
      // A release that fails (the database is away) only delays the slot: its lease expires.
      await release?.().catch(() => undefined);
    }
  }

  /** Fetches, following redirects by hand: each hop is checked as the first one was. */
  async function follow(raw: string, req: FetchRequest): Promise<FetchResult> {
    let url = parseFetchUrl(raw);
    const visited = new Set<string>();
    for (let redirects = 0; ; redirects += 1) {
      const refusal = urlRefusal(url);
      if (refusal) throw new FetchError('refused', `refused ${describeUrl(url)}: ${refusal}`);
      const key = visitKey(url);
      if (visited.has(key)) throw new FetchError('refused', `refused ${describeUrl(url)}: redirect loop`);
      visited.add(key);
      if (req.checkRobots && !(await robotsAllows(url.href))) throw new FetchError('robots', `robots.txt disallows ${describeUrl(url)}`);
      const result = await hop(url, req);
      if (result.kind !== 'redirect') return result;
      if (redirects >= maxRedirects) throw new FetchError('refused', `refused ${describeUrl(raw)}: more than ${maxRedirects} redirects`);
      url = result.to;
    }
  }

  /**
   * Fetches and reads an origin's robots.txt (RFC 9309): its rules; everything allowed when it
   * is missing (4xx); everything disallowed when it is unreachable (5xx, 429, network, refused).
   * Failures that say nothing about the site (a host slot not free in time) are not verdicts.
   */
  async function robotsOf(origin: string): Promise<RobotsVerdict> {
    const robotsUrl = `${origin}/robots.txt`;
    try {
      const result = await follow(robotsUrl, { accept: 'text/plain' });
      if (result.kind !== 'ok') return { all: true };
      return { rules: robotsParser(robotsUrl, result.body.toString('utf8')) };
    } catch (err) {
      if (!(err instanceof FetchError)) throw err;
      if (err.code === 'http' && err.status !== undefined && err.status >= 400 && err.status < 500) return { all: true };
      return { all: false };
    }
  }

  async function robotsAllows(raw: string): Promise<boolean> {
    const url = parseFetchUrl(raw);
    const refusal = urlRefusal(url);
    if (refusal) throw new FetchError('refused', `refused ${describeUrl(url)}: ${refusal}`);
    let verdict = robotsCache.get(url.origin);
    if (!verdict) {
      // Concurrent callers share one fetch of the file.
      verdict = robotsOf(url.origin);
      robotsCache.set(url.origin, verdict);
      const pending = verdict;
      void pending.catch(() => {
        if (robotsCache.get(url.origin) === pending) robotsCache.delete(url.origin);
      });
    }
    const known = await verdict;
    if ('all' in known) return known.all;
    return known.rules.isAllowed(url.href, userAgent) ?? true;
  }

  return { fetch: (url, req = {}) => follow(url, req), robotsAllows };
}
