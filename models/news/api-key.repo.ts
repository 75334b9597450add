import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { apiKeyModel, type ApiKeyDoc } from './api-key.model';
import { generateApiKey, type KeyMode, type KeyScope } from './api-key.rules';
import type { Plan } from './plan.rules';
import { userModel } from '../users/user.model';

export interface CreateKeyInput {
  userId: string;
  name: string;
  mode: KeyMode;
  scopes: KeyScope[];
  expiresAt: Date | null;
}

export function createApiKeyRepo(conn: Connection) {
  const Keys = apiKeyModel(conn);
  return {
    /** Stores the hash and returns the key itself, the only time it exists outside the caller. */
    async create(input: CreateKeyInput): Promise<{ key: string; record: ApiKeyDoc }> {
      const generated = generateApiKey(input.mode);
      const record = await Keys.create({
        _id: generated.hash,
        keyId: randomUUID(),
        userId: input.userId,
        name: input.name,
        displayPrefix: generated.displayPrefix,
        mode: input.mode,
        scopes: input.scopes,
        expiresAt: input.expiresAt,
      });
      return { key: generated.key, record: record.toObject() };
    },

    /**
     * The key with this hash and its account's plan (null without an account), in one command:
     * every API request authenticates, and two reads (key, then account) were half of its
     * database commands (measured on the dev database at 50 callers: 753–1,370 against
     * 1,403–1,683 authentications a second).
     */
    async findByHashWithPlan(keyHash: string): Promise<{ key: ApiKeyDoc; plan: Plan | null } | null> {
      const [found] = await Keys.aggregate<ApiKeyDoc & { plan?: Plan | null }>([
        { $match: { _id: keyHash } },
        { $limit: 1 },
        { $lookup: { from: userModel(conn).collection.collectionName, localField: 'userId', foreignField: '_id', as: 'account' } },
        { $set: { plan: { $arrayElemAt: ['$account.plan', 0] } } },
        { $unset: 'account' },
      ]);
      if (!found) return null;
      const { plan, ...key } = found;
      return { key: key as ApiKeyDoc, plan: plan ?? null };
    },

    /** The user's key with this public id, or null. */
    findForUser: (userId: string, keyId: string) => Keys.findOne({ keyId, userId }).lean<ApiKeyDoc>().exec(),

    /** Revokes a key (idempotent). */
    async revoke(keyHash: string): Promise<void> {
      const current = await Keys.findById(keyHash, { revokedAt: 1 }).lean<Pick<ApiKeyDoc, 'revokedAt'>>();
      if (current && !current.revokedAt) await Keys.updateOne({ _id: keyHash }, { $set: { revokedAt: new Date() } });
    },

    /** Records use; callers throttle it (one write per key per minute is plenty). */
    async touch(keyHash: string, at: Date): Promise<void> {
      await Keys.updateOne({ _id: keyHash }, { $set: { lastUsedAt: at } });
    },

    /** Revokes the user's active keys with this name (seed rotation); returns how many. */
    async revokeByName(userId: string, name: string): Promise<number> {
      const r = await Keys.updateMany({ userId, name, revokedAt: null }, { $set: { revokedAt: new Date() } });
      return r.modifiedCount;
    },

    listForUser: (userId: string) => Keys.find({ userId }).sort({ createdAt: -1 }).lean<ApiKeyDoc[]>().exec(),
  };
}

export type ApiKeyRepo = ReturnType<typeof createApiKeyRepo>;
