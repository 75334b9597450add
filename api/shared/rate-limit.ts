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
 */
import type { Context } from 'koa';
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

function headers(points: number, res: RateLimiterRes): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(points),
    'X-RateLimit-Remaining': String(Math.max(0, res.remainingPoints)),
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

export function createMongoLimiter(
  ready: Promise<Connection>,
  dbName: string,
  options: { name: string; points: number; durationSec: number; message?: string },
): Limiter {
  let limiter: Promise<KeyedMongoLimiter> | undefined;
  const get = () =>
    (limiter ??= ready.then(async (conn) => {
      const collection = conn.getClient().db(dbName).collection<WindowDoc>(RATE_LIMIT_COLLECTION);
      // TTL removes ended windows (a returning key restarts its own).
      await collection.createIndex({ expire: 1 }, { expireAfterSeconds: 0 }).catch(() => undefined);
      return new KeyedMongoLimiter(collection, { keyPrefix: options.name, points: options.points, duration: options.durationSec });
    }));
  return {
    points: options.points,
    async consume(ctx, key) {
      let res: RateLimiterRes;
      try {
        res = await (await get()).consume(key, 1);
      } catch (err) {
        if (err instanceof RateLimiterRes) {
          const h = headers(options.points, err);
          const retryAfter = String(Math.max(1, Math.ceil(err.msBeforeNext / 1000)));
          throw new AppError('RATE_LIMITED', options.message ?? `Rate limit exceeded: ${options.points} requests per ${options.durationSec} s`, {
            headers: { ...h, 'Retry-After': retryAfter },
          });
        }
        throw dependencyUnavailable('mongodb', err);
      }
      for (const [k, v] of Object.entries(headers(options.points, res))) ctx.set(k, v);
    },
    async used(key) {
      try {
        const res = await (await get()).get(key);
        return { count: res?.consumedPoints ?? 0, resetAt: new Date(Date.now() + (res?.msBeforeNext ?? options.durationSec * 1000)) };
      } catch (err) {
        throw dependencyUnavailable('mongodb', err);
      }
    },
  };
}
