/**
 * Readers' Web Push subscriptions (issue 40; `news_push_subscriptions`): one document per browser
 * subscription, its id derived from the endpoint (so an endpoint is stored once, with no index on
 * a 2 KB string), the reader it belongs to, the keys the payload is encrypted to, a short label
 * ("Firefox · Android") and when a push last reached it. The per-reader cap is held by counting
 * after the insert and taking the insert back past it: concurrent subscriptions never exceed it
 * (FerretDB has no transactions), at worst both racing ones are refused.
 */
import { createHash } from 'node:crypto';
import type { Connection } from 'mongoose';
import { buildIndexesRacing, collectionOf, indexesOnce, isDuplicateKey, writeRacingOnUniqueKey } from '../infra/mongo';

export const PUSH_SUBSCRIPTION_COLLECTION = 'news_push_subscriptions';

export interface PushSubscriptionDoc {
  _id: string;
  userId: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
  label: string;
  createdAt: Date;
  lastSuccessAt: Date | null;
}

/** A subscription's id: `ps_` and 22 characters of the endpoint's SHA-256 (the endpoint itself is a capability, and long). */
export const pushSubscriptionId = (endpoint: string): string => `ps_${createHash('sha256').update(endpoint).digest('base64url').slice(0, 22)}`;

export function createPushSubscriptionRepo(conn: Connection) {
  const subs = () => collectionOf<PushSubscriptionDoc>(conn, PUSH_SUBSCRIPTION_COLLECTION);
  const ensureIndexes = () => indexesOnce(conn, PUSH_SUBSCRIPTION_COLLECTION, () => buildIndexesRacing(() => subs().createIndex({ userId: 1, createdAt: 1 }, { name: 'user' })));

  return {
    ensureIndexes,

    get: async (id: string): Promise<PushSubscriptionDoc | null> => await subs().findOne({ _id: id }),

    /** Inserts a new subscription; false when its endpoint is stored already. */
    async insert(doc: PushSubscriptionDoc): Promise<boolean> {
      await ensureIndexes();
      try {
        await writeRacingOnUniqueKey(() => subs().insertOne(doc));
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },

    /** Gives a stored subscription to `userId` with these keys and label, only while it still has `expect`'s owner and keys. */
    async refresh(id: string, expect: Pick<PushSubscriptionDoc, 'userId' | 'keys'>, set: Pick<PushSubscriptionDoc, 'userId' | 'keys' | 'label'>): Promise<PushSubscriptionDoc | null> {
      return await subs().findOneAndUpdate(
        { _id: id, userId: expect.userId, 'keys.p256dh': expect.keys.p256dh, 'keys.auth': expect.keys.auth },
        { $set: set },
        { returnDocument: 'after' },
      );
    },

    countForUser: async (userId: string): Promise<number> => {
      await ensureIndexes();
      return await subs().countDocuments({ userId });
    },

    /** A reader's subscriptions, oldest first. */
    listForUser: async (userId: string, limit: number): Promise<PushSubscriptionDoc[]> => await subs().find({ userId }, { sort: { createdAt: 1, _id: 1 }, limit }).toArray(),

    /** The subscriptions of these readers (an alert batch's). */
    listForUsers: async (userIds: readonly string[]): Promise<PushSubscriptionDoc[]> => (userIds.length === 0 ? [] : await subs().find({ userId: { $in: [...userIds] } }, { sort: { userId: 1, createdAt: 1 } }).toArray()),

    /** Which of these readers have at least one subscription. */
    async subscribedOf(userIds: readonly string[]): Promise<Set<string>> {
      if (userIds.length === 0) return new Set();
      const docs = await subs().find({ userId: { $in: [...userIds] } }, { projection: { userId: 1 } }).toArray();
      return new Set(docs.map((d) => d.userId));
    },

    /** Removes a reader's own subscription; null when it is not theirs or does not exist. */
    remove: async (userId: string, id: string): Promise<PushSubscriptionDoc | null> => await subs().findOneAndDelete({ _id: id, userId }),

    /** Removes a subscription the push service says is gone, unless it was subscribed again since (other keys). */
    removeGone: async (id: string, keys: PushSubscriptionDoc['keys']): Promise<boolean> =>
      (await subs().deleteOne({ _id: id, 'keys.p256dh': keys.p256dh, 'keys.auth': keys.auth })).deletedCount === 1,

    markDelivered: async (id: string, at: Date): Promise<void> => void (await subs().updateOne({ _id: id }, { $set: { lastSuccessAt: at } })),
  };
}

export type PushSubscriptionRepo = ReturnType<typeof createPushSubscriptionRepo>;
