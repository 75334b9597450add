/**
 * An account's use against its plan (spec §3.1; the API's GET /api/usage and the dashboard): its
 * requests this minute (all keys together), this month (live keys) and today in the sandbox (test
 * keys), each with its limit, what remains and when it resets. Test keys are never counted against
 * the monthly quota; they share the minute's limit and have the sandbox's daily cap.
 */
import type { KeyMode } from '../../models/news/api-key.rules';
import { PLAN_LIMITS, planName, type Plan } from '../../models/shared/plan.rules';
import { nextDayStart, nextMonthStart, type UsageRepo } from '../../models/news/usage.repo';

export interface UsageDeps {
  usage: Pick<UsageRepo, 'count'>;
  /** The per-minute limiters of the plans (their `used` reads an account's count without counting). */
  accountLimiters: Record<Plan, { used(key: string): Promise<{ count: number; resetAt: Date }> }>;
  config: { news: { perMinute: Record<Plan, number>; sandboxPerDay: number } };
  now: () => Date;
}

export async function keyUsage(deps: UsageDeps, key: { userId: string; keyId: string; plan: Plan; mode: KeyMode }) {
  const limits = PLAN_LIMITS[key.plan];
  const perMinute = deps.config.news.perMinute[key.plan];
  const now = deps.now();
  const [minute, counts] = await Promise.all([deps.accountLimiters[key.plan].used(`account:${key.userId}`), deps.usage.count(key.userId, now)]);
  return {
    plan: planName(key.plan),
    key: { id: key.keyId, mode: key.mode, countedMonthly: key.mode === 'live' },
    minute: { limit: perMinute, used: minute.count, remaining: Math.max(0, perMinute - minute.count), resetsAt: minute.resetAt.toISOString() },
    month: {
      limit: limits.perMonth,
      used: counts.month,
      remaining: limits.perMonth === null ? null : Math.max(0, limits.perMonth - counts.month),
      resetsAt: nextMonthStart(now).toISOString(),
    },
    sandbox: sandboxDay(deps, counts.sandboxDay, now),
  };
}

function sandboxDay(deps: Pick<UsageDeps, 'config'>, used: number, now: Date) {
  const limit = deps.config.news.sandboxPerDay;
  return { limit, used, remaining: Math.max(0, limit - used), resetsAt: nextDayStart(now).toISOString() };
}

export interface AccountUsageDeps extends Omit<UsageDeps, 'usage'> {
  usage: Pick<UsageRepo, 'month'>;
  apiKeys: { listForUser(userId: string): Promise<{ keyId: string; name: string; displayPrefix: string; mode: KeyMode; revokedAt?: Date | null; expiresAt?: Date | null }[]> };
}

/**
 * The account's month for the dashboard: requests per day and key against the plan's monthly
 * quota, its headroom in the current minute (all keys together), its sandbox day, and its active
 * keys against the plan's number.
 */
export async function accountUsage(deps: AccountUsageDeps, account: { userId: string; plan: Plan }) {
  const now = deps.now();
  const limits = PLAN_LIMITS[account.plan];
  const perMinute = deps.config.news.perMinute[account.plan];
  const [month, keys] = await Promise.all([deps.usage.month(account.userId, now), deps.apiKeys.listForUser(account.userId)]);
  const active = keys.filter((k) => !k.revokedAt && !(k.expiresAt && k.expiresAt <= now));
  const minute = await deps.accountLimiters[account.plan].used(`account:${account.userId}`);
  const daysInMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
  const days = Array.from({ length: Math.min(daysInMonth, now.getUTCDate()) }, (_, i) => {
    const dd = String(i + 1).padStart(2, '0');
    const perKey = month.days[dd] ?? {};
    return { date: `${month.month}-${dd}`, total: Object.values(perKey).reduce((a, b) => a + b, 0), perKey };
  });
  return {
    plan: planName(account.plan),
    month: {
      month: month.month,
      limit: limits.perMonth,
      used: month.count,
      remaining: limits.perMonth === null ? null : Math.max(0, limits.perMonth - month.count),
      resetsAt: nextMonthStart(now).toISOString(),
    },
    perMinuteLimit: perMinute,
    minute: { limit: perMinute, used: minute.count, remaining: Math.max(0, perMinute - minute.count), resetsAt: minute.resetAt.toISOString() },
    sandbox: sandboxDay(deps, month.sandboxToday, now),
    activeKeysLimit: limits.activeKeys,
    days,
    keys: active.map((k) => ({ id: k.keyId, name: k.name, prefix: k.displayPrefix, mode: k.mode })),
  };
}
