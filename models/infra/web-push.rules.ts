/**
 * The pure decisions of Web Push sending (models/infra/web-push.ts): which endpoints a browser's
 * subscription may name, whether a subscription's keys and a message fit the protocol, and what a
 * push service's answer means for the caller. No I/O, so each rule is unit tested on its own.
 */
import { isAllowlisted, parseRetryAfter, urlRefusal } from './polite-fetch.rules';

/**
 * The push services browsers subscribe with: Chrome and Edge's FCM, Firefox's autopush, the
 * Windows notification service (legacy Edge) and Apple's. A `*.` entry is any subdomain of it.
 */
export const KNOWN_PUSH_SERVICE_HOSTS = ['fcm.googleapis.com', '*.push.services.mozilla.com', '*.notify.windows.com', 'web.push.apple.com'] as const;

const isKnownPushHost = (host: string): boolean =>
  KNOWN_PUSH_SERVICE_HOSTS.some((known) => (known.startsWith('*.') ? host.endsWith(known.slice(1)) : host === known));

/**
 * Why a subscription's endpoint may not be pushed to, or null when it may. The endpoint comes
 * from a browser, that is from anyone, and we POST to it from our network: https only, no
 * credentials, and in production only the known push services (on their own port, 443) or a host
 * on the allow-list (`allowHosts`, entries as the polite fetcher's: host, host:port or
 * host:first-last). Outside production any https host passes, so the double can be used.
 */
export function pushEndpointRefusal(raw: string, options: { allowHosts: readonly string[]; production: boolean }): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid URL';
  }
  if (url.protocol !== 'https:') return 'a push endpoint must be https';
  const refusal = urlRefusal(url);
  if (refusal) return refusal;
  if (isAllowlisted(url, options.allowHosts)) return null;
  if (!options.production) return null;
  const host = url.hostname.toLowerCase();
  if (!isKnownPushHost(host)) return `host ${host} is not a known push service`;
  if (url.port && url.port !== '443') return `a push service is not on port ${url.port}`;
  return null;
}

/**
 * The largest JSON payload one push carries: RFC 8030's 4096 bytes of body, less the aes128gcm
 * header with its 65-byte key (86), the tag (16) and the padding delimiter (1), as RFC 8291 §4 counts.
 */
export const MAX_PUSH_PAYLOAD_BYTES = 4096 - 86 - 16 - 1;

/** Why a browser's subscription keys cannot be encrypted to, or null when they can. */
export function subscriptionKeysRefusal(keys: { p256dh: string; auth: string }): string | null {
  const base64url = /^[A-Za-z0-9_-]+={0,2}$/;
  if (!base64url.test(keys.p256dh) || !base64url.test(keys.auth)) return 'the keys are not base64url';
  const p256dh = Buffer.from(keys.p256dh, 'base64url');
  if (p256dh.length !== 65 || p256dh[0] !== 4) return 'p256dh is not an uncompressed P-256 public key (65 bytes)';
  if (Buffer.from(keys.auth, 'base64url').length !== 16) return 'auth is not a 16-byte secret';
  return null;
}

/** RFC 8030 §5.4: a Topic is at most 32 characters of the base64url alphabet. */
export const isValidTopic = (topic: string): boolean => /^[A-Za-z0-9_-]{1,32}$/.test(topic);

/**
 * What a push came to, for the caller:
 * - `delivered`: the push service took it (2xx);
 * - `gone`: the subscription no longer exists (404, 410): delete it;
 * - `retry`: try again later (429, 5xx, 408, the network), after `retryAfterMs` when the service said;
 * - `refused`: sending it again changes nothing (another 4xx, a redirect, or our own check before
 *   sending, then with no status): our bug or our configuration, worth an alert.
 */
export type PushOutcome =
  | { kind: 'delivered' }
  | { kind: 'gone'; status: number }
  | { kind: 'retry'; status: number | null; retryAfterMs?: number; reason: string }
  | { kind: 'refused'; status: number | null; reason: string };

/** A push service asking for more than this is asking for longer than a notification is worth. */
export const PUSH_RETRY_AFTER_CAP_MS = 60 * 60 * 1000;

/** The outcome of a push service's answer: its status and Retry-After (seconds or an HTTP date). */
export function classifyPushAnswer(status: number, retryAfter: string | undefined, nowMs: number, body = ''): PushOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 404 || status === 410) return { kind: 'gone', status };
  const said = body.trim().slice(0, 200);
  const reason = `the push service answered ${status}${said ? `: ${said}` : ''}`;
  if (status === 429 || status === 408 || status >= 500) {
    const retryAfterMs = parseRetryAfter(retryAfter, nowMs, PUSH_RETRY_AFTER_CAP_MS);
    return { kind: 'retry', status, reason, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }
  return { kind: 'refused', status, reason };
}
