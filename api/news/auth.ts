/**
 * X-API-Key authentication of the News API (spec §3.1, §5, §8): the key is found by its hash, must
 * be active and hold the route's scope; then the minute limit of the account's plan (all its keys
 * together) and the account's monthly quota (live keys) or sandbox day (test keys) are counted.
 * Every answer carries X-RateLimit-* and, but on an unlimited plan's live keys, X-Quota-*.
 */
import type { Context } from 'koa';
import { hashApiKey, keyStatus, looksLikeApiKey, type KeyMode, type KeyScope } from '../../models/news/api-key.rules';
import { PLAN_LIMITS, planName, type Plan } from '../../models/shared/plan.rules';
import { nextDayStart, nextMonthStart } from '../../models/news/usage.repo';
import { AppError } from '../../models/errors';
import type { AuthPolicy } from '../shared/auth';
import type { NewsDeps } from './deps';

export interface KeyPrincipal {
  /** The account (user) the key belongs to; `sub` for the access log. */
  sub: string;
  keyId: string;
  keyHash: string;
  mode: KeyMode;
  scopes: KeyScope[];
  plan: Plan;
}

/** Where keys come from, in every 401 (spec §7: the message points to where a key is obtained). */
export const KEYS_HINT = 'Create an API key in the dashboard (POST /api/keys with your account token) and send it in the X-API-Key header.';


// lastUsedAt is written at most once a minute per key and process.
const TOUCH_EVERY_MS = 60_000;
const touched = new Map<string, number>();

/**
 * Counts the request for the account's month: a live key's against the plan's monthly quota, a
 * test key's against the sandbox's daily cap (decisions.md, "The sandbox"). The answer tells the
 * client where it stands in X-Quota-Limit, X-Quota-Remaining and X-Quota-Reset; past it, 429.
 */
async function countMonth(ctx: Context, deps: NewsDeps, p: KeyPrincipal): Promise<void> {
  const now = new Date();
  const live = p.mode === 'live';
  // Every request is counted per day and key for the dashboard, in the same write.
  const counted = await deps.usage.increment(p.sub, now, p.keyId, live);
  const quota = live ? PLAN_LIMITS[p.plan].perMonth : deps.config.news.sandboxPerDay;
  if (quota === null) return;
  const used = live ? counted.month : counted.sandboxDay;
  const reset = live ? nextMonthStart(now) : nextDayStart(now);
  ctx.set('X-Quota-Limit', String(quota));
  ctx.set('X-Quota-Remaining', String(Math.max(0, quota - used)));
  ctx.set('X-Quota-Reset', String(Math.floor(reset.getTime() / 1000)));
  if (used > quota) {
    const resetsOn = reset.toISOString().slice(0, 10);
    throw new AppError(
      'RATE_LIMITED',
      live
        ? `Monthly quota of ${quota.toLocaleString('en')} requests of the ${planName(p.plan)} plan is used up; it resets on ${resetsOn}`
        : `The sandbox's ${quota.toLocaleString('en')} requests a day (all test keys of the account together) are used up; they reset on ${resetsOn} at 00:00 UTC. Use a live key for production traffic`,
      { headers: { 'Retry-After': String(Math.max(1, Math.ceil((reset.getTime() - now.getTime()) / 1000))) } },
    );
  }
}

/**
 * A valid, active API key holding `scope` (`*` holds every scope), within its plan's limits. A
 * list of scopes is any of them (the event stream: read:articles, or read:breaking for breaking
 * events only); the route reads which from the principal's scopes.
 */
export function apiKey(scope: Exclude<KeyScope, '*'> | readonly Exclude<KeyScope, '*'>[] | null): AuthPolicy<KeyPrincipal> {
  const anyOf: readonly KeyScope[] = scope === null ? [] : typeof scope === 'string' ? [scope] : scope;
  return {
    scheme: 'apiKeyAuth',
    describe: anyOf.length > 0 ? `API key with scope ${anyOf.join(' or ')}` : 'API key',
    rateLimited: true,
    async authenticate(ctx, _services, rawDeps) {
      const deps = rawDeps as NewsDeps;
      const key = ctx.get('x-api-key').trim();
      if (!key) throw new AppError('UNAUTHENTICATED', `Missing API key. ${KEYS_HINT}`);
      if (!looksLikeApiKey(key)) throw new AppError('UNAUTHENTICATED', `Invalid API key. ${KEYS_HINT}`);
      const hash = hashApiKey(key);
      const found = await deps.apiKeys.findByHashWithPlan(hash);
      if (!found) throw new AppError('UNAUTHENTICATED', `Invalid API key. ${KEYS_HINT}`);
      const record = found.key;
      const status = keyStatus(record);
      if (status !== 'active') throw new AppError('UNAUTHENTICATED', `This API key has ${status === 'expired' ? 'expired' : 'been revoked'}. ${KEYS_HINT}`);
      const principal: KeyPrincipal = { sub: record.userId, keyId: record.keyId, keyHash: hash, mode: record.mode, scopes: record.scopes, plan: found.plan ?? 'starter' };
      // Counted per account, whichever key: more keys are not more volume. Before the scope check:
      // a key hammering a route it may not use is still limited.
      await deps.accountLimiters[principal.plan].consume(ctx, `account:${record.userId}`);
      if (anyOf.length > 0 && !record.scopes.includes('*') && !anyOf.some((s) => record.scopes.includes(s))) {
        throw new AppError('FORBIDDEN', `This API key lacks the scope ${anyOf.join(' or ')} (it has ${record.scopes.join(', ')})`);
      }
      await countMonth(ctx, deps, principal);
      const now = Date.now();
      if (now - (touched.get(hash) ?? 0) > TOUCH_EVERY_MS) {
        if (touched.size > 10_000) touched.clear();
        touched.set(hash, now);
        deps.apiKeys.touch(hash, new Date(now)).catch(() => touched.delete(hash));
      }
      return principal;
    },
  };
}
