/**
 * Support by e-mail (issue 39), Mailgun's inbound webhook: a route's `forward()` to a URL ending in
 * `mime` posts the raw message (`body-mime`) with the envelope (`recipient`, `sender`) and a
 * signature (`timestamp`, `token`, `signature`). What it means, computed with node:crypto and
 * node:net and no other I/O (kept out of the `*.rules.ts` files, which workflows and the page import):
 *
 * - the signature is the hex HMAC-SHA256 of `timestamp + token` (no separator) under the webhook
 *   signing key, compared in constant time; a timestamp more than 9 hours from now is refused
 *   (Mailgun retries for 8 hours, and may resend a delivery's first signature);
 *   the token, once used, is kept (models/support/mailgun-token.repo.ts) so a replay is refused.
 *   The signature covers nothing else: the rest of the body is believed because it came with a
 *   fresh, unused token over TLS;
 * - the recipients are the comma-separated `recipient` field;
 * - the SMTP client was Mailgun's MX, not us: the client that connected to it is read from the
 *   message's topmost Received header (the one Mailgun's MX prepends on accepting the message,
 *   RFC 5321 §4.4), and only from that one: any header below it was written by the sender.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { InboundMailRemote } from './inbound-mail.repo';

/**
 * How far a delivery's timestamp may be from now, either way: past Mailgun's 8 hours of retries,
 * which may carry the first delivery's signature (docs/decisions.md "Mailgun's retries"). A replay
 * within it is refused by its token.
 */
export const MAILGUN_TIMESTAMP_TOLERANCE_MS = 9 * 60 * 60_000;
/** How long a used token is kept: past twice the tolerance its timestamp can never be fresh again. */
export const MAILGUN_TOKEN_TTL_MS = 2 * MAILGUN_TIMESTAMP_TOLERANCE_MS + 60 * 60_000;

/** The fields of a delivery that sign it, as posted (any may be missing). */
export interface MailgunSignatureFields {
  timestamp?: string | undefined;
  token?: string | undefined;
  signature?: string | undefined;
}

export type MailgunVerdict = 'ok' | 'missing' | 'bad-signature' | 'stale';

const TIMESTAMP = /^\d{1,12}$/;
// Mailgun's tokens are 50 characters; anything printable up to 256 is let through to the HMAC.
const TOKEN = /^[\x21-\x7e]{1,256}$/;
const SIGNATURE = /^[0-9a-fA-F]{64}$/;

/** The signature Mailgun sends for `timestamp` and `token`: hex HMAC-SHA256 of both, joined, under the signing key. */
export function mailgunSignature(signingKey: string, timestamp: string, token: string): string {
  return createHmac('sha256', signingKey).update(`${timestamp}${token}`).digest('hex');
}

/**
 * Whether a delivery is Mailgun's and fresh: its three fields present and well formed (`missing`),
 * the signature right, compared in constant time (`bad-signature`), then the timestamp within the
 * tolerance of `now` (`stale`). The signature is checked first, so an unsigned caller learns
 * nothing of our clock.
 */
export function verifyMailgunSignature(signingKey: string, fields: MailgunSignatureFields, now: Date, toleranceMs = MAILGUN_TIMESTAMP_TOLERANCE_MS): MailgunVerdict {
  const { timestamp, token, signature } = fields;
  if (!timestamp || !token || !signature || !TIMESTAMP.test(timestamp) || !TOKEN.test(token) || !SIGNATURE.test(signature)) return 'missing';
  const expected = Buffer.from(mailgunSignature(signingKey, timestamp, token), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return 'bad-signature';
  return Math.abs(now.getTime() - Number(timestamp) * 1000) > toleranceMs ? 'stale' : 'ok';
}

/** What a used token is kept as: its SHA-256, never the token itself. */
export const mailgunTokenKey = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The recipients at most in one delivery (the receiver's RCPT TO limit). */
export const MAILGUN_MAX_RECIPIENTS = 50;

/** The envelope recipients of `recipient` (comma-separated, `<…>` taken off), in order; empty ones dropped. */
export function mailgunRecipients(field: string): string[] {
  return field
    .split(',')
    .map((r) => r.trim().replace(/^<(.*)>$/, '$1').trim())
    .filter((r) => r.length > 0);
}

/** The envelope sender of `sender` (`<…>` taken off); '' for the null sender of a bounce. */
export const mailgunSender = (field: string | undefined): string => (field ?? '').trim().replace(/^<(.*)>$/, '$1').trim();

/** The client, when the Received header names none we can use: SPF is then not checked (models/infra/mail-auth.ts). */
export const UNKNOWN_CLIENT: InboundMailRemote = { address: '', hostname: '', helo: '' };

/** The message's header block read at most, and its Received header. */
const HEAD_BYTES = 64 * 1024;
const RECEIVED_CHARS = 2_000;

/** Whether an address is one a client on the Internet could have: not private, loopback, link-local, shared or unspecified. */
function publicAddress(ip: string): boolean {
  const v = isIP(ip);
  if (v === 4) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    return !(a === 0 || a === 10 || a === 127 || a >= 224 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168));
  }
  if (v === 6) {
    const low = ip.toLowerCase();
    return !(low === '::' || low === '::1' || /^f[cd]/.test(low) || /^fe[89ab]/.test(low) || low.startsWith('::ffff:'));
  }
  return false;
}

/**
 * The client the last relay took the message from, as the Received header it prepended says it
 * (`from <helo> (<name> [<ip>]) by …`): Mailgun's MX, or an MTA of ours in front of the receiver
 * (SUPPORT_MAIL_TRUSTED_RELAYS). The topmost Received header of the message's first 64 KiB of
 * headers, its first 2,000 characters. Null when there is none, or its from-clause names no address
 * a client on the Internet could have (a hop inside the relay would give SPF a wrong answer).
 */
export function receivedClient(raw: Buffer): InboundMailRemote | null {
  const head = raw.subarray(0, HEAD_BYTES).toString('latin1');
  const end = head.search(/\r?\n\r?\n/);
  const lines = (end >= 0 ? head.slice(0, end) : head).split(/\r?\n/);
  const start = lines.findIndex((l) => /^received:/i.test(l));
  if (start < 0) return null;
  let value = lines[start]!.slice('received:'.length);
  for (let i = start + 1; i < lines.length && /^[ \t]/.test(lines[i]!) && value.length < RECEIVED_CHARS; i += 1) value += ` ${lines[i]!.trim()}`;
  value = value.slice(0, RECEIVED_CHARS).replace(/\s+/g, ' ').trim();
  // The from-clause: from the start to " by " (the receiving host's part, which names Mailgun).
  const byAt = value.search(/\sby\s/i);
  const from = /^from\s/i.test(value) ? value.slice(5, byAt >= 0 ? byAt : undefined) : '';
  const bracket = /\[(?:ipv6:)?([0-9a-f.:]{2,45})\]/i.exec(from);
  const ip = bracket?.[1] ?? '';
  if (!publicAddress(ip)) return null;
  const helo = /^\s*(\S{1,255})/.exec(from)?.[1] ?? '';
  const name = /\(\s*([A-Za-z0-9.-]{1,253})\s+\[/.exec(from)?.[1];
  return { address: ip, hostname: name ?? `[${ip}]`, helo: helo.startsWith('[') ? '' : helo };
}
