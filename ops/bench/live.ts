/**
 * Benchmark: the support desk's live updates (issue 38). An in-process support service, against
 * the stack `npm test` provisions, measured from inside (process.cpuUsage, process.memoryUsage,
 * event-loop delay) in three phases of BENCH_LIVE_SECONDS each (default 60):
 *  1. idle: the service alone, no stream open (the floor);
 *  2. BENCH_LIVE_STREAMS (default 50) agents' streams open (GET /support/eventos, the queue's:
 *     every ticket's events), nothing happening but the hub's reads and the keep-alives;
 *  3. the same streams while other agents write BENCH_LIVE_MESSAGES messages (default 120, one
 *     every 300–700 ms, over 10 tickets) and every agent sends its presence heartbeat (PUT
 *     /support/:id/presenca every 10 s, as the ticket page does): the delay from each message's
 *     write (its POST answered) to its `ticket` event on each stream, p50/p95/p99/max.
 * The clients (streams, writes, heartbeats) run in a child process, so that the service's process
 * measures the service alone.
 *
 * Run with `npm run bench:live` (node --expose-gc: memory is also read after a full collection).
 * Prints Markdown to stdout, progress to stderr.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createApp } from '../../api/shared/app';
import { closeInfra, createInfra } from '../../api/shared/infra';
import { definitionFor } from '../../api/shared/server';
import { makeSupportDeps, supportService } from '../../api/support/service';
import { signToken } from '../../models/auth/token.rules';
import { parseConfig } from '../../models/config';
import { createLogger } from '../../models/infra/logger';
import { ticketModel } from '../../models/support/support.model';
import { TICKET_ISSUES } from '../../models/support/ticket.rules';
import { jsonRequest, percentile, say } from './load';

const SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 60);
const STREAMS = Number(process.env.BENCH_LIVE_STREAMS ?? 50);
const MESSAGES = Number(process.env.BENCH_LIVE_MESSAGES ?? 120);
const TICKETS = 10;
const HEARTBEAT_MS = 10_000;

/** Wall-clock milliseconds with sub-millisecond precision, comparable between the two processes. */
const wall = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- The clients (child process) ---------------------------------------------------------------

interface ClientsSetup {
  base: string;
  /** One token per agent (streams and heartbeats), and the writers'. */
  agents: string[];
  writers: string[];
  tickets: number[];
}

type FromClients = { kind: 'open' } | { kind: 'done'; delays: number[]; slowest: number[]; missing: number; posted: number; statuses: Record<string, number> };

async function runClients(setup: ClientsSetup): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const statuses: Record<string, number> = {};
  const request = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await jsonRequest<{ data: { createdAt: string } }>(agent, method, `${setup.base}${path}`, body, { authorization: `Bearer ${token}` });
    statuses[`${method} ${res.status}`] = (statuses[`${method} ${res.status}`] ?? 0) + 1;
    return res;
  };

  // When each stream saw each message's ticket event: `${ticketId}|${lastMessageAt}` → times.
  const arrivals = new Map<string, number[]>();
  const streams: http.ClientRequest[] = [];
  await Promise.all(
    setup.agents.map(
      (token) =>
        new Promise<void>((resolve, reject) => {
          const req = http.get(`${setup.base}/support/eventos`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
            if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
            let buffer = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              const at = wall();
              buffer += chunk;
              let end: number;
              while ((end = buffer.indexOf('\n\n')) >= 0) {
                const block = buffer.slice(0, end);
                buffer = buffer.slice(end + 2);
                if (block.startsWith('retry:')) resolve();
                if (!block.includes('event: ticket')) continue;
                const data = JSON.parse(block.slice(block.indexOf('data: ') + 6)) as { id: number; lastMessageAt: string | null };
                const key = `${data.id}|${data.lastMessageAt}`;
                arrivals.set(key, [...(arrivals.get(key) ?? []), at]);
              }
            });
          });
          req.on('error', reject);
          streams.push(req);
        }),
    ),
  );
  process.send!({ kind: 'open' } satisfies FromClients);
  await new Promise<void>((resolve) => process.once('message', () => resolve()));

  // Heartbeats: each agent on one of the tickets, every 10 s, spread over the interval.
  let beating = true;
  const heartbeats = setup.agents.map(async (token, i) => {
    await sleep((HEARTBEAT_MS * i) / setup.agents.length);
    while (beating) {
      await request('PUT', `/support/${setup.tickets[i % setup.tickets.length]}/presenca`, token, { state: i % 3 === 0 ? 'replying' : 'viewing' });
      await sleep(HEARTBEAT_MS);
    }
  });

  // Messages from the writers, one every 300–700 ms.
  const written: { key: string; answeredAt: number }[] = [];
  const spacing = (SECONDS * 1000) / MESSAGES;
  for (let i = 0; i < MESSAGES; i += 1) {
    const ticket = setup.tickets[i % setup.tickets.length]!;
    const res = await request('POST', `/support/${ticket}/mensagens`, setup.writers[i % setup.writers.length]!, { conteudo: `Mensagem de carga ${i}` });
    const answeredAt = wall();
    if (res.status === 201 && res.json) written.push({ key: `${ticket}|${res.json.data.createdAt}`, answeredAt });
    await sleep(spacing * (0.6 + Math.random() * 0.8));
  }
  // Let the last events arrive (a few reads).
  await sleep(3_000);
  beating = false;
  await Promise.all(heartbeats);

  const delays: number[] = [];
  const slowest: number[] = [];
  let missing = 0;
  for (const w of written) {
    const times = arrivals.get(w.key) ?? [];
    missing += setup.agents.length - times.length;
    const d = times.map((t) => t - w.answeredAt);
    delays.push(...d);
    if (d.length) slowest.push(Math.max(...d));
  }
  process.send!({ kind: 'done', delays, slowest, missing, posted: written.length, statuses } satisfies FromClients);
  for (const s of streams) s.destroy();
  agent.destroy();
}

