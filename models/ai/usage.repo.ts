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

export function createAiUsageRepo(conn: Connection) {
  const Usage = aiUsageModel(conn);
  return {
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

    /** Tokens (prompt + completion) a user's runs spent on a UTC day: what the daily budget is checked against. */
    async tokensOn(userId: string, day: string): Promise<number> {
      const [sum] = await Usage.aggregate<{ tokens: number }>([{ $match: { userId, day } }, { $group: { _id: null, tokens: { $sum: '$totalTokens' } } }]).exec();
      return sum?.tokens ?? 0;
    },
  };
}

export type AiUsageRepo = ReturnType<typeof createAiUsageRepo>;
