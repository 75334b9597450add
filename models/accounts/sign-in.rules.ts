/**
 * Rules of the dashboard's accounts (issue 26): e-mail sign-in codes, sessions and CSRF tokens.
 * Pure functions, no I/O. A code or a session token is stored only as a keyed hash; a code is
 * compared in constant time and never logged.
 */
import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** How long a sign-in code (and its link) can be used. */
export const SIGN_IN_CODE_TTL_MS = 10 * 60_000;
/** Wrong codes tried against one address before its code is thrown away (a new one must be asked for). */
export const SIGN_IN_MAX_ATTEMPTS = 5;
/** A session lives this long after it was last used (sliding), and never longer than SESSION_MAX_MS. */
export const SESSION_IDLE_MS = 7 * 24 * 3600_000;
export const SESSION_MAX_MS = 30 * 24 * 3600_000;
/** lastSeenAt (and so the idle expiry) is written at most this often per session. */
export const SESSION_TOUCH_MS = 3600_000;

/**
 * An e-mail address: at most 254 characters, its local part at most 64 (RFC 5321 §4.5.3.1), as
 * every mail server and the document's `email` format hold it.
 */
export const Email = z
  .email()
  .max(254)
  .refine((e) => e.lastIndexOf('@') <= 64, 'the part before @ is at most 64 characters');
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/** Six digits, leading zeros kept. */
export const SignInCode = z.string().length(6).regex(/^\d{6}$/, 'the code is 6 digits');

export const newSignInCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

/** The stored form of a code: keyed by the deployment's secret and bound to its address. */
export const codeHash = (secret: string, email: string, code: string): string =>
  createHmac('sha256', secret).update(`sign-in:${email}:${code}`).digest('hex');

/** Constant-time comparison of two hex hashes of equal length. */
export function hashesMatch(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** A session token (the cookie's value) and the hash it is stored under. */
export const newSessionToken = (): string => randomBytes(32).toString('base64url');
export const sessionTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');
/** A session token as the cookie carries it (43 base64url characters). */
export const looksLikeSessionToken = (value: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(value);

export const newCsrfToken = (): string => randomBytes(24).toString('base64url');

/** The user a new e-mail account gets: one per address, whoever retries (like WhatsApp sign-ups). */
export const emailUserId = (email: string): string => `usr_em_${createHash('sha256').update(email).digest('hex').slice(0, 24)}`;

/** When a session used at `now` expires: idle expiry, capped by its absolute lifetime. */
export function sessionExpiry(createdAt: Date, now: Date): Date {
  return new Date(Math.min(now.getTime() + SESSION_IDLE_MS, createdAt.getTime() + SESSION_MAX_MS));
}

/** The sign-in mail, in the reader's language. The code is in the text; the link carries it in the fragment, which browsers never send to a server. */
export function signInMail(input: { code: string; link: string; locale: 'pt' | 'en' }): { subject: string; text: string } {
  const minutes = SIGN_IN_CODE_TTL_MS / 60_000;
  if (input.locale === 'pt') {
    return {
      subject: `Seu código de acesso: ${input.code}`,
      text: `Seu código de acesso é ${input.code}.\n\nOu abra este link: ${input.link}\n\nEle vale por ${minutes} minutos e só pode ser usado uma vez. Se não foi você que pediu, ignore esta mensagem.\n`,
    };
  }
  return {
    subject: `Your sign-in code: ${input.code}`,
    text: `Your sign-in code is ${input.code}.\n\nOr open this link: ${input.link}\n\nIt works for ${minutes} minutes and only once. If you did not ask for it, ignore this message.\n`,
  };
}
