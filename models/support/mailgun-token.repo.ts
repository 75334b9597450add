/**
 * Support by e-mail (issue 39), the tokens of Mailgun's webhook deliveries already taken
 * (`support_mailgun_tokens`): one small document per delivery, keyed by the token's SHA-256 (the
 * unique `_id`), so that a delivery replayed with the same signature is refused. Claiming is one
 * insert, which the unique index makes atomic on MongoDB and FerretDB alike (no transaction); a
 * TTL index removes a token once its timestamp can no longer be fresh (models/support/mailgun.ts).
 */
import type { Connection } from 'mongoose';
import { buildIndexesRacing, collectionOf, indexesOnce, isDuplicateKey, writeRacingOnUniqueKey } from '../infra/mongo';
import { mailgunTokenKey } from './mailgun';

export const MAILGUN_TOKEN_COLLECTION = 'support_mailgun_tokens';

interface MailgunTokenDoc {
  /** SHA-256 of the token, hex. */
  _id: string;
  receivedAt: Date;
  expiresAt: Date;
  /** The record of the message its delivery brought, once stored (a repeat answers it). */
  recordId?: string;
}

export function createMailgunTokenRepo(conn: Connection) {
  const tokens = () => collectionOf<MailgunTokenDoc>(conn, MAILGUN_TOKEN_COLLECTION);
  const ensureIndexes = () =>
    indexesOnce(conn, MAILGUN_TOKEN_COLLECTION, () => buildIndexesRacing(() => tokens().createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'expires' })));

  return {
    ensureIndexes,

    /**
     * Takes a delivery's token: `claimed` the first time; else what the first delivery with it
     * stored (`stored`, its record's id) or `in-flight` when it has stored nothing yet.
     */
    async claim(token: string, at: Date, ttlMs: number): Promise<{ state: 'claimed' } | { state: 'stored'; recordId: string } | { state: 'in-flight' }> {
      await ensureIndexes();
      try {
        await writeRacingOnUniqueKey(() => tokens().insertOne({ _id: mailgunTokenKey(token), receivedAt: at, expiresAt: new Date(at.getTime() + ttlMs) }));
        return { state: 'claimed' };
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const earlier = await tokens().findOne({ _id: mailgunTokenKey(token) });
        return earlier?.recordId ? { state: 'stored', recordId: earlier.recordId } : { state: 'in-flight' };
      }
    },

    /** The message a token's delivery brought was stored as `recordId`. */
    stored: async (token: string, recordId: string): Promise<void> => void (await tokens().updateOne({ _id: mailgunTokenKey(token) }, { $set: { recordId } })),

    /** Gives a token back: its delivery was not kept (a fault), so Mailgun's retry is not a replay. */
    release: async (token: string): Promise<void> => void (await tokens().deleteOne({ _id: mailgunTokenKey(token) })),
  };
}

export type MailgunTokenRepo = ReturnType<typeof createMailgunTokenRepo>;
