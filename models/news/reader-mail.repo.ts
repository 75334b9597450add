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

export type ReaderMailState = 'sending' | 'sent' | 'failed';

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

export function createReaderMailRepo(conn: Connection) {
  const mail = () => collectionOf<ReaderMailDoc>(conn, READER_MAIL_COLLECTION);
  const ensureIndexes = () => indexesOnce(conn, READER_MAIL_COLLECTION, () => buildIndexesRacing(() => mail().createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'expires' })));

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
  };
}

export type ReaderMailRepo = ReturnType<typeof createReaderMailRepo>;
