/**
 * WhatsApp's records (issue 15):
 * - `whatsapp_inbound`: every message a reader sent, `_id` = WhatsApp's message id, stored once
 *   (a redelivery is counted, not stored again), with when it was handed to the phone's
 *   conversation workflow and when that workflow had handled it;
 * - `whatsapp_contacts`: one per phone number (`_id`), the account it is linked to (null until a
 *   sign-up or log-in), and when the reader last wrote (WhatsApp's 24-hour window);
 * - `whatsapp_outbound`: every message sent, `_id` = our key for it (a reply's is
 *   `reply:<inbound id>:<n>`, an alert's `alert:<article>:<phone>`), WhatsApp's id once accepted,
 *   and its delivery statuses (sent, delivered, read, failed);
 * - `whatsapp_alert_counts`: alerts sent per phone and hour, for the hourly cap (expire by TTL).
 * Each write is one document: no transactions, so every step is safe to repeat.
 */
import type { Connection } from 'mongoose';
import { buildIndexesRacing, collectionOf, isDuplicateKey } from '../infra/mongo';
import type { OutboundMessage } from '../infra/whatsapp';
import type { DeliveryStatus, Inbound, InboundContent } from './webhook.rules';

export interface InboundDoc {
  _id: string;
  phone: string;
  profileName: string | null;
  sentAt: Date;
  content: InboundContent;
  receivedAt: Date;
  deliveries: number;
  forwardedAt: Date | null;
  handledAt: Date | null;
}

/** A log-in code sent to a phone, waiting to be confirmed by its account (one per account). */
export interface LoginCodeDoc {
  _id: string;
  phone: string;
  codeHash: string;
  attempts: number;
  expiresAt: Date;
}

export interface ContactDoc {
  _id: string;
  userId: string | null;
  profileName: string | null;
  lastInboundAt: Date | null;
  linkedAt: Date | null;
  createdAt: Date;
}

