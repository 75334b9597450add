/**
 * Benchmark: support tickets at scale (issue 4). In one run, against the stack `npm test` provisions
 * (or the database MONGODB_URI names):
 *  1. seeds BENCH_TICKETS tickets (default 100,000) in the tickets collection;
 *  2. a bulk status update of BENCH_BULK of them (default 10,000) through the API and its workflow
 *     (POST /support/bulk/status, then GET until completed): the time from the POST to the end;
 *  3. one raw `updateMany` over the same tickets (no history), for comparison;
 *  4. GET /support (first pages, newest first, limit 10; the default and a status filter): four
 *     requests one at a time, then BENCH_LIST_REQUESTS requests (default 500) from
 *     BENCH_CONNECTIONS concurrent keep-alive connections (default 50): latency p50/p99 and
 *     throughput.
 *
 * Run with `npm run bench:support`. Prints Markdown to stdout, progress to stderr.
 */
import http from 'node:http';
import os from 'node:os';
import { createApp } from '../../api/shared/app';
import { closeInfra, createInfra } from '../../api/shared/infra';
import { definitionFor } from '../../api/shared/server';
import { makeSupportDeps, supportService } from '../../api/support/service';
import { signToken } from '../../models/auth/token.rules';
import { parseConfig } from '../../models/config';
import { createLogger } from '../../models/infra/logger';
import { statusEventModel, ticketModel } from '../../models/support/support.model';
import { TICKET_ISSUES, type TicketStatus } from '../../models/support/ticket.rules';
import { closedLoop, percentile, say, timedGet } from './load';
import { analyze, devPostgres } from '../dev-database';

