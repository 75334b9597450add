/**
 * The rate limiter's own cost per request (issue 24): `npm run bench:limiter` (or with MONGODB_URI
 * set, any MongoDB-protocol server). The product's limiter (api/shared/rate-limit.ts) counted two
 * ways over BENCH_KEYS keys (200 clients, each well under its limit, windows already open):
 *  - every request in the database (`RATE_LIMIT_SYNC_MS=0`: one `_id`-keyed upsert a request);
 *  - counted in the process between syncs (the default, 1,000 ms: one upsert a second per key).
 * Each way twice: at full speed (BENCH_CALLS calls, 10,000, from BENCH_CALLERS concurrent callers,
 * 50: the most it can answer) and paced (BENCH_RATE calls a second, 1,000, for BENCH_SECONDS, 10:
 * a steady load, long enough for the syncs to happen). Prints one Markdown row each: p50 and p99
 * of a `consume`, calls a second, and the database commands sent per call (counted by the driver's
 * command monitoring). A `ping` round trip gives the floor of anything that asks a shared store.
 */
import os from 'node:os';
import type { Context } from 'koa';
import mongoose from 'mongoose';
import { createMongoLimiter } from '../../api/shared/rate-limit';
import { closedLoop, percentile, say } from './load';

const CALLS = Number(process.env.BENCH_CALLS ?? 10_000);
const CALLERS = Number(process.env.BENCH_CALLERS ?? 50);
const KEYS = Number(process.env.BENCH_KEYS ?? 200);
const RATE = Number(process.env.BENCH_RATE ?? 1_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

/** An open loop: RATE calls a second for SECONDS, each sent on time whether or not the last was answered. */
async function paced(op: (i: number) => Promise<unknown>): Promise<{ latencies: number[]; ms: number }> {
  const latencies: number[] = [];
  const inFlight: Promise<unknown>[] = [];
  const started = performance.now();
  const total = RATE * SECONDS;
  for (let i = 0; i < total; ) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE));
    for (; i < due; i += 1) {
      const t = performance.now();
      inFlight.push(op(i).then(() => latencies.push(performance.now() - t)));
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all(inFlight);
  return { latencies, ms: performance.now() - started };
}
const print = (line: string) => process.stdout.write(`${line}\n`);
const ctx = { set: () => undefined } as unknown as Context;
const ms = (x: number) => `${x < 1 ? x.toFixed(3) : x.toFixed(2)} ms`;

async function main(): Promise<void> {
  const uri = process.env.MONGODB_URI;
  if (!uri) throw new Error('MONGODB_URI is not set (run through npm run bench:limiter)');
  const conn = await mongoose.createConnection(uri, { dbName: 'bench_limiter', monitorCommands: true }).asPromise();
  let commands = 0;
  conn.getClient().on('commandStarted', () => void (commands += 1));
  const db = conn.getClient().db('bench_limiter');
  await db.dropDatabase();

  print(`Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}; ${KEYS} keys; full speed: ${CALLS} calls from ${CALLERS} callers.\n`);
  print('| counting | consume p50 | consume p99 | calls/s | database commands per call |');
  print('|---|---:|---:|---:|---:|');

  // The floor: one round trip to the database.
  await closedLoop(CALLERS, 500, () => db.command({ ping: 1 }));
  commands = 0;
  const ping = await closedLoop(CALLERS, CALLS, () => db.command({ ping: 1 }));
  print(`| reference: one \`ping\` round trip | ${ms(percentile(ping.latencies, 50))} | ${ms(percentile(ping.latencies, 99))} | ${Math.round((CALLS / ping.ms) * 1000)} | ${(commands / CALLS).toFixed(3)} |`);

  for (const [name, syncMs] of [
    ['every request in the database (RATE_LIMIT_SYNC_MS=0)', 0],
    ['in the process between 1 s syncs (the default)', 1_000],
  ] as const) {
    say(`${name}…`);
    const limiter = createMongoLimiter(Promise.resolve(conn), 'bench_limiter', { name: `bench-${syncMs}`, points: 1_000_000, durationSec: 60, syncMs });
    // Each key's window opened (its first request asks the database in both ways).
    await closedLoop(CALLERS, Math.max(500, KEYS), (i) => limiter.consume(ctx, `client-${i % KEYS}`));
    for (const [how, loop] of [
      ['full speed', () => closedLoop(CALLERS, CALLS, (i) => limiter.consume(ctx, `client-${i % KEYS}`))],
      [`${RATE}/s for ${SECONDS} s`, () => paced((i) => limiter.consume(ctx, `client-${i % KEYS}`))],
    ] as const) {
      commands = 0;
      const run = await loop();
      const calls = run.latencies.length;
      print(`| ${name}, ${how} | ${ms(percentile(run.latencies, 50))} | ${ms(percentile(run.latencies, 99))} | ${Math.round((calls / run.ms) * 1000)} | ${(commands / calls).toFixed(3)} |`);
    }
  }
  await db.dropDatabase();
  await conn.close();
  // SyncedWindows' timers are unref'd; nothing else keeps the process.
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
