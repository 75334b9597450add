/**
 * Rate limits counted in MongoDB (rate-limiter-flexible), so every process shares them. Every
 * limited response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (epoch
 * seconds when the window resets); a 429 adds Retry-After (seconds).
 */
import type { Context } from 'koa';
import type { Connection } from 'mongoose';
import { RateLimiterMongo, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError, dependencyUnavailable } from '../../models/errors';

export interface Limiter {
  readonly points: number;
  /** Counts one request for `key`; sets the headers; throws RATE_LIMITED (429) past the limit. */
  consume(ctx: Context, key: string): Promise<void>;
  /** Requests counted for `key` in the current window, and when the window resets. */
  used(key: string): Promise<{ count: number; resetAt: Date }>;
}

export const RATE_LIMIT_COLLECTION = 'rate_limits';

function headers(points: number, res: RateLimiterRes): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(points),
    'X-RateLimit-Remaining': String(Math.max(0, res.remainingPoints)),
    'X-RateLimit-Reset': String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)),
  };
}

export function createMongoLimiter(
  ready: Promise<Connection>,
  dbName: string,
  options: { name: string; points: number; durationSec: number; message?: string },
): Limiter {
  let limiter: Promise<RateLimiterMongo> | undefined;
  const get = () =>
    (limiter ??= ready.then(async (conn) => {
      const collection = conn.getClient().db(dbName).collection(RATE_LIMIT_COLLECTION);
      // TTL removes expired windows; the unique key makes concurrent first requests agree.
      await collection.createIndex({ expire: -1 }, { expireAfterSeconds: 0 }).catch(() => undefined);
      await collection.createIndex({ key: 1 }, { unique: true }).catch(() => undefined);
      return new RateLimiterMongo({
        storeClient: conn.getClient(),
        dbName,
        tableName: RATE_LIMIT_COLLECTION,
        keyPrefix: options.name,
        points: options.points,
        duration: options.durationSec,
        disableIndexesCreation: true,
      });
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
