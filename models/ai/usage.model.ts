/**
 * Token usage, one document per chat request with the tokens of all its model calls. The id is
 * the request's idempotency key (the workflow id, or `stream:<requestId>` for streamed chats) so a
 * retried activity never counts twice. GET /ai/usage sums them per user and day (UTC), and each
 * user's daily token budget (AI_DAILY_TOKENS_PER_USER) is checked against them (operations/usage.ts).
 */
import { type Connection, type Model, Schema } from 'mongoose';

export interface AiUsageDoc {
  _id: string;
  userId: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  model: string;
  agent?: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  modelCalls: number;
  createdAt: Date;
}

const AiUsageSchema = new Schema<AiUsageDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    day: { type: String, required: true },
    model: { type: String, required: true },
    agent: { type: String },
    promptTokens: { type: Number, required: true },
    completionTokens: { type: Number, required: true },
    totalTokens: { type: Number, required: true },
    modelCalls: { type: Number, required: true, default: 1 },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { collection: 'ai_usage', versionKey: false },
);
AiUsageSchema.index({ userId: 1, day: 1 });

export function aiUsageModel(conn: Connection): Model<AiUsageDoc> {
  return (conn.models.AiUsage as Model<AiUsageDoc> | undefined) ?? conn.model<AiUsageDoc>('AiUsage', AiUsageSchema);
}
