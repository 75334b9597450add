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
}

export function createMailgunTokenRepo(conn: Connection) {
  const tokens = () => collectionOf<MailgunTokenDoc>(conn, MAILGUN_TOKEN_COLLECTION);
  const ensureIndexes = () =>
    indexesOnce(conn, MAILGUN_TOKEN_COLLECTION, () => buildIndexesRacing(() => tokens().createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'expires' })));

  return {
    ensureIndexes,

    /** Takes a delivery's token: true the first time, false when it was taken already (a replay). */
    async claim(token: string, at: Date, ttlMs: number): Promise<boolean> {
      await ensureIndexes();
      try {
        await writeRacingOnUniqueKey(() => tokens().insertOne({ _id: mailgunTokenKey(token), receivedAt: at, expiresAt: new Date(at.getTime() + ttlMs) }));
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },

    /** Gives a token back: its delivery was not kept (a fault), so Mailgun's retry is not a replay. */
    release: async (token: string): Promise<void> => void (await tokens().deleteOne({ _id: mailgunTokenKey(token) })),
  };
}

export type MailgunTokenRepo = ReturnType<typeof createMailgunTokenRepo>;
