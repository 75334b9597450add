/**
 * Idempotency-Key, the pure parts (docs/decisions.md "Idempotency-Key"): the header's syntax, whose
 * request a key names (the caller, the operation, the key), the request's fingerprint, and the
 * identity the operation stores with what it creates (`requestKey`), from which ids are derived.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../errors';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Sent with an answer that is the stored answer of an earlier request with the same key. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX = 255;
/** 1–255 visible ASCII characters (a UUID, a ULID, a random token…). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;
/** How long a key's answer is kept, as Stripe does: a repeat after this is a new request to the store. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/**
 * How long a claim holds a key while its request runs. A claim older than this whose answer never
 * came (its process died) is taken over by the next request with the key; what the first wrote is
 * found again under its requestKey, so the takeover writes nothing twice.
 */
export const IDEMPOTENCY_LEASE_MS = 120_000;

/**
 * The header's value, checked: undefined when the request sent none; a 400 naming the header when
 * it is empty, too long, or holds anything but visible ASCII.
 */
export function parseIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const key = Array.isArray(value) ? value.join(', ') : value;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    const message = `${IDEMPOTENCY_HEADER} must be 1–${IDEMPOTENCY_KEY_MAX} visible ASCII characters (a UUID, for example)`;
    throw new AppError('VALIDATION_FAILED', message, { details: [{ path: `header.${IDEMPOTENCY_HEADER}`, message }] });
  }
  return key;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** JSON with object keys sorted at every level (Dates as ISO strings, undefined fields left out). */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * What makes two requests under one key the same request: the validated path parameters, query and
 * JSON body (after defaults and trimming, so `{"mode":"live"}` left out or given is one request).
 * A streamed body (JSON lines, multipart) is not read before the key is claimed, so it is not part
 * of it: there the key alone names the request, with the body's media type.
 */
export function requestFingerprint(input: { params?: unknown; query?: unknown; body?: unknown; mediaType?: string | undefined }): string {
  return sha256(canonicalJson({ params: input.params ?? {}, query: input.query ?? {}, body: input.body ?? null, ...(input.mediaType === undefined ? {} : { mediaType: input.mediaType }) }));
}

/** Who sent the request: the caller's account or token subject (`sub` on every principal), or anyone on a public route. */
export function callerOf(principal: unknown): string {
  const sub = (principal as { sub?: unknown } | null | undefined)?.sub;
  return typeof sub === 'string' && sub !== '' ? `sub:${sub}` : 'public';
}

/**
 * The stored record's id: the caller, the operation (method and route path) and the key, hashed, so
 * that a key is one caller's on one operation, and no key is stored in clear.
 */
export function idempotencyRecordId(scope: { caller: string; method: string; path: string }, key: string): string {
  return sha256(`${scope.caller}\n${scope.method.toUpperCase()}\n${scope.path}\n${key}`);
}

/**
 * The identity the operation stores with what it creates (a message's dedupeKey, a ticket's
 * requestKey, an id derived from it): the record and the fingerprint, so that a key used again
 * after its record expired, with another body, is another request.
 */
export function requestKeyOf(recordId: string, fingerprint: string): string {
  return sha256(`${recordId}\n${fingerprint}`);
}

/**
 * A UUID (version 8, RFC 9562 §5.8: its bits from SHA-256) derived from a requestKey: the id of an
 * operation, an import or an API key created under it, so a repeat finds the first one by its id.
 */
export function uuidFromRequestKey(requestKey: string, kind: string): string {
  const bytes = createHash('sha256').update(`${kind}\n${requestKey}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
