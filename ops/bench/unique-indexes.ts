/**
 * Benchmark: index build times on the development database (issue 23). For collections of
 * BENCH_INDEX_SIZES documents (default 10,000, 40,000 and 160,000), in a scratch database it
 * drops afterwards: building a plain index, a unique index on one field and a unique compound
 * index (a ticket's id and version: 1,000 ids), then 1,000 single inserts under the unique indexes.
 * On the development database it also names each index's access method (DocumentDB's RUM for
 * unique indexes, its extended RUM for the others). Debian's `rum` built unique indexes in
 * quadratic time (docs/benchmarks.md).
 *
 * Run with `npm run bench:indexes`. Prints Markdown to stdout, progress to stderr.
 */
import os from 'node:os';
import { parseConfig } from '../../models/config';
import { connectMongo } from '../../models/infra/mongo';
import { devPostgres, sql } from '../dev-database';
import { say } from './load';

const print = (line: string) => process.stdout.write(`${line}\n`);
const SIZES = (process.env.BENCH_INDEX_SIZES ?? '10000,40000,160000').split(',').map(Number);
const BATCH = 5_000;

async function main(): Promise<void> {
  const config = parseConfig(process.env);
  const mongo = connectMongo(config);
  const conn = await mongo.ready;
  const db = conn.getClient().db(`${config.mongo.db}_bench_indexes`);
  const pg = devPostgres(config);
  const timed = async (fn: () => Promise<unknown>) => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };
  const rows: string[] = [];
  let methods = '';
  for (const n of SIZES) {
    const c = db.collection(`docs_${n}`);
    await c.drop().catch(() => undefined);
    say(`${n.toLocaleString('en')} documents…`);
    for (let i = 0; i < n; i += BATCH) {
      await c.insertMany(Array.from({ length: Math.min(BATCH, n - i) }, (_, j) => ({ key: `key-${i + j}`, v: i + j, ticketId: `ticket-${(i + j) % 1_000}`, version: Math.floor((i + j) / 1_000) })));
    }
    const plain = await timed(() => c.createIndex({ v: 1 }));
    const unique = await timed(() => c.createIndex({ key: 1 }, { unique: true }));
    const compound = await timed(() => c.createIndex({ ticketId: 1, version: 1 }, { unique: true }));
    const inserts = await timed(async () => {
      for (let i = 0; i < 1_000; i++) await c.insertOne({ key: `more-${i}`, v: n + i, ticketId: `ticket-${i}`, version: -1 - i });
    });
    rows.push(`| ${n.toLocaleString('en')} | ${plain.toFixed(0)} ms | ${unique.toFixed(0)} ms | ${compound.toFixed(0)} ms | ${Math.round(1_000_000 / inserts)} |`);
    if (pg && !methods) {
      methods = sql(pg, `select string_agg(distinct a.amname, ', ') from pg_index x join pg_class i on i.oid = x.indexrelid join pg_am a on a.oid = i.relam where i.relname like 'documents_rum_index_%'`)[0]?.[0] ?? '';
    }
  }
  await db.dropDatabase();
  await mongo.close();
  print(`**${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}${methods ? `; access methods in use: ${methods}` : ''}:**\n`);
  print('| documents | plain index | unique index | unique compound index | single inserts a second under them |');
  print('| ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) print(r);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
