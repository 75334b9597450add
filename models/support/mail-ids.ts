/**
 * Support by e-mail (issue 39): the desk's Message-IDs and reply tokens. Computation with
 * node:crypto (HMAC, random bytes), no other I/O; kept out of the `*.rules.ts` files, which
 * workflows and the page import.
 *
 * A mail of the desk has the Message-ID `<t{ticket}.m{message}.{mac}@{domain}>` (message 0: the
 * ticket's acknowledgement), where mac is the first 20 characters (100 bits) of the lowercase
 * base32 HMAC-SHA256 of `{ticket}.{message}` under the desk's secret (config support.mail.secret).
 * A reply's In-Reply-To or References names one of them; `ourMessageId` accepts an id only if the
 * mac is right, so nobody can join a ticket by inventing an In-Reply-To: they would have to guess
 * 100 bits. Base32 lowercase, because mail systems are known to change the case of ids.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { base32, REPLY_TOKEN, REPLY_TOKEN_LENGTH } from './mail-out.rules';

export { REPLY_TOKEN } from './mail-out.rules';

/** Characters of the mac kept in a Message-ID (5 bits each: 100 bits). */
export const MAC_CHARS = 20;
/** The shortest secret accepted (config SUPPORT_MAIL_SECRET asks the same). */
export const MIN_SECRET_CHARS = 32;

const DOMAIN = /^[a-z0-9.-]{1,253}$/;

function checkSecret(secret: string): void {
  if (typeof secret !== 'string' || secret.length < MIN_SECRET_CHARS) throw new Error(`The mail secret must have at least ${MIN_SECRET_CHARS} characters`);
}

const macOf = (secret: string, ticketId: number, messageId: number): string =>
  base32(createHmac('sha256', secret).update(`${ticketId}.${messageId}`).digest()).slice(0, MAC_CHARS);

/** The Message-ID of the desk's mail for a ticket's message (messageId 0: its acknowledgement). */
export function messageIdOf(secret: string, domain: string, ticketId: number, messageId: number): string {
  checkSecret(secret);
  const d = domain.toLowerCase();
  if (!DOMAIN.test(d)) throw new Error('The Message-ID domain must be a plain domain');
  if (!Number.isSafeInteger(ticketId) || ticketId < 1) throw new Error('A ticket id is a positive integer');
  if (!Number.isSafeInteger(messageId) || messageId < 0) throw new Error('A message id is a non-negative integer (0: the acknowledgement)');
  return `<t${ticketId}.m${messageId}.${macOf(secret, ticketId, messageId)}@${d}>`;
}

/** The shape of one of our ids (lowercased, brackets removed); the numbers are safe integers (at most 16 digits). */
const OURS = /^t([1-9][0-9]{0,15})\.m(0|[1-9][0-9]{0,15})\.([a-z2-7]{20})@([a-z0-9.-]{1,253})$/;

/**
 * The ticket and message a Message-ID of ours names, or null: not of this shape, another domain,
 * or a mac that does not verify (a guessed or altered id). With or without angle brackets and
 * surrounding spaces; case-insensitive (the mac is lowercase base32, the domain is a domain).
 */
export function ourMessageId(secret: string, domain: string, id: string): { ticketId: number; messageId: number } | null {
  checkSecret(secret);
  if (typeof id !== 'string' || id.length > 400) return null;
  let s = id.trim().toLowerCase();
  if (s.startsWith('<') !== s.endsWith('>')) return null;
  if (s.startsWith('<')) s = s.slice(1, -1);
  const m = OURS.exec(s);
  if (!m || m[4] !== domain.toLowerCase()) return null;
  const ticketId = Number(m[1]);
  const messageId = Number(m[2]);
  if (!Number.isSafeInteger(ticketId) || !Number.isSafeInteger(messageId)) return null;
  const expected = Buffer.from(macOf(secret, ticketId, messageId));
  const given = Buffer.from(m[3]!);
  return given.length === expected.length && timingSafeEqual(given, expected) ? { ticketId, messageId } : null;
}

/** A new reply token: 120 random bits as 24 lowercase base32 characters (REPLY_TOKEN). */
export function newReplyToken(): string {
  const token = base32(randomBytes((REPLY_TOKEN_LENGTH * 5) / 8));
  if (!REPLY_TOKEN.test(token)) throw new Error('reply token of the wrong shape');
  return token;
}
