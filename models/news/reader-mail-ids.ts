/**
 * The signed parts of readers' mail (issue 40): one-click unsubscribe tokens and Message-IDs.
 *
 * A token says which reader and which list, with an HMAC-SHA256 over both under a key derived
 * (HKDF) from WEB_SECRET, the secret the dashboard already requires: no new secret to deploy, and
 * the derived key serves this purpose alone. It carries no expiry: an unsubscribe link in a mail
 * from last year must still work (RFC 8058 asks that it work for as long as mail is sent), and
 * what it can do is only to switch one list off. Compared in constant time.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { READER_LISTS, type ReaderList } from './reader-mail.rules';

const keys = new Map<string, Buffer>();

/** The key of one purpose, derived from the deployment's web secret. */
function keyFor(secret: string, purpose: string): Buffer {
  const id = `${purpose}\n${secret}`;
  let key = keys.get(id);
  if (!key) keys.set(id, (key = Buffer.from(hkdfSync('sha256', secret, 'newsletter-platform', `reader-mail:${purpose}`, 32))));
  return key;
}

const mac = (secret: string, text: string) => createHmac('sha256', keyFor(secret, 'unsubscribe')).update(text).digest().subarray(0, 16).toString('base64url');

/** `<base64url user id>~<list>~<mac>`: what the unsubscribe address carries (`~` is URL-safe, outside base64url, and makes no file extension of the end). */
export function unsubscribeToken(secret: string, userId: string, list: ReaderList): string {
  const user = Buffer.from(userId, 'utf8').toString('base64url');
  return `${user}~${list}~${mac(secret, `${userId}\n${list}`)}`;
}

/** The reader and list a token names, or null for anything we did not sign. */
export function readUnsubscribeToken(secret: string, token: string): { userId: string; list: ReaderList } | null {
  if (token.length > 400) return null;
  const parts = token.split('~');
  if (parts.length !== 3) return null;
  const [user, list, given] = parts as [string, string, string];
  if (!(READER_LISTS as readonly string[]).includes(list) || !/^[A-Za-z0-9_-]{1,300}$/.test(user) || !/^[A-Za-z0-9_-]{22}$/.test(given)) return null;
  const userId = Buffer.from(user, 'base64url').toString('utf8');
  if (Buffer.from(userId, 'utf8').toString('base64url') !== user) return null; // one spelling only
  const expected = Buffer.from(mac(secret, `${userId}\n${list}`), 'base64url');
  const actual = Buffer.from(given, 'base64url');
  return actual.length === expected.length && timingSafeEqual(actual, expected) ? { userId, list: list as ReaderList } : null;
}

/** The Message-ID of one reader mail (its delivery key, hashed): stable across retries of its send. */
export function readerMessageId(secret: string, deliveryKey: string, domain: string): string {
  const id = createHmac('sha256', keyFor(secret, 'message-id')).update(deliveryKey).digest().subarray(0, 18).toString('base64url');
  return `<n.${id}@${domain}>`;
}
