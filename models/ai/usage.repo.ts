import type { Connection } from 'mongoose';
import type { Usage } from '../infra/llm';
import { aiUsageModel } from './usage.model';

export interface UsageDay {
  day: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** Requests and tokens, summed. */
export type UsageCounts = Omit<UsageDay, 'day'>;

/** One user's use of one model over a period. */
export interface UsageRow extends UsageCounts {
  userId: string;
  model: string;
}

/** The rows of a period (one user's, or everyone's), a page of them, with their number and their sums. */
export interface UsageByUserAndModel {
  rows: UsageRow[];
  /** How many rows (user and model pairs) the period has, every page together. */
  total: number;
  totals: UsageCounts;
}

export interface UsageByUserAndModelQuery {
  /** UTC days, inclusive. */
  from: string;
  to: string;
  user?: string | undefined;
  page: number;
  limit: number;
}

const ZERO: UsageCounts = { requests: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 };
const sums = { requests: { $sum: 1 }, promptTokens: { $sum: '$promptTokens' }, completionTokens: { $sum: '$completionTokens' }, totalTokens: { $sum: '$totalTokens' } };

export function createAiUsageRepo(conn: Connection) {
  const Usage = aiUsageModel(conn);
  // The schema's { userId, day } serves a user's days (and the budget); everyone's use over a
  // period (the administrators' report) is read by day first.
  let indexed: Promise<unknown> | undefined;
  const ensureIndexes = () => (indexed ??= Usage.collection.createIndexes([{ key: { day: 1, userId: 1, model: 1 }, name: 'day_user_model' }]));
  return {
    ensureIndexes,
    /** Records one chat request (all its model calls); a second record with the same key is ignored. */
    async record(key: string, entry: { userId: string; model: string; agent?: string | undefined; usage: Usage; modelCalls?: number; at?: Date }): Promise<void> {
      const at = entry.at ?? new Date();
      await Usage.updateOne(
        { _id: key },
        {
          $setOnInsert: {
            userId: entry.userId,
            day: at.toISOString().slice(0, 10),
            model: entry.model,
            ...(entry.agent ? { agent: entry.agent } : {}),
            promptTokens: entry.usage.promptTokens,
            completionTokens: entry.usage.completionTokens,
            totalTokens: entry.usage.totalTokens,
            modelCalls: entry.modelCalls ?? 1,
            createdAt: at,
          },
        },
        { upsert: true },
      );
    },

    /** Per-day totals for a user between two UTC days (inclusive), oldest first. */
    byDay: (userId: string, from: string, to: string) =>
      Usage.aggregate<UsageDay>([
        { $match: { userId, day: { $gte: from, $lte: to } } },
        {
          $group: {
            _id: '$day',
            requests: { $sum: 1 },
            promptTokens: { $sum: '$promptTokens' },
            completionTokens: { $sum: '$completionTokens' },
            totalTokens: { $sum: '$totalTokens' },
          },
        },
        { $sort: { _id: 1 } },
        { $project: { _id: 0, day: '$_id', requests: 1, promptTokens: 1, completionTokens: 1, totalTokens: 1 } },
      ]).exec(),

    /**
     * Use per user and model between two UTC days (inclusive), of one user or of everyone: the
     * largest total of tokens first (then by user and model, so that pages do not overlap), a page
     * of rows, with how many rows there are and their sums. Read by `{ userId, day }` for one user,
     * by `{ day, userId, model }` for everyone.
     */
    async byUserAndModel(q: UsageByUserAndModelQuery): Promise<UsageByUserAndModel> {
      await ensureIndexes();
      const [result] = await Usage.aggregate<{ rows: UsageRow[]; summary: (UsageCounts & { rows: number })[] }>([
        { $match: q.user !== undefined ? { userId: q.user, day: { $gte: q.from, $lte: q.to } } : { day: { $gte: q.from, $lte: q.to } } },
        { $group: { _id: { userId: '$userId', model: '$model' }, ...sums } },
        {
          $facet: {
            rows: [
              { $sort: { totalTokens: -1, '_id.userId': 1, '_id.model': 1 } },
              { $skip: (q.page - 1) * q.limit },
              { $limit: q.limit },
              { $project: { _id: 0, userId: '$_id.userId', model: '$_id.model', requests: 1, promptTokens: 1, completionTokens: 1, totalTokens: 1 } },
            ],
            summary: [
              {
                $group: {
                  _id: null,
                  rows: { $sum: 1 },
                  requests: { $sum: '$requests' },
                  promptTokens: { $sum: '$promptTokens' },
                  completionTokens: { $sum: '$completionTokens' },
                  totalTokens: { $sum: '$totalTokens' },
                },
              },
            ],
          },
        },
      ]).exec();
      const summary = result?.summary[0];
      return {
        rows: result?.rows ?? [],
        total: summary?.rows ?? 0,
        totals: summary ? { requests: summary.requests, promptTokens: summary.promptTokens, completionTokens: summary.completionTokens, totalTokens: summary.totalTokens } : { ...ZERO },
      };
    },

    /** Tokens (prompt + completion) a user's runs spent on a UTC day: what the daily budget is checked against. */
    async tokensOn(userId: string, day: string): Promise<number> {
      const [sum] = await Usage.aggregate<{ tokens: number }>([{ $match: { userId, day } }, { $group: { _id: null, tokens: { $sum: '$totalTokens' } } }]).exec();
      return sum?.tokens ?? 0;
    },
  };
}

export type AiUsageRepo = ReturnType<typeof createAiUsageRepo>;
