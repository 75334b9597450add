/**
 * API keys (spec §3.1, §5). A key is shown once; only its SHA-256 hash is stored (keys are 192-bit
 * random, so a fast hash is safe and lets every request find its key by an indexed lookup).
 */
import { createHash, randomBytes } from 'node:crypto';
import { KEY_MODES, KEY_SCOPES, type KeyMode, type KeyScope } from './key-scopes.rules';

export { KEY_MODES, KEY_SCOPES, type KeyMode, type KeyScope };

/** Our product prefix in place of the spec's neutral `svc`. */
export const KEY_PRODUCT_PREFIX = 'nws';

const KEY_PATTERN = /^nws_(live|test)_[A-Za-z0-9_-]{32}$/;

export interface GeneratedKey {
  key: string;
  hash: string;
  /** What lists show: the mode prefix and the first characters, never enough to use. */
  displayPrefix: string;
  mode: KeyMode;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateApiKey(mode: KeyMode): GeneratedKey {
  const key = `${KEY_PRODUCT_PREFIX}_${mode}_${randomBytes(24).toString('base64url')}`;
  return { key, hash: hashApiKey(key), displayPrefix: key.slice(0, `${KEY_PRODUCT_PREFIX}_${mode}_`.length + 6), mode };
}

export function looksLikeApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

export function keyModeOf(key: string): KeyMode | undefined {
  return KEY_PATTERN.exec(key)?.[1] as KeyMode | undefined;
}

/**
 * Expiry as the dashboard offers it: none, 30 days, 90 days, 1 year, or a date (YYYY-MM-DD, the
 * key expires at the end of that day, UTC). Returns null for no expiry; throws on a past date.
 */
export function resolveExpiry(choice: string, now: Date = new Date()): Date | null {
  const day = 24 * 60 * 60 * 1000;
  switch (choice) {
    case 'none':
      return null;
    case '30d':
      return new Date(now.getTime() + 30 * day);
    case '90d':
      return new Date(now.getTime() + 90 * day);
    case '1y': {
      const d = new Date(now);
      d.setUTCFullYear(d.getUTCFullYear() + 1);
      return d;
    }
    default: {
      const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(choice);
      if (!m) throw new RangeError('expiry must be none, 30d, 90d, 1y or a date YYYY-MM-DD');
      const end = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 23, 59, 59, 999));
      if (Number.isNaN(end.getTime()) || end.toISOString().slice(0, 10) !== choice) throw new RangeError(`not a valid date: ${choice}`);
      if (end <= now) throw new RangeError('expiry date must be in the future');
      return end;
    }
  }
}

/** A key with no explicit scopes has `*`, within its plan tier (spec §5.4). */
export function normaliseScopes(scopes: readonly string[] | undefined): KeyScope[] {
  if (!scopes || scopes.length === 0) return ['*'];
  const unknown = scopes.filter((s) => !(KEY_SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new RangeError(`unknown scope(s): ${unknown.join(', ')} (allowed: ${KEY_SCOPES.join(', ')})`);
  return [...new Set(scopes)] as KeyScope[];
}

export type KeyStatus = 'active' | 'expired' | 'revoked';

export function keyStatus(k: { revokedAt?: Date | null; expiresAt?: Date | null }, now: Date = new Date()): KeyStatus {
  if (k.revokedAt) return 'revoked';
  if (k.expiresAt && k.expiresAt <= now) return 'expired';
  return 'active';
}
