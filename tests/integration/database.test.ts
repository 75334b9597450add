/**
 * What the product relies on from its database, checked against the one the tests run on (FerretDB v2
 * on PostgreSQL with DocumentDB here; MongoDB when MONGODB_URI is set): single-document atomicity
 * under concurrent callers, unique indexes reporting MongoDB's duplicate-key error, and the query
 * features the repositories use. A database upgrade that breaks one of these fails here first.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { mongo as driver } from 'mongoose';
type Collection = driver.Collection;
type Db = driver.Db;
import { loadConfig } from '../../models/config';
import { connectMongo, writeRacingOnUniqueKey, type MongoHandle } from '../../models/infra/mongo';
import { isDatabaseUnavailable } from '../../models/infra/database-faults.rules';
import { analyze, devPostgres, vacuumCollection } from '../../ops/dev-database';

let mongo: MongoHandle;
let db: Db;
const created: Collection[] = [];
async function collection(): Promise<Collection> {
  const c = db.collection(`contract_${randomUUID().replace(/-/g, '').slice(0, 12)}`);
  created.push(c);
  return c;
}

beforeAll(async () => {
  mongo = connectMongo(loadConfig());
  db = (await mongo.ready).db! as unknown as Db;
});
afterAll(async () => {
  for (const c of created) await c.drop().catch(() => undefined);
  await mongo?.close();
});

it('applies 100 concurrent $inc on one document, none lost', async () => {
  const c = await collection();
  await c.insertOne({ _id: 'counter' as never, n: 0 });
  await Promise.all(Array.from({ length: 100 }, () => c.updateOne({ _id: 'counter' as never }, { $inc: { n: 1 } })));
  expect((await c.findOne({ _id: 'counter' as never }))?.n).toBe(100);
});

it('gives a conditional findOneAndUpdate to exactly one of 50 concurrent callers', async () => {
  const c = await collection();
  await c.insertOne({ _id: 'job' as never, owner: null });
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) => c.findOneAndUpdate({ _id: 'job' as never, owner: null }, { $set: { owner: `w${i}` } }, { returnDocument: 'after' })),
  );
  const winners = results.filter((r) => r !== null);
  expect(winners).toHaveLength(1);
  expect((await c.findOne({ _id: 'job' as never }))?.owner).toBe(winners[0]!.owner);
});

it('lets one of 20 concurrent inserts under a unique index through, and reports the rest as code 11000, round after round', async () => {
  const c = await collection();
  await c.createIndex({ key: 1 }, { unique: true });
  // Through the helper every racing insert uses: DocumentDB may abort some as PostgreSQL deadlocks.
  // Ten rounds, because one round rarely shows a herd of losers deadlocking on each other again.
  for (let round = 0; round < 10; round += 1) {
    const settled = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => writeRacingOnUniqueKey(() => c.insertOne({ key: `same-${round}`, i }))));
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(1);
    const codes = settled.flatMap((s) => (s.status === 'rejected' ? [(s.reason as { code?: number }).code] : []));
    expect(codes).toEqual(Array(19).fill(11000));
  }
  expect(await c.countDocuments()).toBe(10);
});

it('sorts, limits and counts through a compound index, and groups with $group/$cond', async () => {
  const c = await collection();
  await c.createIndex({ status: 1, createdAt: -1 });
  const base = Date.UTC(2026, 0, 1);
  await c.insertMany(Array.from({ length: 300 }, (_, i) => ({ status: i % 3 === 0 ? 'open' : 'closed', createdAt: new Date(base + i * 60_000) })));
  const page = await c.find({ status: 'open' }).sort({ createdAt: -1 }).limit(5).toArray();
  expect(page.map((d) => (d.createdAt as Date).getTime())).toEqual([297, 294, 291, 288, 285].map((i) => base + i * 60_000));
  expect(await c.countDocuments({ status: 'open' })).toBe(100);
  const [grouped] = await c
    .aggregate([{ $group: { _id: null, open: { $sum: { $cond: [{ $eq: ['$status', 'open'] }, 1, 0] } }, all: { $sum: 1 } } }])
    .toArray();
  expect(grouped).toMatchObject({ open: 100, all: 300 });
});

/** Field names of the stored document, in order, read from its raw BSON (duplicates included). */
async function storedFieldNames(c: Collection, id: string): Promise<string[]> {
  const raw = (await c.findOne({ _id: id as never }, { raw: true })) as unknown as Buffer;
  const names: string[] = [];
  for (let p = 4; p < raw.length - 1; ) {
    const type = raw[p++]!;
    const end = raw.indexOf(0, p);
    names.push(raw.toString('utf8', p, end));
    p = end + 1;
    const sizes: Record<number, () => number> = { 0x01: () => 8, 0x02: () => 4 + raw.readInt32LE(p), 0x03: () => raw.readInt32LE(p), 0x04: () => raw.readInt32LE(p), 0x08: () => 1, 0x09: () => 8, 0x0a: () => 0, 0x10: () => 4, 0x12: () => 8 };
    p += sizes[type]!();
  }
  return names;
}

