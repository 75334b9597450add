/**
 * AI spend, the use cases (issue 35; docs/decisions.md "AI spend"): what a user's runs spent per
 * UTC day, and the daily token budget each user has (AI_DAILY_TOKENS_PER_USER), the same shape as
 * enrichment's deployment budget (NEWS_ENRICH_DAILY_TOKENS): tokens are prompt + completion as the
 * provider reported them, the day is the UTC day, and a spent budget renews at the next UTC
 * midnight.
 *
 * Administrators (ai.edit) read everyone's use per user and model over a period
 * (`usageByUserAndModel`), from the same records.
 *
 * The budget is checked before a run starts, against the usage already recorded (usage.repo.ts):
 * a run's cost is not known in advance (tool rounds, context), so a run that starts with tokens
 * left may end past the budget; the next one is refused.
 */
import type { Config } from '../../models/config';
import { AppError } from '../../models/errors';
import type { AiUsageRepo, UsageCounts, UsageDay, UsageRow } from '../../models/ai/usage.repo';

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

/** The longest period a usage report spans, in days. */
export const USAGE_PERIOD_MAX_DAYS = 366;
/** The period a usage report covers when none is given: the last 30 days, today included. */
export const USAGE_PERIOD_DEFAULT_DAYS = 30;

/**
 * A report's period (UTC days, inclusive): `to` defaults to today, `from` to 29 days before `to`;
 * longer than {@link USAGE_PERIOD_MAX_DAYS} is refused (400). The query schema has checked the dates
 * and their order.
 */
export function periodOf(range: { from?: string | undefined; to?: string | undefined }, now: Date): { from: string; to: string } {
  const to = range.to ?? utcDay(now);
  const from = range.from ?? utcDay(new Date(Date.parse(`${to}T00:00:00Z`) - (USAGE_PERIOD_DEFAULT_DAYS - 1) * 86_400_000));
  if (Date.parse(to) - Date.parse(from) > USAGE_PERIOD_MAX_DAYS * 86_400_000) {
    throw new AppError('VALIDATION_FAILED', `Invalid request: query: the range may span at most ${USAGE_PERIOD_MAX_DAYS} days`);
  }
  return { from, to };
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
  const { from, to } = periodOf(range, now);
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

/** Everyone's use (or one user's) per user and model over a period, a page at a time. */
export interface UsageByUserAndModelReport {
  from: string;
  to: string;
  /** The user asked for; null for everyone. */
  user: string | null;
  /** Largest total of tokens first. */
  rows: UsageRow[];
  /** The sums of every row of the period, every page together. */
  totals: UsageCounts;
  pagination: { page: number; limit: number; total: number; totalPages: number };
}

/**
 * The administrators' report (ai.edit): requests and tokens per user and model between `from` and
 * `to` (UTC days, inclusive; default the last 30 days; at most 366), of one user or of everyone,
 * the largest total of tokens first, `limit` rows a page.
 */
export async function usageByUserAndModel(
  deps: { ai: { usage: Pick<AiUsageRepo, 'byUserAndModel'> } },
  query: { from?: string | undefined; to?: string | undefined; user?: string | undefined; page: number; limit: number },
  now: Date = new Date(),
): Promise<UsageByUserAndModelReport> {
  const { from, to } = periodOf(query, now);
  const { rows, total, totals } = await deps.ai.usage.byUserAndModel({ from, to, user: query.user, page: query.page, limit: query.limit });
  return { from, to, user: query.user ?? null, rows, totals, pagination: { page: query.page, limit: query.limit, total, totalPages: Math.ceil(total / query.limit) } };
}
