/**
 * The database alone, without our services: `npm run bench:database` (or with MONGODB_URI set, any
 * MongoDB-protocol server). Stores BENCH_DOCS article-shaped documents (100,000) once in the
 * database `bench_database`, then sends BENCH_REQUESTS queries per shape from BENCH_CONNECTIONS
 * (50) concurrent callers and prints one Markdown row per shape: sorted pages of one sector read
 * in one batch and as a cursor, the same page deep (skip 1,000), a page's exact count, and a read
 * by `_id`. Used to choose the development database's versions and settings (docs/benchmarks.md).
 */
import { MongoClient, type Document } from 'mongodb';
import { closedLoop, percentile, say } from './load';

const print = (line: string) => process.stdout.write(`${line}\n`);

const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2_000);
const SECTORS = ['ENERGY', 'BANKING', 'MINING', 'RETAIL', 'TECH'];
const LOREM = 'Petrobras anuncia novo plano de investimentos com foco em exploração do pré-sal e transição energética. '.repeat(8);

async function seed(db: ReturnType<MongoClient['db']>): Promise<void> {
  const col = db.collection('articles');
  if ((await db.command({ count: 'articles', query: { seeded: true } })).n === DOCS) return;
  await col.drop().catch(() => undefined);
  const started = Date.now();
  const base = Date.UTC(2026, 0, 1);
  for (let i = 0; i < DOCS; i += 5_000) {
    const batch: Document[] = [];
    for (let j = i; j < Math.min(DOCS, i + 5_000); j += 1) {
      batch.push({
        _id: `a-${String(j).padStart(8, '0')}` as never,
        seeded: true,
        primarySector: SECTORS[j % SECTORS.length],
        publishedAt: new Date(base + ((j * 7_919) % DOCS) * 60_000),
        baseScore: (j * 31) % 101,
        title: `Artigo ${j}`,
        summary: LOREM,
      });
    }
    await col.insertMany(batch, { ordered: false });
  }
  await col.createIndexes([{ key: { primarySector: 1, publishedAt: -1, _id: -1 } }, { key: { publishedAt: -1, _id: -1 } }]);
  say(`stored ${DOCS} documents and their indexes in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function measure(name: string, op: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 100; i += 1) await op(i);
  const { latencies, ms } = await closedLoop(CONNECTIONS, REQUESTS, op);
  const seconds = ms / 1000;
  print(`| ${name} | ${percentile(latencies, 50).toFixed(1)} ms | **${percentile(latencies, 99).toFixed(1)} ms** | ${Math.round(REQUESTS / seconds)} |`);
}

async function main(): Promise<void> {
  const uri = process.env.MONGODB_URI;
  if (!uri) throw new Error('MONGODB_URI is not set (run through npm run bench:database)');
  const client = new MongoClient(uri, { maxPoolSize: CONNECTIONS });
  await client.connect();
  try {
    const db = client.db('bench_database');
    await seed(db);
    const col = db.collection('articles');
    const info = (await db.admin().command({ buildInfo: 1 })) as { version: string; ferretdb?: { version: string } };
    say(`server ${info.ferretdb ? `FerretDB ${info.ferretdb.version}` : `MongoDB ${info.version}`}, ${DOCS} documents, ${CONNECTIONS} callers, ${REQUESTS} requests each`);
    const sort = { publishedAt: -1, _id: -1 } as const;
    print('| query | p50 | p99 | per second |');
    print('|---|---:|---:|---:|');
    await measure('sector page, newest first, one batch', (i) => col.find({ primarySector: SECTORS[i % 5] }, { sort, limit: 21, singleBatch: true }).toArray());
    await measure('sector page, newest first, cursor', (i) => col.find({ primarySector: SECTORS[i % 5] }, { sort, limit: 21 }).toArray());
    await measure('sector page at offset 1,000, one batch', (i) => col.find({ primarySector: SECTORS[i % 5] }, { sort, skip: 1_000, limit: 21, singleBatch: true }).toArray());
    await measure('all, newest first, one batch', () => col.find({}, { sort, limit: 21, singleBatch: true }).toArray());
    await measure('exact count of a sector', (i) => db.command({ count: 'articles', query: { primarySector: SECTORS[i % 5] } }));
    await measure('findOne by _id', (i) => col.findOne({ _id: `a-${String((i * 7_919) % DOCS).padStart(8, '0')}` as never }));
  } finally {
    await client.close();
  }
}

main().catch((err: unknown) => {
  say(`failed: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
