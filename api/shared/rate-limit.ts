/**
 * Rate limits counted in MongoDB (rate-limiter-flexible), so every process shares them. Every
 * limited response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (epoch
 * seconds when the window resets); a 429 adds Retry-After (seconds).
 *
 * One document per key (`_id` = the key): a window opens at the key's first request and lasts the
 * limit's duration, as rate-limiter-flexible's own stores count. Counting is an atomic `$inc` on
 * the primary key while the window is open; an ended window is restarted by a conditional update,
 * a missing one by an insert, and concurrent first requests meet as a duplicate `_id` (E11000) and
 * count again. rate-limiter-flexible's Mongo store keys its documents by a secondary unique `key`
 * and upserts with an expiry filter; on the development database that upsert's key conflicts come
 * back as an unmapped error (PostgreSQL's exclusion violation, not E11000), which surfaced as 503s
 * under load, and each call cost 3.7 ms against 0.7 ms for an `_id` update (docs/benchmarks.md).
 *
 * A process does not write every request: it counts locally and adds its counts to the shared
 * window every `RATE_LIMIT_SYNC_MS` (SyncedWindows below; decisions.md, "Rate limits counted in
 * the process between syncs").
 */
import type { Context } from 'koa';
import { LRUCache } from 'lru-cache';
import type { Connection, mongo } from 'mongoose';
import { RateLimiterRes } from 'rate-limiter-flexible';
import RateLimiterStoreAbstract from 'rate-limiter-flexible/lib/RateLimiterStoreAbstract';
import { AppError, dependencyUnavailable } from '../../models/errors';
import { isDuplicateKey } from '../../models/infra/mongo';

export interface Limiter {
  readonly points: number;
  /** Counts one request for `key`; sets the headers; throws RATE_LIMITED (429) past the limit. */
  consume(ctx: Context, key: string): Promise<void>;
  /** Requests counted for `key` in the current window, and when the window resets. */
  used(key: string): Promise<{ count: number; resetAt: Date }>;
}

export const RATE_LIMIT_COLLECTION = 'rate_limit_windows';

interface WindowDoc {
  _id: string;
  points: number;
  expire: Date;
}

function headers(points: number, res: Counted): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(points),
    'X-RateLimit-Remaining': String(Math.max(0, points - res.consumed)),
    'X-RateLimit-Reset': String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)),
  };
}

/**
 * A rate-limiter-flexible store — the library's store base class with the four methods its own
 * stores implement (`_upsert`, `_get`, `_delete`, `_getRateLimiterRes`) — keeping `_id`-keyed
 * windows in a MongoDB collection (see above).
 */
class KeyedMongoLimiter extends RateLimiterStoreAbstract {
  constructor(
    private readonly windows: mongo.Collection<WindowDoc>,
    options: { keyPrefix: string; points: number; duration: number },
  ) {
    super({ ...options, storeClient: windows });
  }

  async _upsert(rlKey: string, points: number, msDuration: number, forceExpire = false): Promise<WindowDoc> {
    const after = { returnDocument: 'after' } as const;
    for (;;) {
      const now = new Date();
      const expire = new Date(now.getTime() + msDuration);
      if (forceExpire) {
        return (await this.windows.findOneAndUpdate({ _id: rlKey }, { $set: { points, expire } }, { ...after, upsert: true }))!;
      }
      const counted = await this.windows.findOneAndUpdate({ _id: rlKey, expire: { $gt: now } }, { $inc: { points } }, after);
      if (counted) return counted;
      const restarted = await this.windows.findOneAndUpdate({ _id: rlKey, expire: { $lte: now } }, { $set: { points, expire } }, after);
      if (restarted) return restarted;
      try {
        await this.windows.insertOne({ _id: rlKey, points, expire });
        return { _id: rlKey, points, expire };
      } catch (err) {
        if (!isDuplicateKey(err)) throw err; // another request opened the window: count in it
      }
    }
  }

  async _get(rlKey: string): Promise<WindowDoc | null> {
    return await this.windows.findOne({ _id: rlKey, expire: { $gt: new Date() } });
  }

  async _delete(rlKey: string): Promise<boolean> {
    return (await this.windows.deleteOne({ _id: rlKey })).deletedCount > 0;
  }

