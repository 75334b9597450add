/**
 * WhatsApp log-in codes and sign-up accounts: the code a conversation sends, how it is stored
 * (hashed with its account) and checked, and the account id a sign-up makes. The conversation's
 * activities send codes; the API's confirmation route checks them.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { WHATSAPP_SIGN_UP_PREFIX } from '../users/email.rules';

/** How long a log-in code can be confirmed. */
export const LOGIN_CODE_TTL_MS = 10 * 60_000;

/** The 6-digit code of a code message: the same on every retry of its activity, unguessable without the secret. */
export function loginCode(secret: string, key: string): string {
  const n = createHmac('sha256', secret).update(`whatsapp-login-code:${key}`).digest().readUInt32BE(0) % 1_000_000;
  return String(n).padStart(6, '0');
}

export const loginCodeHash = (userId: string, code: string) => createHash('sha256').update(`${userId}:${code}`).digest('hex');

export function codeMatches(userId: string, code: string, hash: string): boolean {
  const a = Buffer.from(loginCodeHash(userId, code), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The account a WhatsApp sign-up makes: one per phone and e-mail, whoever retries. Its address is
 * typed, not proven (models/users/email.rules.ts tells these users apart by the prefix).
 */
export const signUpUserId = (phone: string, email: string) => `${WHATSAPP_SIGN_UP_PREFIX}${createHash('sha256').update(`${phone}|${email}`).digest('hex').slice(0, 24)}`;
