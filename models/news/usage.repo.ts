/**
 * Monthly request counts of the News API per account (user), for quotas and GET /api/usage. One
 * document per user and calendar month (UTC), `_id` `<userId>:<YYYY-MM>`, advanced by an atomic
 * `$inc` upsert. The same write counts the request in `days.<DD>.<keyId>`, so the dashboard can
 * chart requests per day and key (test keys too, which `count` leaves out) with no second write,
 * and counts a test key's request in `sandbox.<DD>`, the account's sandbox day (its daily cap).
 */
import type { Connection } from 'mongoose';
import { collectionOf } from '../infra/mongo';

interface UsageDoc {
  _id: string;
  userId: string;
  month: string;
  count: number;
  /** Requests per day of the month ("01"…"31") and key id. */
  days?: Record<string, Record<string, number>>;
  /** Test keys' requests per day of the month. */
  sandbox?: Record<string, number>;
}

export interface MonthUsage {
  month: string;
  /** Live keys' requests: what the quota counts. */
  count: number;
  days: Record<string, Record<string, number>>;
  /** Test keys' requests on the day asked about. */
  sandboxToday: number;
}

export const monthOf = (at: Date): string => at.toISOString().slice(0, 7);

/** The first instant of the next day (UTC): when the sandbox's daily cap resets. */
export function nextDayStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}

/** The first instant of the next calendar month (UTC): when a monthly quota resets. */
export function nextMonthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

export function createUsageRepo(conn: Connection) {
  const usage = () => collectionOf<UsageDoc>(conn, 'news_usage');
  return {
    /**
     * Counts one request of the user's key in the month of `at`: a live key's against the quota
     * (`quota`), a test key's in the sandbox's day. Returns the month's quota count and the day's
     * sandbox count so far.
     */
    async increment(userId: string, at: Date, keyId: string, quota = true): Promise<{ month: number; sandboxDay: number }> {
      const month = monthOf(at);
      const day = at.toISOString().slice(8, 10);
      const doc = await usage().findOneAndUpdate(
        { _id: `${userId}:${month}` },
        { $inc: { count: quota ? 1 : 0, [`sandbox.${day}`]: quota ? 0 : 1, [`days.${day}.${keyId}`]: 1 }, $setOnInsert: { userId, month } },
        { upsert: true, returnDocument: 'after' },
      );
      return { month: doc?.count ?? (quota ? 1 : 0), sandboxDay: doc?.sandbox?.[day] ?? (quota ? 0 : 1) };
    },
    /** The user's month: the quota count and the requests per day and key. */
    async month(userId: string, at: Date): Promise<MonthUsage> {
      const doc = await usage().findOne({ _id: `${userId}:${monthOf(at)}` });
      return { month: monthOf(at), count: doc?.count ?? 0, days: doc?.days ?? {}, sandboxToday: doc?.sandbox?.[at.toISOString().slice(8, 10)] ?? 0 };
    },
    /** The month's quota count and the day's sandbox count of `at`. */
    async count(userId: string, at: Date): Promise<{ month: number; sandboxDay: number }> {
      const doc = await usage().findOne({ _id: `${userId}:${monthOf(at)}` });
      return { month: doc?.count ?? 0, sandboxDay: doc?.sandbox?.[at.toISOString().slice(8, 10)] ?? 0 };
    },
  };
}

export type UsageRepo = ReturnType<typeof createUsageRepo>;
