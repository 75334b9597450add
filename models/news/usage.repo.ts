/**
 * Monthly request counts of the News API per account (user), for quotas and GET /api/usage. One
 * document per user and calendar month (UTC), `_id` `<userId>:<YYYY-MM>`, advanced by an atomic
 * `$inc` upsert.
 */
import type { Connection } from 'mongoose';
import { collectionOf } from '../infra/mongo';

interface UsageDoc {
  _id: string;
  userId: string;
  month: string;
  count: number;
}

export const monthOf = (at: Date): string => at.toISOString().slice(0, 7);

/** The first instant of the next calendar month (UTC): when a monthly quota resets. */
export function nextMonthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

export function createUsageRepo(conn: Connection) {
  const usage = () => collectionOf<UsageDoc>(conn, 'news_usage');
  return {
    /** Counts one request of the user in the month of `at`; returns the month's count so far. */
    async increment(userId: string, at: Date): Promise<number> {
      const month = monthOf(at);
      const doc = await usage().findOneAndUpdate(
        { _id: `${userId}:${month}` },
        { $inc: { count: 1 }, $setOnInsert: { userId, month } },
        { upsert: true, returnDocument: 'after' },
      );
      return doc?.count ?? 1;
    },
    async count(userId: string, at: Date): Promise<number> {
      return (await usage().findOne({ _id: `${userId}:${monthOf(at)}` }))?.count ?? 0;
    },
  };
}

export type UsageRepo = ReturnType<typeof createUsageRepo>;
