/**
 * The delivery log (`webhook_attempts`, issue 40, part 5): one document per attempt to deliver a
 * message to an endpoint, replays and test events included: the request's headers (not its
 * signature: webhook-message.rules loggedHeaders), the answer's status or why there was none, how
 * long it took, the first 4 KiB of the answer, and when. Kept 30 days (a TTL index on `at`).
 * Listed per endpoint, newest first, a page at a time after a cursor (the last attempt's id).
 */
import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { buildIndexesRacing, collectionOf, indexesOnce, READ_TIME_LIMIT_MS } from '../infra/mongo';
import type { AttemptResult } from './webhook.rules';
import { DELIVERY_LOG_TTL_SECONDS } from './webhook-message.rules';

export const WEBHOOK_ATTEMPTS = 'webhook_attempts';

/** `wa_` and 16 random bytes in base64url. */
export const WEBHOOK_ATTEMPT_ID = /^wa_[A-Za-z0-9_-]{22}$/;

export interface WebhookAttemptDoc {
  _id: string;
  msgId: string;
  endpointId: string;
  accountId: string;
  /** 1 for the first attempt of the message, counting replays after its schedule's. */
  attempt: number;
  /** Whether a replay asked for it. */
  replay: boolean;
  /** The URL it went to (the endpoint's at the time). */
  url: string;
  requestHeaders: Record<string, string>;
  status: AttemptResult;
  durationMs: number;
  responseBody: string;
  error: string | null;
  at: Date;
}

/** The newest first; ties by id. */
const NEWEST = { at: -1, _id: -1 } as const;

export function createWebhookAttemptRepo(conn: Connection) {
  const attempts = () => collectionOf<WebhookAttemptDoc>(conn, WEBHOOK_ATTEMPTS);
  const ensureIndexes = () =>
    indexesOnce(conn, WEBHOOK_ATTEMPTS, () =>
      buildIndexesRacing(() =>
        attempts().createIndexes([
          { key: { endpointId: 1, ...NEWEST }, name: 'endpoint_newest' },
          { key: { at: 1 }, name: 'expires', expireAfterSeconds: DELIVERY_LOG_TTL_SECONDS },
        ]),
      ),
    );

  return {
    ensureIndexes,

    async record(doc: Omit<WebhookAttemptDoc, '_id'>): Promise<WebhookAttemptDoc> {
      await ensureIndexes();
      const stored = { _id: `wa_${randomBytes(16).toString('base64url')}`, ...doc };
      await attempts().insertOne(stored);
      return stored;
    },

    /**
     * The endpoint's attempts, newest first, at most `limit`, after the attempt `before` (an id
     * from a previous page; one of another endpoint, or expired, is an empty page).
     */
    async listForEndpoint(endpointId: string, options: { limit: number; before?: string | undefined }): Promise<WebhookAttemptDoc[]> {
      await ensureIndexes();
      const cursor = options.before ? await attempts().findOne({ _id: options.before, endpointId }, { projection: { _id: 1, at: 1 } }) : null;
      if (options.before && !cursor) return [];
      const after = cursor ? { $or: [{ at: { $lt: cursor.at } }, { at: cursor.at, _id: { $lt: cursor._id } }] } : {};
      return attempts().find({ endpointId, ...after }).sort(NEWEST).limit(options.limit).maxTimeMS(READ_TIME_LIMIT_MS).toArray();
    },
  };
}

export type WebhookAttemptRepo = ReturnType<typeof createWebhookAttemptRepo>;
