/**
 * The pure decisions of the polite fetcher (models/infra/polite-fetch.ts): which URLs and
 * addresses may be fetched (the SSRF guard), how failures are classified for retries, how long a
 * `Retry-After` asks us to wait, and back-off with full jitter. No I/O, so each rule is unit tested
 * on its own.
 */
import ipaddr from 'ipaddr.js';

/**
 * Why a fetch failed, as an activity needs to know it: `refused` (the SSRF guard said no: address
 * class, scheme, credentials in the URL, too many redirects, a redirect loop), `robots` (robots.txt
 * disallows it), `too-large` (over the body cap), `timeout`, `network`, `http` (an unexpected
 * status), `retry-later` (429 or 503, with the wait the server asked for).
 */
export type FetchErrorCode = 'refused' | 'robots' | 'too-large' | 'timeout' | 'network' | 'http' | 'retry-later';

export class FetchError extends Error {
  override name = 'FetchError';
  readonly code: FetchErrorCode;
  /** The HTTP status, for `http` and `retry-later`. */
  readonly status: number | undefined;
  /** What `Retry-After` asked for, for `retry-later`; undefined when the server did not say. */
  readonly retryAfterMs: number | undefined;

  constructor(code: FetchErrorCode, message: string, options: { status?: number; retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * Whether trying again later may succeed. The guard's refusals, robots.txt and the size cap give
 * the same answer every time; so do 4xx statuses other than 408 (the server read a bad request).
 * Anything that is not a FetchError (a lease wait that ran out, a bug) is left to the retry policy.
 */
export function retryable(err: unknown): boolean {
  if (!(err instanceof FetchError)) return true;
  switch (err.code) {
    case 'refused':
    case 'robots':
    case 'too-large':
      return false;
    case 'http':
      return err.status === undefined || err.status >= 500 || err.status === 408;
    case 'timeout':
    case 'network':
    case 'retry-later':
      return true;
  }
}

/** Servers that ask for longer than this are asking for something we would not wait for anyway. */
export const RETRY_AFTER_CAP_MS = 6 * 60 * 60 * 1000;

/**
 * The wait a `Retry-After` header asks for (RFC 9110 §10.2.3): delta-seconds or an HTTP-date,
 * capped; a date already past is 0. Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number, capMs = RETRY_AFTER_CAP_MS): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  let ms: number;
  if (/^\d+$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    // Every HTTP-date form spells the month; V8 would otherwise read "-5" or "1.5" as dates.
    const at = /[a-z]{3}/i.test(text) ? Date.parse(text) : Number.NaN;
    if (Number.isNaN(at)) return undefined;
    ms = at - nowMs;
  }
  return Math.min(Math.max(ms, 0), capMs);
}

/**
 * Back-off with full jitter (a random wait between 0 and the exponential ceiling), so many
 * waiters do not retry in step. `attempt` counts from 1: the ceiling is baseMs, then doubles up
 * to capMs.
 */
export function backoffMs(attempt: number, options: { baseMs: number; capMs: number; random?: () => number }): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 52);
  const ceiling = Math.min(options.capMs, options.baseMs * 2 ** exponent);
  return Math.floor((options.random ?? Math.random)() * ceiling);
}

/**
 * A URL as it may appear in an error message or a log: scheme, host and path only. The query may
 * carry a feed's access token, and credentials are refused but must not be echoed either.
 */
export function describeUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return '(invalid URL)';
  }
  const text = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Parses a URL to fetch, or throws `refused` (never echoing what could not be parsed). */
export function parseFetchUrl(raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new FetchError('refused', 'refused: not a valid URL');
  }
}

/** Why this URL may not be fetched whatever its address (scheme, credentials), or null. */
export function urlRefusal(url: URL): string | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `scheme ${url.protocol} is not allowed`;
  if (url.username || url.password) return 'credentials in the URL are not allowed';
  if (!url.hostname) return 'no host';
  return null;
}

const unbracket = (host: string) => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/** The URL's port, the scheme's default when it names none. */
export const effectivePort = (url: URL): string => url.port || (url.protocol === 'https:' ? '443' : '80');

/**
 * Whether the URL's host is on the allow-list (development doubles on loopback or a private
 * network): by host alone, by host:port, or by host:first-last (a range of ports). IPv6 hosts may
 * be listed with or without brackets. A host listed alone allows every port of it, so the
 * development configuration names the doubles' ports: loopback also serves Mailpit (sign-in
 * codes), MinIO and Temporal.
 */
export function isAllowlisted(url: URL, allowHosts: readonly string[]): boolean {
  const host = unbracket(url.hostname.toLowerCase());
  const port = Number(effectivePort(url));
  return allowHosts.some((entry) => {
    const e = entry.trim().toLowerCase();
    if (unbracket(e) === host) return true;
    const m = /^(.*):(\d{1,5})(?:-(\d{1,5}))?$/.exec(e);
    if (!m || unbracket(m[1]!) !== host) return false;
    const first = Number(m[2]);
    const last = m[3] === undefined ? first : Number(m[3]);
    return port >= first && port <= last;
  });
}

/** The address a URL names literally (IPv6 without brackets), or null when it names a host. */
export function ipLiteral(url: URL): string | null {
  const host = unbracket(url.hostname);
  return ipaddr.isValid(host) ? host : null;
}

/**
 * Address classes an allow-listed host may resolve to besides public unicast: development
 * doubles live on loopback and private networks. Never the unspecified, broadcast or multicast
 * addresses, which name no single server.
 */
const ALLOWLISTED_RANGES = new Set(['unicast', 'loopback', 'private', 'linkLocal', 'uniqueLocal', 'carrierGradeNat']);

/**
 * Why an address may not be connected to, or null when it may. Only public unicast passes (an
 * IPv4-mapped IPv6 address is judged as the IPv4 address it carries); allow-listed hosts may also
 * be on loopback and private networks. Returns the address class, e.g. "private".
 */
export function addressRefusal(address: string, allowlisted: boolean): string | null {
  let range: string;
  try {
    range = ipaddr.process(address).range();
  } catch {
    return 'not an IP address';
  }
  if (range === 'unicast') return null;
  if (allowlisted && ALLOWLISTED_RANGES.has(range)) return null;
  return range;
}

/** Statuses that send us elsewhere with a Location header. */
export const isRedirect = (status: number): boolean => status === 301 || status === 302 || status === 303 || status === 307 || status === 308;

/** A URL's identity for loop detection: the fragment never reaches the server. */
export function visitKey(url: URL): string {
  const copy = new URL(url.href);
  copy.hash = '';
  return copy.href;
}

/** Content codings in the order to undo them (the last applied first), `identity` dropped. */
export function codingsToUndo(header: string | null | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity')
    .reverse();
}

/** Whether a raw deflate body carries the zlib wrapper (RFC 1950) or is bare (RFC 1951), as some servers send. */
export const hasZlibHeader = (body: Buffer): boolean => body.length >= 2 && (body[0]! & 0x0f) === 8 && ((body[0]! << 8) | body[1]!) % 31 === 0;