it('keeps one copy of an array that $addToSet leaves unchanged while another operator changes the document', async () => {
  // DocumentDB 0.106 wrote the array twice (and doubled it on every repeat); our build is patched (ops/postgres.ts).
  const c = await collection();
  await c.insertOne({ _id: 'prefs' as never, sectors: ['AGR'], weights: { AGR: 1 } });
  for (let i = 0; i < 3; i += 1) {
    const res = await c.updateOne({ _id: 'prefs' as never }, { $addToSet: { sectors: 'AGR' }, $set: { 'weights.AGR': i + 2 } });
    expect(res.modifiedCount).toBe(1);
  }
  expect(await storedFieldNames(c, 'prefs')).toEqual(['_id', 'sectors', 'weights']);
  expect(await c.findOne({ _id: 'prefs' as never })).toEqual({ _id: 'prefs', sectors: ['AGR'], weights: { AGR: 4 } });
  // Adding nothing at all is still no modification; adding a new value still appends it.
  expect((await c.updateOne({ _id: 'prefs' as never }, { $addToSet: { sectors: { $each: ['AGR'] } } })).modifiedCount).toBe(0);
  await c.updateOne({ _id: 'prefs' as never }, { $addToSet: { sectors: { $each: ['AGR', 'ENE'] } }, $set: { x: 1 } });
  expect(await c.findOne({ _id: 'prefs' as never })).toMatchObject({ sectors: ['AGR', 'ENE'], x: 1 });
  expect(await storedFieldNames(c, 'prefs')).toEqual(['_id', 'sectors', 'weights', 'x']);
});

it('reads past index entries that vacuum emptied: soft-deleted rows leave the list, count and page right', async () => {
  // A soft delete moves a document out of `{deletedAt: null, _id}`: once vacuum removes its old
  // index item, the entry stays behind empty. DocumentDB's extended RUM failed every scan that
  // crossed such an entry ("lock BufferContent is not held") until our build patched it (ops/postgres.ts).
  const c = await collection();
  await c.createIndex({ deletedAt: 1, _id: -1 });
  await c.insertMany(Array.from({ length: 3000 }, (_, i) => ({ _id: (i + 1) as never, deletedAt: null, subject: `ticket ${i + 1}` })));
  await c.updateMany({ _id: { $mod: [3, 0] } as never }, { $set: { deletedAt: new Date() } });
  const pg = devPostgres(loadConfig());
  if (pg) {
    vacuumCollection(pg, db.databaseName, c.collectionName);
    analyze(pg);
  }
  expect(await c.countDocuments({ deletedAt: null })).toBe(2000);
  const page = await c.find({ deletedAt: null }).sort({ deletedAt: 1, _id: -1 }).skip(10).limit(5).toArray();
  const live = Array.from({ length: 3000 }, (_, i) => 3000 - i).filter((id) => id % 3 !== 0);
  expect(page.map((d) => d._id)).toEqual(live.slice(10, 15));
  const all = await c.find({ deletedAt: null }, { projection: { _id: 1 } }).sort({ deletedAt: 1, _id: -1 }).toArray();
  expect(all).toHaveLength(2000);
  expect(all.some((d) => (d._id as unknown as number) % 3 === 0)).toBe(false);
});

it('reads a long page in order from an array index, over many more pages than a small bitmap holds', async () => {
  // The extended RUM drops repeats of a row in an ordered scan of an array index with a row-id
  // bitmap; sized 1,024 times too small it turned lossy after some 50 heap pages and the query
  // failed ("Cannot iterate over a lossy check on order by") until our build patched it. 20,000
  // small rows fill some 300 heap pages; the page below reads half of them.
  const c = await collection();
  await c.createIndex({ terms: 1, at: -1, _id: -1 });
  const t0 = Date.UTC(2026, 0, 1);
  await c.insertMany(Array.from({ length: 20_000 }, (_, i) => ({ _id: (i + 1) as never, terms: ['cobre', 'preco', `t${i % 7}`], at: new Date(t0 + i * 60_000), title: `Cobre e preço ${i}` })));
  analyze(devPostgres(loadConfig()));
  const page = await c.find({ terms: { $all: ['cobre', 'preco'] } }, { projection: { _id: 1 } }).sort({ at: -1, _id: -1 }).limit(10_000).toArray();
  expect(page.map((d) => d._id)).toEqual(Array.from({ length: 10_000 }, (_, i) => 20_000 - i));
  const one = await c.find({ terms: 't3' }, { projection: { _id: 1 } }).sort({ at: -1, _id: -1 }).limit(2_000).toArray();
  expect(one).toHaveLength(2_000);
  expect(one.every((d) => (d._id as unknown as number) % 7 === 4)).toBe(true);
});

