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
        _id: randomUUID(),
        userId: input.userId,
        name: input.name,
        keyHash: generated.hash,
        displayPrefix: generated.displayPrefix,
        mode: input.mode,
        scopes: input.scopes,
        expiresAt: input.expiresAt,
      });
      return { key: generated.key, record: record.toObject() };
    },

    findByHash: (keyHash: string) => Keys.findOne({ keyHash }).lean<ApiKeyDoc>().exec(),

    /** Revokes the user's active keys with this name (seed rotation); returns how many. */
    async revokeByName(userId: string, name: string): Promise<number> {
      const r = await Keys.updateMany({ userId, name, revokedAt: null }, { $set: { revokedAt: new Date() } });
      return r.modifiedCount;
    },

    listForUser: (userId: string) => Keys.find({ userId }).sort({ createdAt: -1 }).lean<ApiKeyDoc[]>().exec(),
  };
}

export type ApiKeyRepo = ReturnType<typeof createApiKeyRepo>;
