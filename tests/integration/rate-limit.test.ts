/**
 * The shared rate limiter against the real database: exact counts under concurrent first requests
 * (no request lost, none answered as a database failure), a window that restarts once it ends, and
 * two processes counting between syncs (the over-admission bounded by one sync, then both refuse).
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import { createMongoLimiter } from '../../api/shared/rate-limit';
import { loadConfig } from '../../models/config';
import { connectMongo, type MongoHandle } from '../../models/infra/mongo';

let mongo: MongoHandle;
beforeAll(async () => {
  mongo = connectMongo(loadConfig());
  // Until connected a limiter answers 503 (it does not wait for the connection): tested in platform.test.ts.
  await mongo.ready;
});
afterAll(() => mongo?.close());

const ctx = () => {
  const headers: Record<string, string> = {};
  return { headers, set: (k: string, v: string) => (headers[k] = v) } as unknown as Context & { headers: Record<string, string> };
};
const outcome = (p: Promise<void>) => p.then(() => 'ok', (err: { code?: string }) => err.code ?? String(err));

it('lets exactly the limit through when 30 first requests arrive at once, and refuses the rest with 429', async () => {
  const limiter = createMongoLimiter(mongo.ready, loadConfig().mongo.db, { name: `test-${randomUUID()}`, points: 10, durationSec: 60, syncMs: 1000 });
  const results = await Promise.all(Array.from({ length: 30 }, () => outcome(limiter.consume(ctx(), 'key:same'))));
  expect(results.filter((r) => r === 'ok')).toHaveLength(10);
  expect(results.filter((r) => r === 'RATE_LIMITED')).toHaveLength(20);
  expect(await limiter.used('key:same')).toMatchObject({ count: 30 });
});

it('opens a new window once the last one has ended', async () => {
  const limiter = createMongoLimiter(mongo.ready, loadConfig().mongo.db, { name: `test-${randomUUID()}`, points: 2, durationSec: 1, syncMs: 1000 });
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

it('two processes counting between syncs: each admits on its own view, and once both have synced both refuse', async () => {
  const options = { name: `test-${randomUUID()}`, points: 10, durationSec: 60, syncMs: 60_000 };
  const [a, b] = [createMongoLimiter(mongo.ready, loadConfig().mongo.db, options), createMongoLimiter(mongo.ready, loadConfig().mongo.db, options)];
  const admitted = async (limiter: typeof a, n: number) => {
    let ok = 0;
    for (let i = 0; i < n; i++) if ((await outcome(limiter.consume(ctx(), 'key:shared'))) === 'ok') ok++;
    return ok;
  };
  expect(await admitted(a, 6)).toBe(6);
  // b opens its view from the store, where a has synced only its first request.
  expect(await admitted(b, 6)).toBe(6);
  // The over-admission is bounded by one sync interval; the syncs show both processes the whole count.
  expect(await a.used('key:shared')).toMatchObject({ count: 7 });
  expect(await b.used('key:shared')).toMatchObject({ count: 12 });
  await a.used('key:shared');
  expect(await outcome(a.consume(ctx(), 'key:shared'))).toBe('RATE_LIMITED');
  expect(await outcome(b.consume(ctx(), 'key:shared'))).toBe('RATE_LIMITED');
  // Refused requests count too; a's is in the store once a has synced.
  expect(await b.used('key:shared')).toMatchObject({ count: 13 });
  await a.used('key:shared');
  expect(await b.used('key:shared')).toMatchObject({ count: 14 });
});

it('syncMs 0 counts every request in the store: two processes together admit exactly the limit', async () => {
  const options = { name: `test-${randomUUID()}`, points: 10, durationSec: 60, syncMs: 0 };
  const [a, b] = [createMongoLimiter(mongo.ready, loadConfig().mongo.db, options), createMongoLimiter(mongo.ready, loadConfig().mongo.db, options)];
  const results = await Promise.all(Array.from({ length: 30 }, (_, i) => outcome((i % 2 ? a : b).consume(ctx(), 'key:strict'))));
  expect(results.filter((r) => r === 'ok')).toHaveLength(10);
});

it('counts down exactly across syncs within one process', async () => {
  const limiter = createMongoLimiter(mongo.ready, loadConfig().mongo.db, { name: `test-${randomUUID()}`, points: 100, durationSec: 60, syncMs: 100 });
  const seen: string[] = [];
  for (let i = 1; i <= 100; i++) {
    const c = ctx();
    await limiter.consume(c, 'key:down');
    seen.push(c.headers['X-RateLimit-Remaining']!);
    if (i % 25 === 0) await new Promise((r) => setTimeout(r, 250)); // let the syncs run
  }
  expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => String(99 - i)));
  expect(await outcome(limiter.consume(ctx(), 'key:down'))).toBe('RATE_LIMITED');
});