// ---- The service (this process) ---------------------------------------------------------------

interface Sample {
  rssMiB: { mean: number; max: number };
  heapMiB: number;
  /** After a full collection at the phase's end (node --expose-gc): what the phase's state holds. */
  settled: { rssMiB: number; heapMiB: number };
  cpuPercent: number;
  loopP99: number;
  reads: number;
}

/** A full collection, when node runs with --expose-gc (the npm script does). */
const collect = () => (globalThis as { gc?: () => void }).gc?.();

/** The process over `seconds`: RSS (sampled every 250 ms), CPU (% of one core), event-loop delay, the hub's reads. */
async function measure(seconds: number, reads: () => number): Promise<Sample> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const rss: number[] = [];
  const heap: number[] = [];
  const readsBefore = reads();
  const cpu = process.cpuUsage();
  const started = performance.now();
  while (performance.now() - started < seconds * 1000) {
    const m = process.memoryUsage();
    rss.push(m.rss);
    heap.push(m.heapUsed);
    await sleep(250);
  }
  const used = process.cpuUsage(cpu);
  const ms = performance.now() - started;
  loop.disable();
  const mib = (b: number) => b / 1024 / 1024;
  collect();
  const after = process.memoryUsage();
  return {
    settled: { rssMiB: mib(after.rss), heapMiB: mib(after.heapUsed) },
    rssMiB: { mean: mib(rss.reduce((a, b) => a + b, 0) / rss.length), max: mib(Math.max(...rss)) },
    heapMiB: mib(heap.reduce((a, b) => a + b, 0) / heap.length),
    cpuPercent: ((used.user + used.system) / 1000 / ms) * 100,
    loopP99: loop.percentile(99) / 1e6,
    reads: reads() - readsBefore,
  };
}

