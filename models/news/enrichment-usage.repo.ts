/**
 * What enrichment spends, per UTC day (`news_enrichment_days`), and the daily token budget.
 *
 * Before a model call its tokens are reserved (input counted, output at its maximum) with one
 * conditional update: the day's `tokens` grows only while it stays within the budget, so workers
 * racing for the last tokens cannot overspend together. After the call the reservation is
 * corrected to what the provider reported. A day with no room left answers `false`, and the
 * article waits for the next day (its workflow sleeps; nothing is lost).
 */
import type { Connection } from 'mongoose';
import { collectionOf, isDuplicateKey } from '../infra/mongo';

export interface EnrichmentDayDoc {
  /** The UTC day, YYYY-MM-DD. */
  _id: string;
  /** Tokens spent and reserved (the budget is checked against this). */
  tokens: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  articles: number;
  /** Articles per prompt version (`enrich-2026-11-25.1` → 12); dots are replaced by '_' in keys. */
  promptVersions: Record<string, number>;
  updatedAt: Date;
}

export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);
/** The next UTC midnight after `at`: when a spent budget is renewed. */
export const nextUtcMidnight = (at: Date): Date => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));

export function createEnrichmentUsageRepo(conn: Connection) {
  const days = () => collectionOf<EnrichmentDayDoc>(conn, 'news_enrichment_days');
  return {
    /** Reserves `tokens` on `day` if the budget allows; false when it does not. */
    async reserve(day: string, tokens: number, budget: number, now: Date): Promise<boolean> {
      if (tokens > budget) return false;
      try {
        const res = await days().updateOne(
          { _id: day, tokens: { $lte: budget - tokens } },
          { $inc: { tokens }, $set: { updatedAt: now }, $setOnInsert: { promptTokens: 0, completionTokens: 0, costUsd: 0, articles: 0, promptVersions: {} } },
          { upsert: true },
        );
        return res.modifiedCount + res.upsertedCount === 1;
      } catch (err) {
        // The day exists and has no room: the upsert's insert met its _id.
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },
    /** Replaces a reservation by what was spent (`spent` 0 gives a reservation back). */
    async settle(day: string, reserved: number, spent: { promptTokens: number; completionTokens: number; costUsd: number; promptVersion: string } | null, now: Date): Promise<void> {
      const inc: Record<string, number> = { tokens: (spent ? spent.promptTokens + spent.completionTokens : 0) - reserved };
      if (spent) {
        Object.assign(inc, { promptTokens: spent.promptTokens, completionTokens: spent.completionTokens, costUsd: spent.costUsd, articles: 1, [`promptVersions.${spent.promptVersion.replaceAll('.', '_')}`]: 1 });
      }
      await days().updateOne({ _id: day }, { $inc: inc, $set: { updatedAt: now } });
    },
    /** Days from `from` to `to` (inclusive), oldest first. */
    between: (from: string, to: string) => days().find({ _id: { $gte: from, $lte: to } }, { sort: { _id: 1 }, limit: 400, singleBatch: true }).toArray(),
  };
}
export type EnrichmentUsageRepo = ReturnType<typeof createEnrichmentUsageRepo>;
