/**
 * Readers' mail, one record per mail (`news_reader_mail`, `_id` = its key: `alert:<article>:<user>`,
 * later `digest:<user>:<day>`): what makes a send idempotent. The record is written before the
 * mail is handed to SMTP, with the Message-ID it will carry; an attempt that died after the
 * server's 250 finds it `sending` and sends again with the same Message-ID (at least once,
 * recognisable as one mail), and a mail `sent` or `failed` is never sent again.
 */
import type { Connection } from 'mongoose';
import { buildIndexesRacing, collectionOf, indexesOnce, isDuplicateKey, writeRacingOnUniqueKey } from '../infra/mongo';

export const READER_MAIL_COLLECTION = 'news_reader_mail';
/** Records are kept 30 days (a retried alert is hours old at most; a digest a day). */
const KEEP_MS = 30 * 86_400_000;

export type ReaderMailState = 'sending' | 'sent' | 'failed' | 'bounced';

export interface ReaderMailDoc {
  _id: string;
  kind: 'alert' | 'digest';
  userId: string;
  to: string;
  messageId: string;
  state: ReaderMailState;
  attempts: number;
  /** The server's answer to the last attempt (sent or refused). */
  response: string | null;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
}

/**
 * An address readers' mail no longer goes to (`news_mail_suppressions`, `_id` = the address
 * lowercased): it bounced for good (a delivery-status notification about one of our mails) or its
 * owner marked our mail as spam (a feedback report). Kept until the reader proves the address again.
 */
export interface MailSuppressionDoc {
  _id: string;
  reason: 'bounce' | 'complaint';
  /** What the report said (the status and diagnostic of a bounce, the feedback type of a complaint). */
  detail: string;
  /** The reader mail it was about. */
  mailId: string | null;
  since: Date;
  updatedAt: Date;
}
export const MAIL_SUPPRESSIONS = 'news_mail_suppressions';

export function createReaderMailRepo(conn: Connection) {
  const mail = () => collectionOf<ReaderMailDoc>(conn, READER_MAIL_COLLECTION);
  const suppressions = () => collectionOf<MailSuppressionDoc>(conn, MAIL_SUPPRESSIONS);
  const ensureIndexes = () =>
    indexesOnce(conn, READER_MAIL_COLLECTION, () =>
      buildIndexesRacing(() =>
        mail().createIndexes([
          { key: { expiresAt: 1 }, expireAfterSeconds: 0, name: 'expires' },
          { key: { messageId: 1 }, name: 'message_id' },
        ]),
      ),
    );

  return {
    ensureIndexes,

    /**
     * Starts (or resumes) the send of a mail: the record, `sending`, one attempt more. Null when
     * it has ended (sent or failed): nothing to do.
     */
    async begin(input: Pick<ReaderMailDoc, '_id' | 'kind' | 'userId' | 'to' | 'messageId'>, now: Date): Promise<ReaderMailDoc | null> {
      await ensureIndexes();
      try {
        const doc: ReaderMailDoc = { ...input, state: 'sending', attempts: 1, response: null, createdAt: now, updatedAt: now, expiresAt: new Date(now.getTime() + KEEP_MS) };
        await writeRacingOnUniqueKey(() => mail().insertOne(doc));
        return doc;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      return await mail().findOneAndUpdate({ _id: input._id, state: 'sending' }, { $inc: { attempts: 1 }, $set: { updatedAt: now } }, { returnDocument: 'after' });
    },

    /** The mail's end: handed to SMTP, or refused for good. */
    end: async (id: string, state: 'sent' | 'failed', response: string, now: Date): Promise<void> => void (await mail().updateOne({ _id: id, state: 'sending' }, { $set: { state, response: response.slice(0, 500), updatedAt: now } })),

    get: (id: string) => mail().findOne({ _id: id }),

    /** The reader mail that carried this Message-ID (a bounce or a complaint names it), or null. */
    async byMessageId(messageId: string): Promise<ReaderMailDoc | null> {
      await ensureIndexes();
      return await mail().findOne({ messageId });
    },

    /** A mail the recipient's server returned: its state says so (whatever it was). */
    markBounced: async (id: string, response: string, now: Date): Promise<void> => void (await mail().updateOne({ _id: id }, { $set: { state: 'bounced', response: response.slice(0, 500), updatedAt: now } })),

    /**
     * Stops readers' mail to an address. A complaint outranks a bounce (the address works, its
     * owner does not want us), so a later bounce does not overwrite one.
     */
    async suppress(address: string, reason: MailSuppressionDoc['reason'], detail: string, mailId: string | null, now: Date): Promise<void> {
      const _id = address.trim().toLowerCase();
      const set = { reason, detail: detail.slice(0, 500), mailId, updatedAt: now };
      const filter = reason === 'bounce' ? { _id, reason: { $ne: 'complaint' as const } } : { _id };
      const res = await suppressions().updateOne(filter, { $set: set });
      if (res.matchedCount === 1) return;
      try {
        await writeRacingOnUniqueKey(() => suppressions().insertOne({ _id, ...set, since: now }));
      } catch (err) {
        if (!isDuplicateKey(err)) throw err; // suppressed meanwhile (or a complaint is kept)
      }
    },

    /** Which of these addresses are suppressed (lowercased). */
    async suppressedOf(addresses: readonly string[]): Promise<Set<string>> {
      if (addresses.length === 0) return new Set();
      const found = await suppressions()
        .find({ _id: { $in: [...new Set(addresses.map((a) => a.trim().toLowerCase()))] } }, { projection: { _id: 1 } })
        .toArray();
      return new Set(found.map((d) => d._id));
    },

    /** An address proven again (the reader confirmed it anew): mail may go to it. */
    unsuppress: async (address: string): Promise<void> => void (await suppressions().deleteOne({ _id: address.trim().toLowerCase() })),

    /** Why an address is suppressed, or null. */
    suppression: (address: string) => suppressions().findOne({ _id: address.trim().toLowerCase() }),
  };
}

export type ReaderMailRepo = ReturnType<typeof createReaderMailRepo>;