  /** The library's answer for a window: points used and left, and the time until it resets. */
  _getRateLimiterRes(_rlKey: string, changedPoints: number, doc: WindowDoc): RateLimiterRes {
    const consumed = doc.points;
    return new RateLimiterRes(Math.max(this.points - consumed, 0), Math.max(doc.expire.getTime() - Date.now(), 0), consumed, consumed === changedPoints);
  }
}

/** A key's count in its current window, and the time until that window ends. */
export interface Counted {
  consumed: number;
  msBeforeNext: number;
}

/** A process's view of one key's window: the shared count at the last sync, plus its own since. */
interface LocalWindow {
  consumed: number;
  pending: number;
  /** Counts a sync is adding to the store now (still this process's, until the store answers). */
  syncing?: number;
  resetAt: number;
  /** Set while the first request of the window counts it in the database. */
  opening?: Promise<void>;
}

/**
 * Counts kept in the process between syncs with the shared store, as Kong's `sync_rate` does: the
 * first request of a key's window (in this process) counts it in the store and learns the shared
 * count; later requests count locally, and every `syncMs` the local counts are added to the store
 * in one `$inc` per key, which returns the shared count that other processes added meanwhile. A
 * request therefore waits on the database once per key and window, not every time. A key can pass
 * its limit by what the other processes admitted since their last sync (at most `syncMs` of their
 * traffic); counts still unsynced when a window ends are dropped with it. A failed sync keeps its
 * counts for the next one. `syncMs` 0 counts every request in the store.
 */
export class SyncedWindows {
  private readonly windows = new Map<string, LocalWindow>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly add: (key: string, n: number) => Promise<Counted>,
    private readonly syncMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many keys' windows the process holds. */
  get size(): number {
    return this.windows.size;
  }

  /** Counts one request of `key`; returns the key's count in its window (this one included). */
  async count(key: string): Promise<Counted> {
    if (this.syncMs <= 0) return await this.add(key, 1);
    for (;;) {
      const w = this.windows.get(key);
      if (w?.opening) {
        await w.opening.catch(() => undefined); // then count in it, or open it again if that failed
        continue;
      }
      const now = this.now();
      if (w && now < w.resetAt) {
        w.pending += 1;
        this.schedule();
        return { consumed: w.consumed + (w.syncing ?? 0) + w.pending, msBeforeNext: w.resetAt - now };
      }
      const opened: LocalWindow = { consumed: 0, pending: 0, resetAt: 0 };
      let counted: Counted | undefined;
      opened.opening = this.add(key, 1).then(
        (c) => {
          counted = c;
          opened.consumed = c.consumed;
          opened.resetAt = this.now() + c.msBeforeNext;
          opened.opening = undefined;
        },
        (err: unknown) => {
          if (this.windows.get(key) === opened) this.windows.delete(key);
          throw err;
        },
      );
      this.windows.set(key, opened);
      await opened.opening;
      this.schedule(); // the sync also forgets ended windows: a key seen once is not kept
      return counted!;
    }
  }

  /**
   * Adds the local counts of every key to the store now; with `only`, of that key alone, and its
   * shared count is read again even when it has nothing to add.
   */
  async sync(only?: string): Promise<void> {
    const now = this.now();
    const failures: unknown[] = [];
    const adds: Promise<void>[] = [];
    for (const [key, w] of this.windows) {
      if ((only !== undefined && key !== only) || w.opening) continue;
      if (now >= w.resetAt) {
        this.windows.delete(key); // ended: its unsynced counts went with it
        continue;
      }
      if (w.pending === 0 && only === undefined) continue;
      const n = w.pending;
      w.pending = 0;
      w.syncing = (w.syncing ?? 0) + n; // counted meanwhile: a request during the sync sees them
      adds.push(
        this.add(key, n).then(
          (c) => {
            w.syncing! -= n;
            // A sync answered after a later one (or a restarted window) must not count backwards.
            w.consumed = Math.max(w.consumed + n, c.consumed);
            w.resetAt = this.now() + c.msBeforeNext;
          },
          (err: unknown) => {
            w.syncing! -= n;
            w.pending += n;
            failures.push(err);
          },
        ),
      );
    }
    await Promise.all(adds);
    if (failures.length > 0) {
      this.schedule();
      throw failures[0];
    }
  }

