import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { apiKeyModel, type ApiKeyDoc } from './api-key.model';
import { generateApiKey, type KeyMode, type KeyScope } from './api-key.rules';

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

    findByHash: (keyHash: string) => Keys.findById(keyHash).lean<ApiKeyDoc>().exec(),

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
