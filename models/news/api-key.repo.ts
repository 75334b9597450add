import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Connection } from 'mongoose';
import { isDuplicateKey, writeRacingOnUniqueKey } from '../infra/mongo';
import { apiKeyModel, type ApiKeyDoc } from './api-key.model';
import { generateApiKey, type KeyMode, type KeyScope } from './api-key.rules';
import type { Plan } from '../shared/plan.rules';
import { userModel } from '../users/user.model';

/** GET /api/keys lists at most this many keys, the newest first. */
export const KEYS_LISTED = 1_000;

export interface CreateKeyInput {
  userId: string;
  name: string;
  mode: KeyMode;
  scopes: KeyScope[];
  expiresAt: Date | null;
  /** The key's public id (a new UUID unless given: one derived from a request's Idempotency-Key). */
  keyId?: string;
}

type KeyWithPlan = { key: ApiKeyDoc; plan: Plan | null };

/** How long a hash found nowhere is remembered as unknown. */
export const UNKNOWN_KEY_CACHE_MS = 60_000;

/**
 * `cacheMs` > 0: the API's process keeps each key it authenticated, with its account's plan, for
 * that long (decisions.md, "API keys and plans cached for seconds"). Revoking through this repo
 * forgets the key at once here; elsewhere (another API process, the CLI, a plan changed by the
 * billing workflow) it takes effect within `cacheMs`. A hash found nowhere is remembered for
 * {@link UNKNOWN_KEY_CACHE_MS} too, so a client repeating a wrong key (a typo, a deleted
 * integration's key, a flood) costs no lookup each time: a key's secret is random, so nobody sends
 * one before it exists.
 */
export function createApiKeyRepo(conn: Connection, options: { cacheMs?: number } = {}) {
  const Keys = apiKeyModel(conn);
  const cache = options.cacheMs ? new LRUCache<string, KeyWithPlan>({ max: 10_000, ttl: options.cacheMs }) : undefined;
  const unknown = options.cacheMs ? new LRUCache<string, true>({ max: 10_000, ttl: UNKNOWN_KEY_CACHE_MS }) : undefined;
  const forgetUser = (userId: string) => {
    for (const [hash, found] of cache?.entries() ?? []) if (found.key.userId === userId) cache!.delete(hash);
  };
  /** Stores the hash and returns the key itself, the only time it exists outside the caller. */
  async function create(input: CreateKeyInput): Promise<{ key: string; record: ApiKeyDoc }> {
    const generated = generateApiKey(input.mode);
    const record = await writeRacingOnUniqueKey(() =>
      Keys.create({
        _id: generated.hash,
        keyId: input.keyId ?? randomUUID(),
        userId: input.userId,
        name: input.name,
        displayPrefix: generated.displayPrefix,
        mode: input.mode,
        scopes: input.scopes,
        expiresAt: input.expiresAt,
      }),
    );
    return { key: generated.key, record: record.toObject() };
  }

  return {
    create,

    /**
     * A key under a given public id (one derived from a request's Idempotency-Key): the key made
     * now (its secret with it), or, when that id was taken by an earlier attempt, that key's
     * record without its secret (only its hash was ever stored).
     */
    async createOnce(
      input: CreateKeyInput & { keyId: string },
      /** Runs when no key has this id yet, before one is made (a check that may refuse by throwing). */
      beforeCreate: () => Promise<void> = async () => undefined,
    ): Promise<{ key: string; record: ApiKeyDoc } | { key: null; record: ApiKeyDoc }> {
      const earlier = await Keys.findOne({ keyId: input.keyId }).lean<ApiKeyDoc>();
      if (earlier) return { key: null, record: earlier };
      await beforeCreate();
      try {
        return await create(input);
      } catch (err) {
        const raced = isDuplicateKey(err) ? await Keys.findOne({ keyId: input.keyId }).lean<ApiKeyDoc>() : null;
        if (!raced) throw err;
        return { key: null, record: raced };
      }
    },

    /**
     * The key with this hash and its account's plan (null without an account), in one command:
     * every API request authenticates, and two reads (key, then account) were half of its
     * database commands (measured on the dev database at 50 callers: 753–1,370 against
     * 1,403–1,683 authentications a second).
     */
    async findByHashWithPlan(keyHash: string): Promise<KeyWithPlan | null> {
      const cached = cache?.get(keyHash);
      if (cached) return cached;
      if (unknown?.has(keyHash)) return null;
      const [found] = await Keys.aggregate<ApiKeyDoc & { plan?: Plan | null }>([
        { $match: { _id: keyHash } },
        { $limit: 1 },
        { $lookup: { from: userModel(conn).collection.collectionName, localField: 'userId', foreignField: '_id', as: 'account' } },
        { $set: { plan: { $arrayElemAt: ['$account.plan', 0] } } },
        { $unset: 'account' },
      ]);
      if (!found) {
        unknown?.set(keyHash, true);
        return null;
      }
      const { plan, ...key } = found;
      const result = { key: key as ApiKeyDoc, plan: plan ?? null };
      cache?.set(keyHash, result);
      return result;
    },

    /** The user's key with this public id, or null. */
    findForUser: (userId: string, keyId: string) => Keys.findOne({ keyId, userId }).lean<ApiKeyDoc>().exec(),

    /** Revokes a key (idempotent). */
    async revoke(keyHash: string): Promise<void> {
      const current = await Keys.findById(keyHash, { revokedAt: 1 }).lean<Pick<ApiKeyDoc, 'revokedAt'>>();
      if (current && !current.revokedAt) await Keys.updateOne({ _id: keyHash }, { $set: { revokedAt: new Date() } });
      cache?.delete(keyHash); // after the write: a read racing it cannot cache the key as active again
    },

    /** The account's active keys (neither revoked nor expired at `now`), live and test. */
    countActive: (userId: string, now: Date) =>
      Keys.countDocuments({ userId, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] }).exec(),

    /** Removes a key that was never shown to anyone (one made past the plan's number of keys). */
    async discard(keyHash: string): Promise<void> {
      await Keys.deleteOne({ _id: keyHash });
      cache?.delete(keyHash);
    },

    /** Records use; callers throttle it (one write per key per minute is plenty). */
    async touch(keyHash: string, at: Date): Promise<void> {
      await Keys.updateOne({ _id: keyHash }, { $set: { lastUsedAt: at } });
    },

    /** Revokes the user's active keys with this name (seed rotation); returns how many. */
    async revokeByName(userId: string, name: string): Promise<number> {
      const r = await Keys.updateMany({ userId, name, revokedAt: null }, { $set: { revokedAt: new Date() } });
      forgetUser(userId);
      return r.modifiedCount;
    },

    /** The account's newest KEYS_LISTED keys (a dashboard list; revoked keys stay listed). */
    listForUser: (userId: string) => Keys.find({ userId }).sort({ createdAt: -1 }).limit(KEYS_LISTED).lean<ApiKeyDoc[]>().exec(),
  };
}

export type ApiKeyRepo = ReturnType<typeof createApiKeyRepo>;
