/**
 * One alert per reader and article across channels (issue 40; audience.rules): the channel that
 * tells a reader of an article is claimed once (`news_alert_claims`, `_id` = `<article>:<user>`),
 * an insert that the unique `_id` makes atomic on MongoDB and FerretDB alike. A retried
 * activity claiming the same channel again is answered yes (idempotent); another channel, no.
 * A page of the audience claims its readers in one unordered insert (claimMany).
 * A permanent failure (a push subscription gone, a refused WhatsApp message, a suppressed
 * address) hands the claim to the next channel by a conditional update. Claims are kept 7 days
 * (alerts are for articles of the last 24 hours), then the TTL index removes them.
 */
import type { Connection } from 'mongoose';
import type { AlertChannel } from './audience.rules';
import { buildIndexesRacing, collectionOf, indexesOnce, insertManyRacing } from '../infra/mongo';

export const ALERT_CLAIM_COLLECTION = 'news_alert_claims';
const KEEP_MS = 7 * 86_400_000;

interface AlertClaimDoc {
  _id: string;
  articleId: string;
  userId: string;
  channel: AlertChannel;
  claimedAt: Date;
  expiresAt: Date;
}

export function createAlertClaimRepo(conn: Connection) {
  const claims = () => collectionOf<AlertClaimDoc>(conn, ALERT_CLAIM_COLLECTION);
  const ensureIndexes = () => indexesOnce(conn, ALERT_CLAIM_COLLECTION, () => buildIndexesRacing(() => claims().createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'expires' })));
  const id = (articleId: string, userId: string) => `${articleId}:${userId}`;

  /**
   * {@link claim} for the readers of a page at once: one unordered insert, then one read of the
   * claims that were there already. Answers the readers whose alert `channel` tells (claimed now,
   * or by the same channel before).
   */
  async function claimMany(articleId: string, wants: readonly { userId: string; channel: AlertChannel }[], at: Date): Promise<Set<string>> {
    if (wants.length === 0) return new Set();
    await ensureIndexes();
    const expiresAt = new Date(at.getTime() + KEEP_MS);
    const docs = wants.map((w) => ({ _id: id(articleId, w.userId), articleId, userId: w.userId, channel: w.channel, claimedAt: at, expiresAt }));
    const refused = await insertManyRacing(claims(), docs);
    const held = new Set(wants.map((w) => w.userId));
    if (refused.length > 0) {
      const before = await claims()
        .find({ _id: { $in: refused.map((i) => docs[i]!._id) } }, { projection: { channel: 1 } })
        .toArray();
      const channelOf = new Map(before.map((d) => [d._id, d.channel]));
      for (const i of refused) if (channelOf.get(docs[i]!._id) !== docs[i]!.channel) held.delete(docs[i]!.userId);
    }
    return held;
  }

  return {
    ensureIndexes,

    /** Whether `channel` tells `userId` of `articleId`: the first claim wins, and the same channel's repeat is yes. */
    claim: async (articleId: string, userId: string, channel: AlertChannel, at: Date): Promise<boolean> => (await claimMany(articleId, [{ userId, channel }], at)).has(userId),

    claimMany,

    /** Hands a claim from a channel that failed for good to the next one; false when another holds it. */
    async handOver(articleId: string, userId: string, from: AlertChannel, to: AlertChannel): Promise<boolean> {
      const res = await claims().updateOne({ _id: id(articleId, userId), channel: { $in: [from, to] } }, { $set: { channel: to } });
      return res.matchedCount === 1;
    },

    /** The channel that told a reader of an article, if any. */
    channelOf: async (articleId: string, userId: string): Promise<AlertChannel | null> => (await claims().findOne({ _id: id(articleId, userId) }, { projection: { channel: 1 } }))?.channel ?? null,
  };
}

export type AlertClaimRepo = ReturnType<typeof createAlertClaimRepo>;
