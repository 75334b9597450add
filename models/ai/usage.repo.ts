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

    /**
     * Per-day totals for a user between two UTC days (inclusive), oldest first. One single-
     * accumulator $group per figure: FerretDB v1 computes only the first accumulator of a $group
     * correctly (the others come back 0), and this form is as cheap on MongoDB (same index).
     */
    async byDay(userId: string, from: string, to: string): Promise<UsageDay[]> {
      const match = { $match: { userId, day: { $gte: from, $lte: to } } };
      const sum = async (field: 'requests' | 'promptTokens' | 'completionTokens' | 'totalTokens') => {
        const rows = await Usage.aggregate<{ _id: string; v: number }>([
          match,
          { $group: { _id: '$day', v: { $sum: field === 'requests' ? 1 : `$${field}` } } },
        ]);
        return new Map(rows.map((r) => [r._id, r.v]));
      };
      const [requests, promptTokens, completionTokens, totalTokens] = await Promise.all([
        sum('requests'),
        sum('promptTokens'),
        sum('completionTokens'),
        sum('totalTokens'),
      ]);
      return [...requests.keys()].sort().map((day) => ({
        day,
        requests: requests.get(day) ?? 0,
        promptTokens: promptTokens.get(day) ?? 0,
        completionTokens: completionTokens.get(day) ?? 0,
        totalTokens: totalTokens.get(day) ?? 0,
      }));
    },
  };
}

export type AiUsageRepo = ReturnType<typeof createAiUsageRepo>;
