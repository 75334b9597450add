/**
 * The database alone, without our services: `npm run bench:database` (or with MONGODB_URI set, any
 * MongoDB-protocol server). Stores BENCH_DOCS article-shaped documents (100,000) once in the
 * database `bench_database`, then sends BENCH_REQUESTS queries per shape from BENCH_CONNECTIONS
 * (50) concurrent callers and prints one Markdown row per shape: sorted pages of one sector read
 * in one batch and as a cursor, the same page deep (skip 1,000), a page's exact count, and a read
 * by `_id`. Used to choose the development database's versions and settings (docs/benchmarks.md).
 *
 * On the development database it runs every shape twice, with DocumentDB's file-based persisted
 * cursors off (the setting of ops/postgres.ts since issue 34: on, a find needing a second batch
 * crashed the backend) and on (BENCH_CURSOR_SETTINGS=off,on), switched with ALTER SYSTEM and a
 * reload, and adds the shapes the setting was adopted for: a sorted find read as a cursor, a find
 * of 150 documents (two batches), an aggregate with $sort. Backends that ended by a signal during
 * a run are counted from postgres.log.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MongoClient, type Document } from 'mongodb';
import { parseConfig } from '../../models/config';
import { analyze, devPostgres, sql, type DevPostgres } from '../dev-database';
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
    const pg = devPostgres(parseConfig(process.env));
    // Statistics first: straight after the load the planner may still sort instead of reading in order.
    analyze(pg);
    const settings = pg ? (process.env.BENCH_CURSOR_SETTINGS ?? 'off,on').split(',') : ['(MongoDB)'];
    for (const setting of settings) {
      if (pg) {
        cursorSetting(pg, setting === 'on');
        // FerretDB's pooled connections to the ended backends fail once each: use them up.
        await closedLoop(CONNECTIONS, 4 * CONNECTIONS, () => col.find({}, { limit: 1, singleBatch: true }).toArray().catch(() => undefined));
      }
      const crashesBefore = pg ? backendCrashes() : 0;
      print(`\n${pg ? `documentdb.useFileBasedPersistedCursors = ${setting}` : 'MongoDB'}:\n`);
      print('| query | p50 | p99 | per second |');
      print('|---|---:|---:|---:|');
      await shapes(col, db, sort);
      if (pg) print(`\nbackends ended by a signal during the run: ${backendCrashes() - crashesBefore}`);
    }
    if (pg) cursorSetting(pg, undefined);
  } finally {
    await client.close();
  }
}

/**
 * Sets the cursor setting for the database FerretDB connects to (with undefined, back to the
 * server's own), then ends FerretDB's pooled backends so its next ones start with it (a database
 * setting outranks the server's command line, and applies from a session's start).
 */
function cursorSetting(pg: DevPostgres, on: boolean | undefined): void {
  sql(pg, on === undefined ? 'ALTER DATABASE postgres RESET documentdb.useFileBasedPersistedCursors' : `ALTER DATABASE postgres SET documentdb.useFileBasedPersistedCursors = ${on ? 'on' : 'off'}`);
  sql(pg, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND datname = 'postgres'");
}

/** "terminated by signal" lines in the stack's postgres.log so far. */
function backendCrashes(): number {
  try {
    return (readFileSync(path.join(process.env.DATA_DIR ?? '', 'logs', 'postgres.log'), 'utf8').match(/terminated by signal/g) ?? []).length;
  } catch {
    return 0;
  }
}

async function shapes(col: ReturnType<ReturnType<MongoClient['db']>['collection']>, db: ReturnType<MongoClient['db']>, sort: Record<string, 1 | -1>): Promise<void> {
  {
    await measure('sector page, newest first, one batch', (i) => col.find({ primarySector: SECTORS[i % 5] }, { sort, limit: 21, singleBatch: true }).toArray());
    await measure('sector page, newest first, cursor', (i) => col.find({ primarySector: SECTORS[i % 5] }, { sort, limit: 21 }).toArray());
    await measure('sector page at offset 1,000, one batch', (i) => col.find({ primarySector: SECTORS[i % 5] }, { sort, skip: 1_000, limit: 21, singleBatch: true }).toArray());
    await measure('all, newest first, one batch', () => col.find({}, { sort, limit: 21, singleBatch: true }).toArray());
    await measure('exact count of a sector', (i) => db.command({ count: 'articles', query: { primarySector: SECTORS[i % 5] } }));
    await measure('findOne by _id', (i) => col.findOne({ _id: `a-${String((i * 7_919) % DOCS).padStart(8, '0')}` as never }));
    await measure('8 documents, sorted, cursor', (i) => col.find({ primarySector: SECTORS[i % 5] }, { sort, limit: 8, projection: { title: 1 } }).toArray());
    await measure('150 documents (two batches)', (i) => col.find({ primarySector: SECTORS[i % 5] }, { limit: 150, projection: { title: 1 } }).toArray());
    await measure('aggregate, $sort and $limit 20', (i) => col.aggregate([{ $match: { primarySector: SECTORS[i % 5] } }, { $sort: sort }, { $limit: 20 }, { $project: { title: 1 } }]).toArray());
  }
}

main().catch((err: unknown) => {
  say(`failed: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
