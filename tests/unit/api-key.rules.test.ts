import { generateApiKey, hashApiKey, keyModeOf, keyStatus, looksLikeApiKey, normaliseScopes, resolveExpiry } from '../../models/news/api-key.rules';
import { minimumPlanFor, PLAN_LIMITS } from '../../models/shared/plan.rules';

describe('api key rules', () => {
  it('generates live and test keys with their prefixes, unique each time', () => {
    const a = generateApiKey('live');
    const b = generateApiKey('test');
    expect(a.key).toMatch(/^nws_live_[A-Za-z0-9_-]{32}$/);
    expect(b.key).toMatch(/^nws_test_/);
    expect(generateApiKey('live').key).not.toBe(a.key);
    expect(a.hash).toBe(hashApiKey(a.key));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.key.startsWith(a.displayPrefix)).toBe(true);
    expect(looksLikeApiKey(a.key)).toBe(true);
    expect(keyModeOf(b.key)).toBe('test');
    expect(looksLikeApiKey('svc_live_abc')).toBe(false);
  });

  it('resolves expiry choices', () => {
    const now = new Date('2026-01-31T10:00:00Z');
    expect(resolveExpiry('none', now)).toBeNull();
    expect(resolveExpiry('30d', now)).toEqual(new Date('2026-03-02T10:00:00Z'));
    expect(resolveExpiry('90d', now)).toEqual(new Date('2026-05-01T10:00:00Z'));
    expect(resolveExpiry('1y', now)).toEqual(new Date('2027-01-31T10:00:00Z'));
    expect(resolveExpiry('2026-02-15', now)).toEqual(new Date('2026-02-15T23:59:59.999Z'));
    expect(() => resolveExpiry('2026-02-30', now)).toThrow(/not a valid date/);
    expect(() => resolveExpiry('2025-12-31', now)).toThrow(/future/);
    expect(() => resolveExpiry('forever', now)).toThrow(/none, 30d/);
  });

  it('gives keys without scopes the * scope and rejects unknown scopes', () => {
    expect(normaliseScopes([])).toEqual(['*']);
    expect(normaliseScopes(['read:articles', 'read:articles'])).toEqual(['read:articles']);
    expect(() => normaliseScopes(['write:articles'])).toThrow(/unknown scope/);
  });

  it('tells active, expired and revoked keys apart', () => {
    const now = new Date('2026-06-01T00:00:00Z');
    expect(keyStatus({ expiresAt: null, revokedAt: null }, now)).toBe('active');
    expect(keyStatus({ expiresAt: new Date('2026-05-31T23:59:59Z') }, now)).toBe('expired');
    expect(keyStatus({ expiresAt: null, revokedAt: new Date('2026-01-01') }, now)).toBe('revoked');
  });

  it('knows the plan limits and the minimum plan of each module (spec §8)', () => {
    expect(PLAN_LIMITS.starter).toMatchObject({ perMinute: 100, perMonth: 500_000 });
    expect(PLAN_LIMITS.pro).toMatchObject({ perMinute: 500, perMonth: 3_000_000 });
    expect(PLAN_LIMITS.business).toMatchObject({ perMinute: 2_000, perMonth: null });
    expect(minimumPlanFor('translations')).toBe('starter');
    expect(minimumPlanFor('sentiment')).toBe('pro');
  });
});
