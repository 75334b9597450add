/**
 * The dashboard's accounts (issue 26), in three collections:
 * - `accounts`: one per verified e-mail address (`_id` the normalised address) naming its user;
 * - `sign_in_codes`: the pending code of an address (`_id` the address), hashed, removed by TTL;
 * - `web_sessions`: server-side sessions (`_id` the token's hash), removed by TTL.
 * Every step is one single-document atomic write: no transaction is needed.
 */
import type { Connection } from 'mongoose';
import { buildIndexesRacing, collectionOf, indexesOnce, isDuplicateKey } from '../infra/mongo';

export interface AccountDoc {
  _id: string;
  userId: string;
  verifiedAt: Date;
  createdAt: Date;
  lastSignInAt: Date;
}

export interface SignInCodeDoc {
  _id: string;
  codeHash: string;
  attempts: number;
  createdAt: Date;
  expiresAt: Date;
}

export interface SessionDoc {
  _id: string;
  userId: string;
  email: string;
  csrfToken: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

export function createAccountRepo(conn: Connection) {
  const accounts = () => collectionOf<AccountDoc>(conn, 'accounts');
  const codes = () => collectionOf<SignInCodeDoc>(conn, 'sign_in_codes');
  const sessions = () => collectionOf<SessionDoc>(conn, 'web_sessions');
  const indexes = () =>
    indexesOnce(conn, 'accounts', () =>
      buildIndexesRacing(() =>
        Promise.all([
          accounts().createIndex({ userId: 1 }, { name: 'user' }),
          codes().createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'expires' }),
          sessions().createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'expires' }),
          // Sign-out everywhere removes a user's sessions.
          sessions().createIndex({ userId: 1 }, { name: 'user' }),
          // Removing a staff member ends the sessions signed in with its address (issue 38).
          sessions().createIndex({ email: 1 }, { name: 'email' }),
        ]),
      ),
    );

  return {
    ensureIndexes: indexes,

    /** Stores an address's new code, replacing any code it had (only the newest works). */
    async putCode(email: string, hash: string, now: Date, expiresAt: Date): Promise<void> {
      await indexes();
      await codes().replaceOne({ _id: email }, { codeHash: hash, attempts: 0, createdAt: now, expiresAt }, { upsert: true });
    },

    /** The address's pending code, if it has one that has not expired (TTL removal runs once a minute). */
    async findCode(email: string, now: Date): Promise<SignInCodeDoc | null> {
      return await codes().findOne({ _id: email, expiresAt: { $gt: now } });
    },

    /** Uses the code: true for exactly one caller, however many present it at once. */
    async consumeCode(email: string, hash: string): Promise<boolean> {
      return (await codes().deleteOne({ _id: email, codeHash: hash })).deletedCount === 1;
    },

    /** Counts a wrong code; the code is thrown away once it has had `max` wrong tries. */
    async countWrongCode(email: string, hash: string, max: number): Promise<void> {
      const after = await codes().findOneAndUpdate({ _id: email, codeHash: hash }, { $inc: { attempts: 1 } }, { returnDocument: 'after' });
      if (after && after.attempts >= max) await codes().deleteOne({ _id: email, codeHash: hash });
    },

    deleteCode: async (email: string): Promise<void> => {
      await codes().deleteOne({ _id: email });
    },

    findAccount: (email: string) => accounts().findOne({ _id: email }),

    /**
     * The address's account, made on its first verified sign-in with `userId` (a second sign-in
     * racing the first finds the account the first made).
     */
    async verifiedAccount(email: string, userId: string, now: Date): Promise<AccountDoc> {
      await indexes();
      try {
        const doc = await accounts().findOneAndUpdate(
          { _id: email },
          { $setOnInsert: { userId, verifiedAt: now, createdAt: now }, $set: { lastSignInAt: now } },
          { upsert: true, returnDocument: 'after' },
        );
        return doc!;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const doc = await accounts().findOneAndUpdate({ _id: email }, { $set: { lastSignInAt: now } }, { returnDocument: 'after' });
        return doc!;
      }
    },

    async createSession(doc: SessionDoc): Promise<void> {
      await indexes();
      await sessions().insertOne(doc);
    },

    findSession: (tokenHash: string, now: Date) => sessions().findOne({ _id: tokenHash, expiresAt: { $gt: now } }),

    touchSession: async (tokenHash: string, now: Date, expiresAt: Date): Promise<void> => {
      await sessions().updateOne({ _id: tokenHash }, { $set: { lastSeenAt: now, expiresAt } });
    },

    deleteSession: async (tokenHash: string): Promise<void> => {
      await sessions().deleteOne({ _id: tokenHash });
    },

    /** Ends every session of the user; returns how many there were. */
    deleteUserSessions: async (userId: string): Promise<number> => (await sessions().deleteMany({ userId })).deletedCount,

    countUserSessions: (userId: string) => sessions().countDocuments({ userId }),

    /** Ends every session signed in with the address (a staff member removed); returns how many there were. */
    deleteEmailSessions: async (email: string): Promise<number> => {
      await indexes();
      return (await sessions().deleteMany({ email })).deletedCount;
    },
  };
}

export type AccountRepo = ReturnType<typeof createAccountRepo>;