const TICKETS = Number(process.env.BENCH_TICKETS ?? 100_000);
const BULK = Number(process.env.BENCH_BULK ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LIST_REQUESTS = Number(process.env.BENCH_LIST_REQUESTS ?? 500);
const SEED_BATCH = 2_000;

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  // The per-IP limit (100/min) would turn the load into 429s: raised, but still counted per request.
  const config = parseConfig({ ...process.env, SUPPORT_RATE_LIMIT_PER_MINUTE: '1000000000' });
  const infra = createInfra(config, 'support', createLogger({ name: 'bench', level: 'silent' }));
  const conn = await infra.mongo.ready;
  const deps = await makeSupportDeps(infra);
  const app = createApp(definitionFor(supportService, config), deps);
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const auth = `Bearer ${await signToken(config.auth.jwtSecret!, { sub: 'bench-agent', permissions: ['support.agent'], email: 'bench@newsletter.dev' })}`;
  const serverInfo = (await conn.db!.command({ buildInfo: 1 })) as { version?: string; ferretdb?: { version?: string } };
  const database = serverInfo.ferretdb?.version ? `FerretDB ${serverInfo.ferretdb.version} on PostgreSQL with DocumentDB` : `MongoDB ${serverInfo.version}`;
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  // Rows are printed as they are measured, so a run that fails later still reports what it got.
  const row = (measurement: string, result: string) => process.stdout.write(`| ${measurement} | ${result} |\n`);
  process.stdout.write(`**${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${cpu}, ${database}, Node ${process.version}:**\n\n| measurement | result |\n|---|---:|\n`);
  const Tickets = ticketModel(conn);
  await Tickets.init(); // indexes exist before the load, as in production

  // 1. Seed: the bulk set is open; the rest is spread over the other states and a year of dates.
  say(`seeding ${TICKETS} tickets…`);
  const seedStarted = performance.now();
  const others: TicketStatus[] = ['open', 'in_progress', 'resolved', 'closed', 'deleted'];
  const yearAgo = Date.now() - 365 * 86_400_000;
  // The bulk set: every stride-th ticket, spread over the whole collection.
  const stride = Math.max(1, Math.floor(TICKETS / BULK));
  const inBulk = (k: number) => k % stride === 0 && k / stride < BULK;
  const bulkIds: number[] = [];
  for (let done = 0; done < TICKETS; done += SEED_BATCH) {
    const n = Math.min(SEED_BATCH, TICKETS - done);
    const rows = Array.from({ length: n }, (_, i) => {
      const k = done + i;
      return {
        main: 'Entrega',
        issue: TICKET_ISSUES[k % TICKET_ISSUES.length]!,
        description: `Chamado de carga ${k}: a edição não chegou.`,
        email: `leitor-${k % 20_000}@example.com`,
        newsletter: 'The News',
        status: inBulk(k) ? ('open' as const) : others[k % others.length]!,
        createdAt: new Date(yearAgo + Math.floor((k / TICKETS) * 365 * 86_400_000)),
      };
    });
    const ids = await deps.tickets.insertMany(rows);
    ids.forEach((id, i) => inBulk(done + i) && bulkIds.push(id));
    if ((done / SEED_BATCH) % 10 === 0) say(`  ${done + n} seeded (${secs(performance.now() - seedStarted)})`);
  }
  const seedMs = performance.now() - seedStarted;
  say(`seeded in ${secs(seedMs)}; bulk set: ${bulkIds.length} open tickets`);
  row(`seed ${TICKETS.toLocaleString('en')} tickets (insertMany, ${SEED_BATCH} per batch)`, secs(seedMs));
  // Statistics after the bulk load, so the development database orders lists from their indexes.
  const analyzeStarted = performance.now();
  if (analyze(devPostgres(config))) row('statistics after the load (ANALYZE, development database)', secs(performance.now() - analyzeStarted));

  // 2. Bulk status update through the API and the workflow.
  say(`bulk status update of ${bulkIds.length} tickets through the API…`);
  const bulkStarted = performance.now();
  const post = await fetch(`${base}/support/bulk/status`, {
    method: 'POST',
    headers: { Authorization: auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ ticketIds: bulkIds, status: 'closed' }),
  });
  const accepted = (await post.json()) as { data: { operationId: string } };
  if (post.status !== 202) throw new Error(`bulk POST answered ${post.status}: ${JSON.stringify(accepted)}`);
  const operationId = accepted.data.operationId;
  let op: { state: string; processed: number; succeeded: number; failed: number };
  for (let lastReport = 0; ; ) {
    const res = await fetch(`${base}/support/bulk/${operationId}`, { headers: { Authorization: auth } });
    op = ((await res.json()) as { data: typeof op }).data;
    if (op.state !== 'running') break;
    if (performance.now() - lastReport > 15_000) {
      lastReport = performance.now();
      say(`  ${op.processed}/${bulkIds.length} (${secs(performance.now() - bulkStarted)})`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const bulkMs = performance.now() - bulkStarted;
  const history = await statusEventModel(conn).countDocuments({ _id: { $regex: `^${operationId}:` } });
  say(`bulk ${op.state} in ${secs(bulkMs)}: ${op.succeeded} succeeded, ${op.failed} failed, ${history} history events`);
  if (op.state !== 'completed' || op.succeeded !== bulkIds.length || history !== bulkIds.length) throw new Error('bulk operation did not update every ticket once');
  row(`bulk status update of ${bulkIds.length.toLocaleString('en')} tickets via API + workflow (per-ticket history)`, `${secs(bulkMs)} (${((bulkIds.length * 1000) / bulkMs).toFixed(0)} tickets/s)`);

  // 3. One raw updateMany over the same tickets (what the bulk operation is compared with).
  say('raw updateMany over the same tickets…');
  const rawStarted = performance.now();
  const raw = await Tickets.updateMany({ _id: { $in: bulkIds } }, { $set: { status: 'resolved', updatedAt: new Date() } });
  const rawMs = performance.now() - rawStarted;
  say(`raw updateMany: ${raw.modifiedCount} modified in ${secs(rawMs)}`);
  row('raw `updateMany` over the same tickets', secs(rawMs));
  row('bulk ÷ raw', `**${(bulkMs / rawMs).toFixed(2)}×**`);

  // 4. The list under concurrent load.
  say(`GET /support: ${LIST_REQUESTS} requests over ${CONNECTIONS} connections…`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const statuses = new Map<number, number>();
  const get = (path: string) => timedGet(agent, `${base}${path}`, { Authorization: auth }, statuses);
  const pages = ['/support?page=1&limit=10', '/support?page=2&limit=10', '/support?page=5&limit=10', '/support?status=open&page=1&limit=10'];
  // Alone first (one request at a time): what one request costs without queueing.
  const alone: number[] = [];
  for (let i = 0; i < 4; i += 1) alone.push(await get(pages[i % pages.length]!));
  statuses.clear();
  say(`  alone: ${alone.map((ms) => ms.toFixed(0)).join(', ')} ms`);
  row(`GET /support at ${TICKETS.toLocaleString('en')} tickets, one request at a time (4 requests): median`, `${percentile(alone, 50).toFixed(1)} ms`);
  const { latencies, ms: listMs } = await closedLoop(CONNECTIONS, LIST_REQUESTS, (i) => get(pages[i % pages.length]!));
  agent.destroy();

  row(`GET /support at ${TICKETS.toLocaleString('en')} tickets, ${CONNECTIONS} connections, ${LIST_REQUESTS} requests: p50`, `${percentile(latencies, 50).toFixed(1)} ms`);
  row('… p99', `**${percentile(latencies, 99).toFixed(1)} ms**`);
  row('… throughput', `${((LIST_REQUESTS * 1000) / listMs).toFixed(1)} requests/s`);
  row('… answers', [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${n} × ${status}`).join(', '));
  server.close();
  await closeInfra(infra);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
