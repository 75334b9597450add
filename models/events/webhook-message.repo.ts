/**
 * Webhook messages (`webhook_messages`, issue 40, part 5): one per endpoint and event, made by the
 * fan-out when an event is appended to the log (operations/events/webhook-fanout.ts), and one per
 * test event. A message holds the exact body sent (signed anew at every attempt) and where its
 * delivery stands; its workflow (`webhook-message-<msgId>`) does the attempts.
 *
 * One message per (endpoint, event key): a unique index, so a fan-out retried or run again by the
 * relay finds the messages it made and makes no second one. Kept 30 days (a TTL index on
 * createdAt), as the delivery log is, so a message can be replayed while its attempts are listed.
 */
import type { Connection } from 'mongoose';
import { buildIndexesRacing, collectionOf, indexesOnce, insertManyRacing } from '../infra/mongo';
import type { EventType } from './webhook.rules';
import { DELIVERY_LOG_TTL_SECONDS, type MessageState } from './webhook-message.rules';

export const WEBHOOK_MESSAGES = 'webhook_messages';

export interface WebhookMessageDoc {
  /** The msg id (`msg_…`): the `webhook-id` of every attempt, replays included. */
  _id: string;
  endpointId: string;
  accountId: string;
  /** The event's key in the log (`article:<id>`), or `test:<msgId>` for a test message. */
  eventKey: string;
  type: EventType;
  /** The exact JSON sent. */
  body: string;
  state: MessageState;
  /** Attempts made (replays included). */
  attempts: number;
  lastAttemptAt: Date | null;
  createdAt: Date;
}

export function createWebhookMessageRepo(conn: Connection) {
  const messages = () => collectionOf<WebhookMessageDoc>(conn, WEBHOOK_MESSAGES);
  const ensureIndexes = () =>
    indexesOnce(conn, WEBHOOK_MESSAGES, () =>
      buildIndexesRacing(() =>
        messages().createIndexes([
          { key: { endpointId: 1, eventKey: 1 }, name: 'endpoint_event', unique: true },
          { key: { createdAt: 1 }, name: 'expires', expireAfterSeconds: DELIVERY_LOG_TTL_SECONDS },
        ]),
      ),
    );

  return {
    ensureIndexes,

    /**
     * Stores the messages not stored yet (by endpoint and event key) and answers every message of
     * these endpoints for the event, those stored before included, so a repeated fan-out starts
     * the workflows a failed one may have left unstarted.
     */
    async createMany(docs: readonly WebhookMessageDoc[]): Promise<WebhookMessageDoc[]> {
      if (docs.length === 0) return [];
      await ensureIndexes();
      await insertManyRacing(messages(), docs);
      const byEvent = new Map<string, string[]>();
      for (const d of docs) byEvent.set(d.eventKey, [...(byEvent.get(d.eventKey) ?? []), d.endpointId]);
      const found: WebhookMessageDoc[] = [];
      for (const [eventKey, endpointIds] of byEvent) found.push(...(await messages().find({ eventKey, endpointId: { $in: endpointIds } }).toArray()));
      return found;
    },

    /** Stores one message (a test event). */
    async create(doc: WebhookMessageDoc): Promise<WebhookMessageDoc> {
      await ensureIndexes();
      await messages().insertOne(doc);
      return doc;
    },

    get: (msgId: string): Promise<WebhookMessageDoc | null> => messages().findOne({ _id: msgId }),

    /** A message of the account's endpoint; another account's, or another endpoint's, is null. */
    getForEndpoint: (accountId: string, endpointId: string, msgId: string): Promise<WebhookMessageDoc | null> => messages().findOne({ _id: msgId, accountId, endpointId }),

    /** Counts an attempt made at `at`, and the state it left the message in. */
    async recordAttempt(msgId: string, state: MessageState, at: Date): Promise<void> {
      await messages().updateOne({ _id: msgId }, { $set: { state, lastAttemptAt: at }, $inc: { attempts: 1 } });
    },

    /** Ends a message without an attempt (its endpoint disabled or removed, its schedule exhausted). */
    async finish(msgId: string, state: MessageState): Promise<void> {
      await messages().updateOne({ _id: msgId, state: 'pending' }, { $set: { state } });
    },
  };
}

export type WebhookMessageRepo = ReturnType<typeof createWebhookMessageRepo>;