async function main(): Promise<void> {
  // The per-IP limit (100/min) would refuse the clients, all on loopback: raised, still counted.
  const config = parseConfig({ ...process.env, SUPPORT_RATE_LIMIT_PER_MINUTE: '1000000000' });
  const infra = createInfra(config, 'support', createLogger({ name: 'bench', level: 'silent' }));
  const conn = await infra.mongo.ready;
  const deps = makeSupportDeps(infra);
  const app = createApp(definitionFor(supportService, config), deps);
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const hub = deps.live.hub;
  const token = (sub: string) => signToken(config.auth.jwtSecret!, { sub, permissions: ['support.agent'], email: `${sub}@newsletter.dev` });
  const agents = await Promise.all(Array.from({ length: STREAMS }, (_, i) => token(`bench-live-agent-${i}`)));
  const writers = await Promise.all(Array.from({ length: 5 }, (_, i) => token(`bench-live-writer-${i}`)));
  await ticketModel(conn).init(); // the updatedAt index exists before the load
  const tickets = await deps.tickets.insertMany(
    Array.from({ length: TICKETS }, (_, i) => ({ main: 'Entrega', issue: TICKET_ISSUES[1], description: `Chamado ao vivo ${i}: a edição não chegou.`, email: `leitor-live-${i}@example.com`, newsletter: 'The News' })),
  );
  const serverInfo = (await conn.db!.command({ buildInfo: 1 })) as { version?: string; ferretdb?: { version?: string } };
  const database = serverInfo.ferretdb?.version ? `FerretDB ${serverInfo.ferretdb.version} on PostgreSQL with DocumentDB` : `MongoDB ${serverInfo.version}`;
  // Warm the service (modules, JIT, connections) before the floor.
  for (let i = 0; i < 20; i += 1) await fetch(`${base}/support/${tickets[0]}/presenca`, { headers: { authorization: `Bearer ${agents[0]}` } });

  const row = (measurement: string, s: Sample) =>
    process.stdout.write(
      `| ${measurement} | ${s.rssMiB.mean.toFixed(1)} / ${s.rssMiB.max.toFixed(1)} MiB | ${s.settled.rssMiB.toFixed(1)} / ${s.settled.heapMiB.toFixed(2)} MiB | ${s.cpuPercent.toFixed(2)} % | ${s.loopP99.toFixed(1)} ms | ${(s.reads / SECONDS).toFixed(2)}/s |\n`,
    );
  process.stdout.write(
    `**${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${database}, Node ${process.version}; ${SECONDS} s a phase, poll ${config.support.live.pollMs} ms, lookback ${config.support.live.lookbackMs} ms:**\n\n` +
      `| phase | RSS mean / max | after a full GC: RSS / heap used | CPU (of one core) | event-loop delay p99 | hub reads |\n|---|---:|---:|---:|---:|---:|\n`,
  );

  collect();
  say(`phase 1: idle, ${SECONDS} s…`);
  const floor = await measure(SECONDS, () => hub.reads);
  row('idle: no stream (the floor)', floor);

  say(`opening ${STREAMS} streams…`);
  const child: ChildProcess = fork(__filename, ['--clients'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const fromChild = (kind: FromClients['kind']) =>
    new Promise<FromClients>((resolve, reject) => {
      const onMessage = (m: FromClients) => {
        if (m.kind !== kind) return;
        child.off('message', onMessage);
        resolve(m);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`the clients' process exited (${code})`)));
    });
  child.send({ base, agents, writers, tickets } satisfies ClientsSetup);
  await fromChild('open');
  say(`phase 2: ${hub.size} streams open, nothing happening, ${SECONDS} s…`);
  const open = await measure(SECONDS, () => hub.reads);
  row(`${hub.size} streams open, idle`, open);

  say(`phase 3: ${MESSAGES} messages and the heartbeats, ~${SECONDS} s…`);
  const done = fromChild('done');
  child.send('go');
  const busy = await measure(SECONDS, () => hub.reads);
  row(`${STREAMS} streams, ${MESSAGES} messages and ${STREAMS} heartbeats every 10 s`, busy);
  const result = (await done) as Extract<FromClients, { kind: 'done' }>;
  process.stdout.write(
    `\nPer stream (phase 2 − floor, after a full GC): ${(((open.settled.heapMiB - floor.settled.heapMiB) * 1024) / STREAMS).toFixed(1)} KiB of heap, ${(((open.settled.rssMiB - floor.settled.rssMiB) * 1024) / STREAMS).toFixed(0)} KiB of RSS; ` +
      `CPU ${(open.cpuPercent - floor.cpuPercent).toFixed(2)} points of one core for the ${STREAMS} streams, ${(busy.cpuPercent - floor.cpuPercent).toFixed(2)} with the messages and heartbeats. ` +
      `Load average (1 min) at the end: ${os.loadavg()[0]!.toFixed(2)}.\n\n`,
  );
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  process.stdout.write(
    '| delay from a message\'s write (POST answered) to its `ticket` event | samples | p50 | p95 | p99 | max |\n|---|---:|---:|---:|---:|---:|\n' +
      `| on each stream | ${result.delays.length} (${result.posted} messages × ${STREAMS} streams; ${result.missing} missing) | ${ms(percentile(result.delays, 50))} | **${ms(percentile(result.delays, 95))}** | ${ms(percentile(result.delays, 99))} | ${ms(Math.max(...result.delays))} |\n` +
      `| on the last of the ${STREAMS} streams | ${result.slowest.length} | ${ms(percentile(result.slowest, 50))} | **${ms(percentile(result.slowest, 95))}** | ${ms(percentile(result.slowest, 99))} | ${ms(Math.max(...result.slowest))} |\n\n`,
  );
  process.stdout.write(`Requests answered to the clients: ${Object.entries(result.statuses).map(([k, n]) => `${n} × ${k}`).join(', ')}.\n`);
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
  hub.close();
  server.closeAllConnections();
  server.close();
  await closeInfra(infra);
}

if (process.argv.includes('--clients')) {
  process.once('message', (setup: ClientsSetup) => {
    runClients(setup).then(
      () => process.exit(0),
      (err: Error) => {
        process.stderr.write(`clients failed: ${err.stack ?? err.message}\n`);
        process.exit(1);
      },
    );
  });
} else {
  main().catch((err: Error) => {
    process.stderr.write(`${err.stack ?? err.message}\n`);
    process.exit(1);
  });
}