export const DELIVERY_STATES = ['sending', 'sent', 'delivered', 'read', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface OutboundDoc {
  _id: string;
  phone: string;
  kind: 'reply' | 'alert' | 'code';
  message: OutboundMessage;
  /** WhatsApp's id, once the API accepted the message. */
  wamid: string | null;
  status: DeliveryState;
  statuses: { status: DeliveryStatus['status']; at: Date; error: DeliveryStatus['error'] }[];
  attempts: number;
  createdAt: Date;
  sentAt: Date | null;
}

/** Later states never go back to earlier ones (WhatsApp may deliver `delivered` after `read`). */
const RANK: Record<DeliveryState, number> = { sending: 0, sent: 1, delivered: 2, read: 3, failed: 4 };

export function createWhatsAppRepo(conn: Connection) {
  const inbound = () => collectionOf<InboundDoc>(conn, 'whatsapp_inbound');
  const contacts = () => collectionOf<ContactDoc>(conn, 'whatsapp_contacts');
  const outbound = () => collectionOf<OutboundDoc>(conn, 'whatsapp_outbound');
  const counts = () => collectionOf<{ _id: string; n: number; keys: string[]; expiresAt: Date }>(conn, 'whatsapp_alert_counts');
  const codes = () => collectionOf<LoginCodeDoc>(conn, 'whatsapp_login_codes');
  let indexed: Promise<unknown> | undefined;
  const ensureIndexes = () =>
    (indexed ??= buildIndexesRacing(() =>
      Promise.all([
        // The relay's question: what is not handed over yet, oldest first.
        inbound().createIndex({ forwardedAt: 1, receivedAt: 1 }, { name: 'forwarded_received' }),
        inbound().createIndex({ phone: 1, sentAt: 1 }, { name: 'phone_sent' }),
        contacts().createIndex({ userId: 1 }, { name: 'user' }),
        // Statuses find their message by WhatsApp's id.
        outbound().createIndex({ wamid: 1 }, { name: 'wamid' }),
        outbound().createIndex({ phone: 1, createdAt: -1 }, { name: 'phone_created' }),
        counts().createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'expires' }),
        codes().createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'expires' }),
      ]),
    ).catch((err) => {
      indexed = undefined;
      throw err;
    }));

  return {
    ensureIndexes,

    /**
     * Stores a reader's message once (a redelivery counts as a delivery) and notes when the reader
     * last wrote. `fresh` is false for a redelivery; `stored` is the record as it now is.
     */
    async recordInbound(m: Inbound, now: Date): Promise<{ fresh: boolean; stored: InboundDoc }> {
      await ensureIndexes();
      const doc: InboundDoc = { _id: m.id, phone: m.phone, profileName: m.profileName, sentAt: m.sentAt, content: m.content, receivedAt: now, deliveries: 1, forwardedAt: null, handledAt: null };
      let fresh = true;
      try {
        await inbound().insertOne(doc);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        fresh = false;
      }
      await contacts().updateOne(
        { _id: m.phone },
        { $max: { lastInboundAt: m.sentAt }, $setOnInsert: { userId: null, linkedAt: null, createdAt: now }, $set: { ...(m.profileName ? { profileName: m.profileName } : {}) } },
        { upsert: true },
      ).catch((err: unknown) => {
        if (!isDuplicateKey(err)) throw err; // two first messages at once: the other made it
      });
      if (fresh) return { fresh, stored: doc };
      const stored = await inbound().findOneAndUpdate({ _id: m.id }, { $inc: { deliveries: 1 } }, { returnDocument: 'after' });
      return { fresh, stored: stored ?? doc };
    },

    markForwarded: async (id: string) => void (await inbound().updateOne({ _id: id }, { $set: { forwardedAt: new Date() } })),
    markHandled: async (id: string) => void (await inbound().updateOne({ _id: id }, { $set: { handledAt: new Date() } })),
    inboundById: async (id: string) => await inbound().findOne({ _id: id }),
    /** Messages received before `before` and not handed over yet, oldest first. */
    pendingInbound: async (before: Date, limit: number) => await inbound().find({ forwardedAt: null, receivedAt: { $lt: before } }, { sort: { receivedAt: 1 }, limit }).toArray(),

    contact: async (phone: string) => await contacts().findOne({ _id: phone }),
    contactOfUser: async (userId: string) => await contacts().findOne({ userId }),
    /** Links a phone to an account (the last link wins; an account keeps one phone). */
    async link(phone: string, userId: string, now: Date): Promise<void> {
      await contacts().updateMany({ userId, _id: { $ne: phone } }, { $set: { userId: null, linkedAt: null } });
      await contacts().updateOne({ _id: phone }, { $set: { userId, linkedAt: now }, $setOnInsert: { profileName: null, lastInboundAt: null, createdAt: now } }, { upsert: true });
    },
    /**
     * Unlinks the phone(s) linked to this account, and only those; the phone unlinked (null: none
     * was). The phone's messages, and its conversation, stay; it is a guest again.
     */
    async unlink(userId: string): Promise<string | null> {
      const linked = await contacts().find({ userId }, { projection: { _id: 1 }, sort: { linkedAt: -1 } }).toArray();
      if (linked.length === 0) return null;
      const done = await contacts().updateMany({ _id: { $in: linked.map((c) => c._id) }, userId }, { $set: { userId: null, linkedAt: null } });
      return done.modifiedCount > 0 ? linked[0]!._id : null;
    },
    /** The phones linked to these accounts, with when each last wrote. */
    phonesOf: async (userIds: string[]) => await contacts().find({ userId: { $in: userIds } }, { projection: { _id: 1, userId: 1, lastInboundAt: 1 } }).toArray(),

    /** The outbound record under `key`, made (status `sending`) if it is not there yet. */
    async claimOutbound(key: string, phone: string, kind: OutboundDoc['kind'], message: OutboundMessage): Promise<OutboundDoc> {
      // `message` is what is recorded (a log-in code's is masked by the caller).
      await ensureIndexes();
      const now = new Date();
      const doc = await outbound().findOneAndUpdate(
        { _id: key },
        { $setOnInsert: { phone, kind, message, wamid: null, status: 'sending', statuses: [], createdAt: now, sentAt: null }, $inc: { attempts: 1 } },
        { upsert: true, returnDocument: 'after' },
      ).catch(async (err: unknown) => {
        if (!isDuplicateKey(err)) throw err;
        return await outbound().findOne({ _id: key });
      });
      return doc!;
    },
    async markSent(key: string, wamid: string): Promise<void> {
      await outbound().updateOne({ _id: key, wamid: null }, { $set: { wamid, sentAt: new Date(), status: 'sent' } });
    },
    /** A delivery status from the webhook, on the message it is about (false: no such message of ours). */
    async recordStatus(s: DeliveryStatus): Promise<boolean> {
      const doc = await outbound().findOne({ wamid: s.messageId }, { projection: { status: 1 } });
      if (!doc) return false;
      const entry = { status: s.status, at: s.at, error: s.error };
      const state = s.status === 'deleted' ? doc.status : (s.status as DeliveryState);
      await outbound().updateOne(
        { _id: doc._id },
        { $push: { statuses: entry }, ...(RANK[state] > RANK[doc.status] ? { $set: { status: state } } : {}) },
      );
      return true;
    },
    outboundOf: async (phone: string) => await outbound().find({ phone }, { sort: { createdAt: 1, _id: 1 } }).toArray(),

    /**
     * Takes one of a phone's `cap` alerts for the hour starting at `hour` for the alert `key`;
     * false when they are all taken. Atomic: the counter's filter admits a new key only below the
     * cap, and an upsert that finds the counter at the cap collides with it on `_id`. Taking it
     * again for the same key (a retried activity) answers true and counts nothing.
     */
    async takeAlertSlot(phone: string, hour: Date, cap: number, key: string): Promise<boolean> {
      await ensureIndexes();
      const _id = `${phone}|${hour.toISOString().slice(0, 13)}`;
      try {
        await counts().updateOne({ _id, n: { $lt: cap }, keys: { $ne: key } }, { $inc: { n: 1 }, $push: { keys: key }, $setOnInsert: { expiresAt: new Date(hour.getTime() + 2 * 3_600_000) } }, { upsert: true });
        return true;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        return (await counts().countDocuments({ _id, keys: key })) > 0;
      }
    },

    /** Stores the account's pending log-in code (replacing an earlier one). */
    async saveLoginCode(userId: string, phone: string, codeHash: string, expiresAt: Date): Promise<void> {
      await ensureIndexes();
      await codes().replaceOne({ _id: userId }, { phone, codeHash, attempts: 0, expiresAt }, { upsert: true });
    },
    /**
     * One try at the account's pending code: the phone it was sent to when `matches(hash)`, else
     * why not. Five tries per code; a code is used once.
     */
    async useLoginCode(userId: string, now: Date, matches: (hash: string) => boolean): Promise<{ phone: string } | { refused: 'none' | 'expired' | 'tries' | 'wrong' }> {
      const doc = await codes().findOneAndUpdate({ _id: userId }, { $inc: { attempts: 1 } }, { returnDocument: 'after' });
      if (!doc) return { refused: 'none' };
      if (doc.expiresAt <= now) return { refused: 'expired' };
      if (doc.attempts > 5) return { refused: 'tries' };
      if (!matches(doc.codeHash)) return { refused: 'wrong' };
      const used = await codes().deleteOne({ _id: userId, codeHash: doc.codeHash });
      return used.deletedCount === 1 ? { phone: doc.phone } : { refused: 'none' };
    },
  };
}

export type WhatsAppRepo = ReturnType<typeof createWhatsAppRepo>;
