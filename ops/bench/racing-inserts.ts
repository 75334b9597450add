/**
 * Benchmark: inserts racing on one key under a unique index, on the development database, where
 * DocumentDB's exclusion constraints make racing inserts deadlock on each other (docs/decisions.md,
 * "What differs from MongoDB"). For each PostgreSQL `deadlock_timeout` in BENCH_DEADLOCK_TIMEOUTS
 * (set with ALTER SYSTEM and a reload, then put back), BENCH_KEYS keys in turn (default 40) each
 * get BENCH_RACERS concurrent inserts (default 20), repeated by two policies:
 *   - "immediate": up to 5 tries, no pause (the helper before 2026-11-25);
 *   - "product": `writeRacingOnUniqueKey` as the product runs it.
 * One insert per key must win and the rest get E11000; "left deadlocked" counts the inserts that
 * still failed with a deadlock after their last try, which a caller would have seen as a 500.
 * Keep the cores busy beside it (e.g. two `yes > /dev/null`) to see what a loaded CI machine sees.
 *
 * Run with `npm run bench:racing`. Prints Markdown to stdout, progress to stderr. Needs the dev
 * database (not MongoDB, which never deadlocks).
 */
import os from 'node:os';
import type { mongo as driver } from 'mongoose';
import { parseConfig } from '../../models/config';
import { connectMongo, isDuplicateKey, isWriteDeadlock, writeRacingOnUniqueKey } from '../../models/infra/mongo';
import { devPostgres, sql } from '../dev-database';
import { say } from './load';

const print = (line: string) => process.stdout.write(`${line}\n`);
const KEYS = Number(process.env.BENCH_KEYS ?? 40);
const RACERS = Number(process.env.BENCH_RACERS ?? 20);
const TIMEOUTS = (process.env.BENCH_DEADLOCK_TIMEOUTS ?? '100ms,10ms').split(',');

async function immediately<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (err) {
      if (!isWriteDeadlock(err) || attempt >= 5) throw err;
    }
  }
}

const POLICIES = { immediate: immediately, product: writeRacingOnUniqueKey } as const;

async function race(c: driver.Collection, policy: keyof typeof POLICIES) {
  let deadlocks = 0;
  let left = 0;
  let duplicates = 0;
  let winners = 0;
  const started = performance.now();
  for (let k = 0; k < KEYS; k++) {
    const settled = await Promise.allSettled(
      Array.from({ length: RACERS }, (_, i) =>
        POLICIES[policy](async () => {
          try {
            return await c.insertOne({ key: `${policy}-${k}`, i });
          } catch (err) {
            if (isWriteDeadlock(err)) deadlocks += 1;
            throw err;
          }
        }),
      ),
    );
    for (const s of settled) {
      if (s.status === 'fulfilled') winners += 1;
      else if (isDuplicateKey(s.reason)) duplicates += 1;
      else if (isWriteDeadlock(s.reason)) left += 1;
      else throw s.reason;
    }
  }
  return { deadlocks, left, duplicates, winners, seconds: (performance.now() - started) / 1000 };
}

async function main(): Promise<void> {
  const config = parseConfig(process.env);
  const pg = devPostgres(config);
  if (!pg) throw new Error('bench:racing measures the development database (FerretDB on PostgreSQL); MONGODB_URI points elsewhere');
  const mongo = connectMongo(config);
  const conn = await mongo.ready;
  const db = conn.getClient().db(`${config.mongo.db}_bench_racing`);
  const configured = sql(pg, 'show deadlock_timeout')[0]?.[0] ?? '';
  const rows: string[] = [];
  try {
    for (const timeout of TIMEOUTS) {
      sql(pg, `alter system set deadlock_timeout = '${timeout.replace(/[^0-9a-z]/gi, '')}'`);
      sql(pg, 'select pg_reload_conf()');
      for (const policy of Object.keys(POLICIES) as (keyof typeof POLICIES)[]) {
        const c = db.collection(`race_${policy}_${timeout}`);
        await c.drop().catch(() => undefined);
        await c.createIndex({ key: 1 }, { unique: true });
        say(`deadlock_timeout ${timeout}, ${policy}: ${KEYS} keys × ${RACERS} racing inserts…`);
        const r = await race(c, policy);
        const load = os.loadavg()[0]!.toFixed(1);
        rows.push(`| ${timeout} | ${policy} | ${r.winners} of ${KEYS} | ${r.duplicates} | **${r.left}** | ${r.deadlocks} | ${r.seconds.toFixed(1)} s | ${load} |`);
      }
    }
  } finally {
    sql(pg, 'alter system reset deadlock_timeout');
    sql(pg, 'select pg_reload_conf()');
    await db.dropDatabase().catch(() => undefined);
    await mongo.close();
  }
  print(`**${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}; the stack's deadlock_timeout: ${configured}; ${KEYS} keys × ${RACERS} racing inserts:**\n`);
  print('| deadlock_timeout | retry policy | keys with one winner | E11000 | left deadlocked | deadlocks met | time | load (1 min) |');
  print('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) print(r);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
