/**
 * Leases against the real database (FerretDB here; MongoDB when MONGODB_URI is set): the limit
 * holds under concurrent acquirers, in one process and across two connections standing for two
 * processes; a lease that ran out is taken over and its late release frees nothing; waiting ends
 * with a clear error.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../models/config';
import { createLeases, hostSlotsFrom, LEASES_COLLECTION, LeaseWaitTimeout, type Leases } from '../../models/infra/leases';
import { connectMongo, type MongoHandle } from '../../models/infra/mongo';

let first: MongoHandle;
let second: MongoHandle;
let leases: Leases;
let otherProcess: Leases;
const prefix = `test-${randomUUID()}`;
const keyOf = (name: string) => `${prefix}:${name}`;

beforeAll(async () => {
  first = connectMongo(loadConfig());
  second = connectMongo(loadConfig());
  leases = createLeases(await first.ready);
  otherProcess = createLeases(await second.ready);
});
afterAll(async () => {
  await first?.conn.db?.collection(LEASES_COLLECTION).deleteMany({ _id: { $regex: `^${prefix}` } as never });
  await first?.close();
  await second?.close();
});

/** Runs acquirers that each hold a slot for a while, and returns the most holding at once. */
async function mostAtOnce(acquirers: Leases[], key: string, limit: number): Promise<number> {
  let holding = 0;
  let most = 0;
  await Promise.all(
    acquirers.map(async (l) => {
      const lease = await l.acquire(key, limit, { waitMs: 30_000 });
      holding += 1;
      most = Math.max(most, holding);
      await sleep(25);
      holding -= 1;
      await lease.release();
    }),
  );
  return most;
}

it('never lets more than the limit hold at once among 20 concurrent acquirers', async () => {
  const key = keyOf('twenty');
  expect(await mostAtOnce(Array(20).fill(leases), key, 3)).toBe(3);
  const docs = await first.conn.db!.collection(LEASES_COLLECTION).find({ _id: { $regex: `^${key}#` } as never }).toArray();
  expect(docs.map((d) => d._id).sort()).toEqual([`${key}#0`, `${key}#1`, `${key}#2`]);
  expect(docs.every((d) => d.holder === null)).toBe(true);
});

it('shares the limit between two connections (two processes)', async () => {
  const key = keyOf('two-processes');
  const mixed = Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? leases : otherProcess));
  expect(await mostAtOnce(mixed, key, 2)).toBe(2);

  const a = await leases.acquire(key, 2);
  const b = await leases.acquire(key, 2);
  await expect(otherProcess.acquire(key, 2, { waitMs: 300 })).rejects.toBeInstanceOf(LeaseWaitTimeout);
  await a.release();
  const c = await otherProcess.acquire(key, 2, { waitMs: 300 });
  await b.release();
  await c.release();
});

it('frees a slot on release, once', async () => {
  const key = keyOf('release');
  const held = await leases.acquire(key, 1);
  await expect(leases.acquire(key, 1, { waitMs: 200 })).rejects.toBeInstanceOf(LeaseWaitTimeout);
  await held.release();
  const next = await leases.acquire(key, 1, { waitMs: 200 });
  // Releasing the old lease again frees nothing: the slot is the new holder's.
  await held.release();
  await expect(leases.acquire(key, 1, { waitMs: 200 })).rejects.toBeInstanceOf(LeaseWaitTimeout);
  await next.release();
});

it('takes over a lease that ran out, and the late release does not free the new holder', async () => {
  const key = keyOf('expired');
  const crashed = await leases.acquire(key, 1, { ttlMs: 400 });
  const started = Date.now();
  const taker = await otherProcess.acquire(key, 1, { waitMs: 10_000 });
  expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  await crashed.release();
  await expect(leases.acquire(key, 1, { waitMs: 300 })).rejects.toBeInstanceOf(LeaseWaitTimeout);
  await taker.release();
});

it('keeps a renewed lease past its first TTL, and a lease lost to a taker is not renewed', async () => {
  const key = keyOf('renew');
  const held = await leases.acquire(key, 1, { ttlMs: 400 });
  await sleep(250);
  expect(await held.renew(2_000)).toBe(true);
  await sleep(300); // past the first TTL, within the renewed one
  await expect(otherProcess.acquire(key, 1, { waitMs: 0 })).rejects.toBeInstanceOf(LeaseWaitTimeout);
  await held.release();
  expect(await held.renew(2_000)).toBe(false);

  const lost = await leases.acquire(key, 1, { ttlMs: 200 });
  const taker = await otherProcess.acquire(key, 1, { waitMs: 5_000 });
  expect(await lost.renew(2_000)).toBe(false);
  await expect(leases.acquire(key, 1, { waitMs: 0 })).rejects.toBeInstanceOf(LeaseWaitTimeout);
  await taker.release();
});

it('gives up after waitMs with a clear error, and stops waiting when aborted', async () => {
  const key = keyOf('wait');
  const held = await leases.acquire(key, 1);
  const started = Date.now();
  const err = await leases.acquire(key, 1, { waitMs: 500 }).catch((e: unknown) => e);
  const waited = Date.now() - started;
  expect(err).toBeInstanceOf(LeaseWaitTimeout);
  expect((err as Error).message).toBe(`no free slot of "${key}" (limit 1) within 500 ms`);
  expect(waited).toBeGreaterThanOrEqual(500);
  expect(waited).toBeLessThan(3_000);

  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('activity cancelled')), 100);
  await expect(leases.acquire(key, 1, { waitMs: 10_000, signal: controller.signal })).rejects.toThrow('activity cancelled');
  await held.release();
});

it('gives the polite fetcher host slots per origin', async () => {
  const slots = hostSlotsFrom(leases, 1, { waitMs: 200 });
  const origin = `https://${prefix}.example`;
  const release = await slots.acquire(origin);
  await expect(hostSlotsFrom(otherProcess, 1, { waitMs: 200 }).acquire(origin)).rejects.toBeInstanceOf(LeaseWaitTimeout);
  const elsewhere = await slots.acquire(`https://other-${prefix}.example`);
  await release();
  await (await slots.acquire(origin))();
  await elsewhere();
});