  private syncing = false;

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.syncing) return this.schedule(); // one timed sync at a time
      this.syncing = true;
      this.sync()
        .catch(() => undefined) // kept and retried: sync() scheduled again
        .finally(() => (this.syncing = false));
    }, this.syncMs);
    this.timer.unref();
  }
}

export function createMongoLimiter(
  ready: Promise<Connection>,
  dbName: string,
  options: { name: string; points: number; durationSec: number; message?: string; syncMs: number },
): Limiter {
  let limiter: Promise<KeyedMongoLimiter> | undefined;
  const get = async () => {
    if (!limiter) {
      // Not connected yet (MongoDB down since the process started): 503 now, not a request that
      // waits for the connection's retries.
      const conn = await Promise.race([ready, new Promise<undefined>((r) => setImmediate(() => r(undefined)))]);
      if (!conn) throw dependencyUnavailable('mongodb');
      limiter ??= (async () => {
        const collection = conn.getClient().db(dbName).collection<WindowDoc>(RATE_LIMIT_COLLECTION);
        // TTL removes ended windows (a returning key restarts its own).
        await collection.createIndex({ expire: 1 }, { expireAfterSeconds: 0 }).catch(() => undefined);
        return new KeyedMongoLimiter(collection, { keyPrefix: options.name, points: options.points, duration: options.durationSec });
      })();
    }
    return await limiter;
  };
  // penalty() adds points without refusing: the limit is applied here, to shared plus local counts.
  const windows = new SyncedWindows(async (key, n) => {
    const res = await (await get()).penalty(key, n);
    return { consumed: res.consumedPoints, msBeforeNext: res.msBeforeNext };
  }, options.syncMs);
  return {
    points: options.points,
    async consume(ctx, key) {
      let counted: Counted;
      try {
        counted = await windows.count(key);
      } catch (err) {
        throw dependencyUnavailable('mongodb', err);
      }
      const h = headers(options.points, counted);
      if (counted.consumed > options.points) {
        const retryAfter = String(Math.max(1, Math.ceil(counted.msBeforeNext / 1000)));
        throw new AppError('RATE_LIMITED', options.message ?? `Rate limit exceeded: ${options.points} requests per ${options.durationSec} s`, {
          headers: { ...h, 'Retry-After': retryAfter },
        });
      }
      for (const [k, v] of Object.entries(h)) ctx.set(k, v);
    },
    async used(key) {
      try {
        await windows.sync(key);
        const res = await (await get()).get(key);
        return { count: res?.consumedPoints ?? 0, resetAt: new Date(Date.now() + (res?.msBeforeNext ?? options.durationSec * 1000)) };
      } catch (err) {
        throw dependencyUnavailable('mongodb', err);
      }
    },
  };
}

/**
 * Failed authentications counted per client (issue 35): `fail` counts one (429 past the limit,
 * which then stands for the rest of the window); `refuseWhileBlocked` answers that 429 before any
 * credential is looked at, so a client past its limit costs no lookup. Which clients are blocked is
 * what this process learned from its own counts: another process learns it at that client's next
 * failure there, from the shared window.
 */
export interface FailureLimiter {
  refuseWhileBlocked(key: string): void;
  fail(ctx: Context, key: string): Promise<void>;
}

export function createFailureLimiter(limiter: Limiter, now: () => number = Date.now): FailureLimiter {
  const blocked = new LRUCache<string, { until: number; error: AppError }>({ max: 10_000 });
  return {
    refuseWhileBlocked(key) {
      const b = blocked.get(key);
      if (!b) return;
      const left = b.until - now();
      if (left <= 0) {
        blocked.delete(key);
        return;
      }
      const error = b.error;
      throw new AppError(error.code, error.message, { headers: { ...error.headers, 'Retry-After': String(Math.max(1, Math.ceil(left / 1000))) } });
    },
    async fail(ctx, key) {
      try {
        await limiter.consume(ctx, key);
      } catch (err) {
        if (err instanceof AppError && err.code === 'RATE_LIMITED') {
          blocked.set(key, { until: now() + Number(err.headers?.['Retry-After'] ?? 1) * 1000, error: err });
        }
        throw err;
      }
    },
  };
}
