/**
 * A key's use against its plan (spec §3.1; the API's GET /api/usage and the dashboard): the
 * key's requests this minute and the account's this month, each with its limit, what remains and
 * when it resets. Test keys are limited per minute but never counted against the monthly quota.
 */
import type { KeyMode } from '../api-key.rules';
import { PLAN_LIMITS, planName, type Plan } from '../plan.rules';
import { nextMonthStart, type UsageRepo } from '../usage.repo';

export interface UsageDeps {
  usage: Pick<UsageRepo, 'count'>;
  /** The per-minute limiters of the plans (their `used` reads a key's count without counting). */
  keyLimiters: Record<Plan, { used(key: string): Promise<{ count: number; resetAt: Date }> }>;
  config: { news: { perMinute: Record<Plan, number> } };
  now: () => Date;
}

export async function keyUsage(deps: UsageDeps, key: { userId: string; keyId: string; plan: Plan; mode: KeyMode }) {
  const limits = PLAN_LIMITS[key.plan];
  const perMinute = deps.config.news.perMinute[key.plan];
  const now = deps.now();
  const [minute, month] = await Promise.all([deps.keyLimiters[key.plan].used(`key:${key.keyId}`), deps.usage.count(key.userId, now)]);
  return {
    plan: planName(key.plan),
    key: { id: key.keyId, mode: key.mode, countedMonthly: key.mode === 'live' },
    minute: { limit: perMinute, used: minute.count, remaining: Math.max(0, perMinute - minute.count), resetsAt: minute.resetAt.toISOString() },
    month: {
      limit: limits.perMonth,
      used: month,
      remaining: limits.perMonth === null ? null : Math.max(0, limits.perMonth - month),
      resetsAt: nextMonthStart(now).toISOString(),
    },
  };
}

export interface AccountUsageDeps extends Omit<UsageDeps, 'usage'> {
  usage: Pick<UsageRepo, 'month'>;
  apiKeys: { listForUser(userId: string): Promise<{ keyId: string; name: string; displayPrefix: string; mode: KeyMode; revokedAt?: Date | null; expiresAt?: Date | null }[]> };
}

/**
 * The account's month for the dashboard: requests per day and key against the plan's monthly
 * quota, and each active key's headroom in the current minute.
 */
export async function accountUsage(deps: AccountUsageDeps, account: { userId: string; plan: Plan }) {
  const now = deps.now();
  const limits = PLAN_LIMITS[account.plan];
  const perMinute = deps.config.news.perMinute[account.plan];
  const [month, keys] = await Promise.all([deps.usage.month(account.userId, now), deps.apiKeys.listForUser(account.userId)]);
  const active = keys.filter((k) => !k.revokedAt && !(k.expiresAt && k.expiresAt <= now));
  const minutes = await Promise.all(active.map((k) => deps.keyLimiters[account.plan].used(`key:${k.keyId}`)));
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
    days,
    keys: active.map((k, i) => ({
      id: k.keyId,
      name: k.name,
      prefix: k.displayPrefix,
      mode: k.mode,
      minute: { used: minutes[i]!.count, remaining: Math.max(0, perMinute - minutes[i]!.count), resetsAt: minutes[i]!.resetAt.toISOString() },
    })),
  };
}
