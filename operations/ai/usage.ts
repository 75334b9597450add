/**
 * AI spend, the use cases (issue 35; docs/decisions.md "AI spend"): what a user's runs spent per
 * UTC day, and the daily token budget each user has (AI_DAILY_TOKENS_PER_USER), the same shape as
 * enrichment's deployment budget (NEWS_ENRICH_DAILY_TOKENS): tokens are prompt + completion as the
 * provider reported them, the day is the UTC day, and a spent budget renews at the next UTC
 * midnight.
 *
 * The budget is checked before a run starts, against the usage already recorded (usage.repo.ts):
 * a run's cost is not known in advance (tool rounds, context), so a run that starts with tokens
 * left may end past the budget; the next one is refused.
 */
import type { Config } from '../../models/config';
import { AppError } from '../../models/errors';
import type { AiUsageRepo, UsageDay } from '../../models/ai/usage.repo';

export interface BudgetDeps {
  ai: { usage: Pick<AiUsageRepo, 'tokensOn'> };
  config: Pick<Config, 'ai'>;
}

/** A user's budget for one UTC day. */
export interface DailyBudget {
  /** YYYY-MM-DD, UTC. */
  day: string;
  dailyTokens: number;
  usedTokens: number;
  /** 0 once spent (a run that started with tokens left may have gone past the budget). */
  remainingTokens: number;
  /** The next UTC midnight, when the budget renews (ISO 8601). */
  resetsAt: string;
}

const utcDay = (at: Date): string => at.toISOString().slice(0, 10);
const nextUtcMidnight = (at: Date): Date => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));

export async function dailyBudget(deps: BudgetDeps, userId: string, now: Date = new Date()): Promise<DailyBudget> {
  const day = utcDay(now);
  const dailyTokens = deps.config.ai.dailyTokensPerUser;
  const usedTokens = await deps.ai.usage.tokensOn(userId, day);
  return { day, dailyTokens, usedTokens, remainingTokens: Math.max(0, dailyTokens - usedTokens), resetsAt: nextUtcMidnight(now).toISOString() };
}

/** Refuses (429, Retry-After until the next UTC midnight) a run for a user whose budget for today is spent. */
export async function requireBudget(deps: BudgetDeps, userId: string, now: Date = new Date()): Promise<void> {
  const budget = await dailyBudget(deps, userId, now);
  if (budget.remainingTokens > 0) return;
  const retryAfter = Math.max(1, Math.ceil((Date.parse(budget.resetsAt) - now.getTime()) / 1000));
  throw new AppError('RATE_LIMITED', `Daily AI token budget spent: ${budget.usedTokens} of ${budget.dailyTokens} tokens used today (UTC); it resets at ${budget.resetsAt}`, {
    headers: { 'Retry-After': String(retryAfter) },
    details: { dailyTokens: budget.dailyTokens, usedTokens: budget.usedTokens, resetsAt: budget.resetsAt },
  });
}

export interface UsageReport {
  from: string;
  to: string;
  days: UsageDay[];
  totals: Omit<UsageDay, 'day'>;
  budget: DailyBudget;
}

/** A user's usage per UTC day between `from` and `to` (default: the last 30 days), with totals and today's budget. */
export async function usageReport(
  deps: { ai: { usage: Pick<AiUsageRepo, 'byDay' | 'tokensOn'> }; config: Pick<Config, 'ai'> },
  userId: string,
  range: { from?: string | undefined; to?: string | undefined },
  now: Date = new Date(),
): Promise<UsageReport> {
  const to = range.to ?? utcDay(now);
  const from = range.from ?? utcDay(new Date(Date.parse(`${to}T00:00:00Z`) - 29 * 86_400_000));
  if (Date.parse(to) - Date.parse(from) > 366 * 86_400_000) throw new AppError('VALIDATION_FAILED', 'Invalid request: query: the range may span at most 366 days');
  const [days, budget] = await Promise.all([deps.ai.usage.byDay(userId, from, to), dailyBudget(deps, userId, now)]);
  const totals = days.reduce(
    (t, d) => ({
      requests: t.requests + d.requests,
      promptTokens: t.promptTokens + d.promptTokens,
      completionTokens: t.completionTokens + d.completionTokens,
      totalTokens: t.totalTokens + d.totalTokens,
    }),
    { requests: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  );
  return { from, to, days, totals, budget };
}
