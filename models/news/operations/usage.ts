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
