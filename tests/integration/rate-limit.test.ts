/**
 * The shared rate limiter against the real database: exact counts under concurrent first requests
 * (no request lost, none answered as a database failure), and a window that restarts once it ends.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import { createMongoLimiter } from '../../api/shared/rate-limit';
import { loadConfig } from '../../models/config';
import { connectMongo, type MongoHandle } from '../../models/infra/mongo';

let mongo: MongoHandle;
beforeAll(() => {
  mongo = connectMongo(loadConfig());
});
afterAll(() => mongo?.close());

const ctx = () => {
  const headers: Record<string, string> = {};
  return { headers, set: (k: string, v: string) => (headers[k] = v) } as unknown as Context & { headers: Record<string, string> };
};
const outcome = (p: Promise<void>) => p.then(() => 'ok', (err: { code?: string }) => err.code ?? String(err));

it('lets exactly the limit through when 30 first requests arrive at once, and refuses the rest with 429', async () => {
  const limiter = createMongoLimiter(mongo.ready, loadConfig().mongo.db, { name: `test-${randomUUID()}`, points: 10, durationSec: 60 });
  const results = await Promise.all(Array.from({ length: 30 }, () => outcome(limiter.consume(ctx(), 'key:same'))));
  expect(results.filter((r) => r === 'ok')).toHaveLength(10);
  expect(results.filter((r) => r === 'RATE_LIMITED')).toHaveLength(20);
  expect(await limiter.used('key:same')).toMatchObject({ count: 30 });
});

it('opens a new window once the last one has ended', async () => {
  const limiter = createMongoLimiter(mongo.ready, loadConfig().mongo.db, { name: `test-${randomUUID()}`, points: 2, durationSec: 1 });
  const first = ctx();
  await limiter.consume(first, 'key:k');
  await limiter.consume(ctx(), 'key:k');
  expect(await outcome(limiter.consume(ctx(), 'key:k'))).toBe('RATE_LIMITED');
  const reset = Number(first.headers['X-RateLimit-Reset']) * 1000;
  await new Promise((r) => setTimeout(r, Math.max(0, reset - Date.now()) + 50));
  const again = ctx();
  await limiter.consume(again, 'key:k');
  expect(again.headers['X-RateLimit-Remaining']).toBe('1');
});
