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
    /** Records one model call; a second record with the same key is ignored. */
    async record(key: string, entry: { userId: string; model: string; agent?: string | undefined; usage: Usage; at?: Date }): Promise<void> {
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
            createdAt: at,
          },
        },
        { upsert: true },
      );
    },

    /** Per-day totals for a user between two UTC days (inclusive), oldest first. */
    async byDay(userId: string, from: string, to: string): Promise<UsageDay[]> {
      const rows = await Usage.aggregate<{ _id: string; requests: number; promptTokens: number; completionTokens: number; totalTokens: number }>([
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
      ]);
      return rows.map(({ _id, ...rest }) => ({ day: _id, ...rest }));
    },
  };
}

export type AiUsageRepo = ReturnType<typeof createAiUsageRepo>;