/** Lines of the development database's log that say a backend ended by a signal (a crash). */
function backendCrashes(): string[] {
  const dir = process.env.DATA_DIR;
  if (!dir || !devPostgres(loadConfig())) return [];
  try {
    return readFileSync(path.join(dir, 'logs', 'postgres.log'), 'utf8').split('\n').filter((l) => /terminated by signal/.test(l));
  } catch {
    return [];
  }
}

describe('queries whose results take several batches', () => {
  const N = 12_000;
  let c: Collection;
  let crashesBefore: number;
  const ids = Array.from({ length: N }, (_, i) => `d-${String(i).padStart(6, '0')}`);
  // Sorted by `at` descending, then _id descending: the order the index below serves.
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + ((i * 7_919) % N) * 60_000);
  const expectedSorted = [...ids.keys()].sort((a, b) => at(b).getTime() - at(a).getTime() || (ids[b]! < ids[a]! ? -1 : 1)).map((i) => ids[i]);

  beforeAll(async () => {
    crashesBefore = backendCrashes().length;
    c = await collection();
    for (let i = 0; i < N; i += 4_000) {
      await c.insertMany(ids.slice(i, i + 4_000).map((id, j) => ({ _id: id as never, at: at(i + j), body: 'texto '.repeat(60) })));
    }
    await c.createIndex({ at: -1, _id: -1 });
  }, 120_000);

  it.each([150, 1_000, 10_000])('returns a find with limit %i whole, unsorted and sorted', async (limit) => {
    const unsorted = await c.find({}, { projection: { _id: 1 } }).limit(limit).toArray();
    expect(new Set(unsorted.map((d) => d._id)).size).toBe(limit);
    const sorted = await c.find({}, { projection: { _id: 1 } }).sort({ at: -1, _id: -1 }).limit(limit).toArray();
    expect(sorted.map((d) => d._id)).toEqual(expectedSorted.slice(0, limit));
  });

  it('returns a find with no limit over the whole collection', async () => {
    const all = await c.find({}, { projection: { _id: 1 } }).toArray();
    expect(all.map((d) => d._id as unknown as string).sort()).toEqual(ids);
  });

  it('answers a getMore after a pause with the rest of the cursor', async () => {
    const cursor = c.find({}, { projection: { _id: 1 }, batchSize: 100 }).sort({ at: -1, _id: -1 }).limit(500);
    const first: unknown[] = [];
    for (let i = 0; i < 100; i += 1) first.push((await cursor.next())?._id);
    await new Promise((r) => setTimeout(r, 3_000));
    const rest = (await cursor.toArray()).map((d) => d._id);
    expect([...first, ...rest]).toEqual(expectedSorted.slice(0, 500));
  });

  it('lets a cursor abandoned half-read go, and the next queries answer', async () => {
    const cursor = c.find({}, { batchSize: 50 }).sort({ at: -1, _id: -1 });
    for (let i = 0; i < 75; i += 1) await cursor.next();
    await cursor.close();
    const abandoned = c.find({}, { batchSize: 50 });
    await abandoned.next(); // never closed: the server's cursor timeout or the session ends it
    expect(await c.countDocuments({})).toBe(N);
    expect((await c.find({}).sort({ at: -1, _id: -1 }).skip(5_000).limit(3).toArray()).map((d) => d._id)).toEqual(expectedSorted.slice(5_000, 5_003));
  });

  it('cancels a read past its maxTimeMS on the server, as an outage the services answer 503', async () => {
    const err = await c.find({ body: { $regex: 'nada-disso$' } }, { maxTimeMS: 1 }).toArray().then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ code: 50 }); // MaxTimeMSExpired, on MongoDB and on DocumentDB alike
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  // Last of the block (Jest runs a file's tests in order): the log since the block began.
  it('ended no backend of the development database by a signal meanwhile', () => {
    expect(backendCrashes().slice(crashesBefore)).toEqual([]);
  });
});
