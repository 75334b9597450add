/**
 * The reports' cache (issue 14; spec §2.6): one document per report and distinct set of
 * parameters, shared by every process, removed by the database itself when it expires (a TTL
 * index; reads also ignore an expired document the TTL monitor has not removed yet), and kept in
 * each process's memory for ten seconds at most (a hit then costs no round trip). Two requests
 * for the same uncached report compute it once: in a process, they share one promise; across
 * processes, the first claims a lock document and the others wait for its result.
 */
import { createHash } from 'node:crypto';
import type { Connection } from 'mongoose';
import { buildIndexesRacing, collectionOf, isDuplicateKey } from '../infra/mongo';

export interface ReportCacheDoc {
  _id: string;
  report: string;
  params: Record<string, unknown>;
  data: unknown;
  computedAt: Date;
  expiresAt: Date;
}

interface LockDoc {
  _id: string;
  expiresAt: Date;
}

export interface CacheInfo {
  hit: boolean;
  /** Seconds since it was computed (hits only). */
  age?: number;
  /** Seconds until it expires (hits only). */
  expiresIn?: number;
}

/**
 * The reports' shape: raised when a report's fields change (2: the channel, issue 39), so a
 * deploy never answers a copy computed by the code before it, which would lack them.
 */
export const REPORT_SHAPE = 2;

/** Sorted keys, no undefined values: the same parameters give the same key whatever their order. */
export function cacheKey(report: string, params: Record<string, unknown>): string {
  const canonical = JSON.stringify({ shape: REPORT_SHAPE, params: Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b))) });
  return `${report}:${createHash('sha256').update(canonical).digest('base64url').slice(0, 32)}`;
}

/** How long a process serves a report from its memory before it reads MongoDB's copy again. */
export const LOCAL_CACHE_MS = 10_000;
/** Reports a process keeps in memory at most (the least recently stored go first). */
const LOCAL_CACHE_ENTRIES = 500;

export function createReportCache(conn: Connection, options: { ttlMs: number; lockMs?: number; localMs?: number; now?: () => Date }) {
  const entries = () => collectionOf<ReportCacheDoc>(conn, 'report_cache');
  const locks = () => collectionOf<LockDoc>(conn, 'report_cache_locks');
  const now = options.now ?? (() => new Date());
  const lockMs = options.lockMs ?? 60_000;
  const inFlight = new Map<string, Promise<{ data: unknown; computedAt: Date; expiresAt: Date }>>();
  let indexed: Promise<unknown> | undefined;
  const ensureIndexes = () =>
    (indexed ??= buildIndexesRacing(() =>
      Promise.all([
        entries().createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'expires' }),
        locks().createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'expires' }),
      ]),
    ).catch((err) => {
      indexed = undefined;
      throw err;
    }));

  const localMs = options.localMs ?? LOCAL_CACHE_MS;
  // The shared copy in MongoDB is the truth; a process also keeps what it read or computed, for
  // `localMs` (a recomputation elsewhere reaches it within that), and never past its expiry.
  const local = new Map<string, { doc: ReportCacheDoc; until: number }>();
  const remember = (doc: ReportCacheDoc) => {
    local.delete(doc._id);
    local.set(doc._id, { doc, until: Math.min(now().getTime() + localMs, doc.expiresAt.getTime()) });
    if (local.size > LOCAL_CACHE_ENTRIES) local.delete(local.keys().next().value!);
    return doc;
  };
  const read = async (key: string) => {
    const doc = await entries().findOne({ _id: key, expiresAt: { $gt: now() } });
    return doc ? remember(doc) : null;
  };
  const readLocal = (key: string) => {
    const kept = local.get(key);
    if (kept && kept.until > now().getTime()) return kept.doc;
    local.delete(key);
    return undefined;
  };

  async function computeOnce(key: string, report: string, params: Record<string, unknown>, compute: () => Promise<unknown>, ttlMs: number) {
    // Another process computing it: wait for its result (bounded by its lock), then compute ourselves.
    const askedAt = now().getTime();
    let claimed = false;
    for (const until = Date.now() + lockMs; Date.now() < until; ) {
      try {
        await locks().insertOne({ _id: key, expiresAt: new Date(now().getTime() + lockMs) });
        claimed = true;
        break;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      await new Promise((r) => setTimeout(r, 100));
      const done = await read(key);
      if (done && done.computedAt.getTime() >= Date.now() - lockMs) return done;
      await locks().deleteOne({ _id: key, expiresAt: { $lt: now() } });
    }
    try {
      // The lock is free again when its holder has stored the report: what it stored since we asked
      // is our answer (checked after claiming, or a waiter that claims the freed lock computes again).
      const since = claimed ? await read(key) : null;
      if (since && since.computedAt.getTime() >= askedAt) return since;
      const data = await compute();
      const computedAt = now();
      const doc: ReportCacheDoc = { _id: key, report, params, data, computedAt, expiresAt: new Date(computedAt.getTime() + ttlMs) };
      await entries().replaceOne({ _id: key }, doc, { upsert: true });
      return remember(doc);
    } finally {
      if (claimed) await locks().deleteOne({ _id: key }).catch(() => undefined);
    }
  }

  return {
    ensureIndexes,
    /**
     * The cached report, else computes it once (`fresh`: computes it again whatever is cached). A
     * computed copy is kept for `ttlMs` (the cache's, unless a shorter life suits the report).
     */
    async get<T>(report: string, params: Record<string, unknown>, compute: () => Promise<T>, fresh = false, ttlMs = options.ttlMs): Promise<{ data: T; cache: CacheInfo }> {
      await ensureIndexes();
      const key = cacheKey(report, params);
      if (!fresh) {
        const cached = readLocal(key) ?? (await read(key));
        if (cached) {
          const at = now().getTime();
          return {
            data: cached.data as T,
            cache: { hit: true, age: Math.floor((at - cached.computedAt.getTime()) / 1000), expiresIn: Math.max(0, Math.ceil((cached.expiresAt.getTime() - at) / 1000)) },
          };
        }
      }
      let pending = inFlight.get(key);
      if (!pending) {
        pending = computeOnce(key, report, params, compute, ttlMs).finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      const doc = await pending;
      return { data: doc.data as T, cache: { hit: false } };
    },
  };
}

export type ReportCache = ReturnType<typeof createReportCache>;
