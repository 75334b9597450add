/**
 * Benchmark: support reports at scale (issue 14). Against the stack `npm test` provisions (or the
 * database MONGODB_URI names):
 *  1. seeds BENCH_TICKETS tickets (default 100,000) over the last year, with BENCH_MESSAGES
 *     messages (default 300,000) and BENCH_EVENTS status events (default 200,000): every ticket's
 *     creation, its first admin reply and resolution by one of twelve agents, reopens;
 *  2. for every report, over the whole year where it takes a period (the worst case):
 *     - cold, alone: `fresh=true`, three requests one at a time (median and slowest);
 *     - cold, 10 staff: BENCH_COLD_REQUESTS requests (default 20) from BENCH_STAFF concurrent
 *       connections (default 10), `fresh=true`, each with its own period (one day apart), so none
 *       shares another's computation: p50 and p99;
 *     - warm at full speed: the cached report, BENCH_WARM_REQUESTS requests (default 2,000: a
 *       p99 of 500 samples is their 5th slowest, which moved by 3× between runs) from the same
 *       10 connections, each sending its next request as soon as its last is answered (a closed
 *       loop: the machine's capacity, everything on its cores busy): p50, p99, requests/s;
 *     - warm, paced: BENCH_PACED_REQUESTS (default 400) from the 10 staff, each sending one every
 *       BENCH_PACE_MS (default 500 ms: 2 a second, above the 100 a minute a client may send; an
 *       open loop: a request is sent on time even while the last is unanswered): p50 and p99.
 * Each of the 10 staff is a client of its own (`X-Forwarded-For`, the API trusting its proxy as
 * behind a load balancer), so each has its own rate-limit window; BENCH_SAME_IP=1 sends all from
 * one address.
 *
 * The support API runs in a process of its own, as deployed (`api/support/server.ts`, the spec
 * `npm start` uses); this process only seeds and sends requests. BENCH_API_NODE_OPTIONS are the
 * API process's NODE_OPTIONS (`--cpu-prof --cpu-prof-dir=…` profiles it).
 *
 * Run with `npm run bench:reports`. Prints Markdown to stdout, progress to stderr.
 */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { closeInfra, createInfra } from '../../api/shared/infra';
import { signToken } from '../../models/auth/token.rules';
import { parseConfig } from '../../models/config';
import { createLogger } from '../../models/infra/logger';
import { messageModel, statusEventModel, ticketModel, type MessageDoc, type StatusEventDoc, type TicketDoc } from '../../models/support/support.model';
import { TICKET_ISSUES, type TicketStatus } from '../../models/support/ticket.rules';
import { freePort } from '../dev-services';
import { appProcessSpecs } from '../processes';
import { Supervisor } from '../supervisor';
import { percentile, say, timedRequest, type TimedRequest } from './load';
import { analyze, devPostgres } from '../dev-database';

const TICKETS = Number(process.env.BENCH_TICKETS ?? 100_000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 300_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const STAFF = Number(process.env.BENCH_STAFF ?? 10);
const COLD_REQUESTS = Number(process.env.BENCH_COLD_REQUESTS ?? 20);
const WARM_REQUESTS = Number(process.env.BENCH_WARM_REQUESTS ?? 2_000);
/** Paced warm requests: each staff member sends one every PACE_MS, whether or not the last was answered. */
const PACED_REQUESTS = Number(process.env.BENCH_PACED_REQUESTS ?? 400);
const PACE_MS = Number(process.env.BENCH_PACE_MS ?? 500);
/** Only the reports whose names contain one of these (comma-separated; all by default). */
const ONLY = process.env.BENCH_ONLY?.split(',').filter(Boolean);
const BATCH = 5_000;
const DAY = 86_400_000;

const AGENTS = Array.from({ length: 12 }, (_, i) => `agente-${String(i + 1).padStart(2, '0')}`);
const NEWSLETTERS = ['The News', 'The Bizness', 'The Champs', null];
const MAINS = ['Entrega', 'Prêmios', 'Cadastro', 'Pagamento'];

/** A small deterministic generator, so every run seeds the same data. */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32);
}

const isoDay = (t: number) => new Date(t - 3 * 3_600_000).toISOString().slice(0, 10); // São Paulo's calendar day

async function main(): Promise<void> {
  // A database of its own: the stack's worker builds the support indexes in the default one.
  // The API logs every request at info, as deployed.
  const env = { ...process.env, LOG_LEVEL: process.env.BENCH_API_LOG_LEVEL ?? 'info', MONGODB_DB: `bench_reports_${Date.now()}`, SUPPORT_RATE_LIMIT_PER_MINUTE: '1000000000', SUPPORT_PORT: String(await freePort()), TRUST_PROXY: 'true' };
  const config = parseConfig(env);
  const infra = createInfra(config, 'support', createLogger({ name: 'bench', level: 'silent' }));
  const conn = await infra.mongo.ready;
  const auth = `Bearer ${await signToken(config.auth.jwtSecret!, { sub: 'bench-manager', permissions: ['support.agent', 'support.manager'], email: 'manager@newsletter.dev' })}`;
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';

  // The indexes are built after the seed, as after a bulk load: the development database's unique
  // indexes (RUM exclusion constraints in DocumentDB) made each 5,000-message batch take 34 s at
  // 150,000 messages, and building one afterwards takes time quadratic in the documents (10,000:
  // 4.5 s, 20,000: 17.8 s, 40,000: 72 s; the 200,000 events' took 28 minutes). On FerretDB the
  // unique indexes (messages' dedupeKey, events' ticketId+version), which serve writes and which no
  // report reads, are left out unless BENCH_UNIQUE_INDEXES=1; on MongoDB every index is built.
  (conn as unknown as { config: { autoIndex?: boolean } }).config.autoIndex = false;

  // 1. Seed. Tickets over the last year; a ticket's messages and events follow from its number.
  say(`seeding ${TICKETS} tickets, ${MESSAGES} messages, ${EVENTS} status events…`);
  const started = performance.now();
  const random = lcg(14);
  const now = Date.now();
  const yearAgo = now - 365 * DAY;
  const statuses: TicketStatus[] = ['open', 'in_progress', 'resolved', 'resolved', 'closed', 'closed', 'closed'];
  const tickets: TicketDoc[] = [];
  const extraMessages = Math.max(0, MESSAGES - 2 * TICKETS); // beyond one reader message and one answer per ticket
  const messagesPer = (k: number) => 2 + Math.floor((extraMessages * (k + 1)) / TICKETS) - Math.floor((extraMessages * k) / TICKETS);
  let messageId = 0;
  let eventCount = 0;
  const messagesBatch: MessageDoc[] = [];
  const eventsBatch: StatusEventDoc[] = [];
  const flush = async (force = false) => {
    const write = async <T extends { _id: unknown }>(name: string, batch: T[]) => {
      if (batch.length > 0 && (batch.length >= BATCH || force)) await conn.db!.collection<T>(name).insertMany(batch.splice(0) as never, { ordered: false });
    };
    await write('tickets', tickets);
    await write('ticket_messages', messagesBatch);
    await write('ticket_status_events', eventsBatch);
  };
  const eventsPerTicket = EVENTS / TICKETS; // 2 by default: the creation and one change
  for (let k = 0; k < TICKETS; k += 1) {
    const id = k + 1;
    const createdAt = new Date(yearAgo + Math.floor((k / TICKETS) * 365 * DAY) + Math.floor(random() * 3_600_000));
    const status = statuses[k % statuses.length]!;
    const agent = AGENTS[Math.floor(random() * AGENTS.length)]!;
    const answered = status !== 'open' || random() < 0.5;
    const firstReply = answered ? new Date(createdAt.getTime() + Math.floor(60_000 + random() * 2 * DAY)) : null;
    const done = status === 'resolved' || status === 'closed';
    const resolvedAt = done ? new Date((firstReply ?? createdAt).getTime() + Math.floor(random() * 6 * DAY)) : null;
    const reopenCount = done && random() < 0.08 ? 1 + Math.floor(random() * 2) : 0;
    const email = `leitor-${k % 30_000}@example.com`;
    tickets.push({
      _id: id, main: MAINS[k % MAINS.length]!, issue: TICKET_ISSUES[k % TICKET_ISSUES.length]!, description: `Chamado ${id}`, status, email,
      newsletter: NEWSLETTERS[k % NEWSLETTERS.length]!, wantReply: true, replied: null, tags: k % 5 === 0 ? [1 + (k % 7)] : [],
      statusVersion: 1, statusBeforeDelete: null, deletedAt: null, firstAdminReplyAt: firstReply, firstAdminReplyBy: firstReply ? agent : null, resolvedAt, reopenCount,
      lastMessageAt: firstReply ?? createdAt, createdAt, updatedAt: resolvedAt ?? firstReply ?? createdAt,
    });
    // Messages: the reader's, then (when answered) the first answer, then further ones.
    const n = messagesPer(k);
    for (let m = 0; m < n; m += 1) {
      const admin = m % 2 === 1 && firstReply !== null;
      const at = m === 0 ? createdAt : new Date((firstReply ?? createdAt).getTime() + (m - 1) * 1_800_000);
      messageId += 1;
      messagesBatch.push({ _id: messageId, ticketId: id, conteudo: 'mensagem', remetente: admin ? (m === 1 ? agent : AGENTS[(k + m) % AGENTS.length]!) : email, origem: admin ? 'admin' : 'usuario', dedupeKey: `msg:${messageId}`, createdAt: at, ticketCreatedAt: createdAt });
    }
    // Status events: the creation, then the ticket's change (resolution by its agent, or in progress).
    const events = Math.floor(eventsPerTicket * (k + 1)) - Math.floor(eventsPerTicket * k);
    for (let e = 0; e < events; e += 1) {
      eventCount += 1;
      eventsBatch.push(
        e === 0
          ? { _id: `e${eventCount}`, ticketId: id, version: 0, from: null, to: 'open', by: email, at: createdAt, source: 'create', ticketCreatedAt: createdAt }
          : { _id: `e${eventCount}`, ticketId: id, version: e, from: 'open', to: done ? 'resolved' : 'in_progress', by: agent, at: resolvedAt ?? firstReply ?? createdAt, source: 'patch', ticketCreatedAt: createdAt },
      );
    }
    await flush();
    if (k % 20_000 === 0) say(`  ${k} tickets (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  await flush(true);
  const serverInfo = (await conn.db!.command({ buildInfo: 1 })) as { version?: string; ferretdb?: { version?: string } };
  const database = serverInfo.ferretdb?.version ? `FerretDB ${serverInfo.ferretdb.version} on PostgreSQL with DocumentDB` : `MongoDB ${serverInfo.version}`;
  const unique = !serverInfo.ferretdb?.version || process.env.BENCH_UNIQUE_INDEXES === '1';
  say(`building the indexes${unique ? '' : ' (not the unique ones)'}…`);
  for (const model of [ticketModel(conn), messageModel(conn), statusEventModel(conn)]) {
    for (const [fields, options] of model.schema.indexes()) if (unique || !options.unique) await model.collection.createIndex(fields as Record<string, 1 | -1>, options as object);
  }
  // Statistics after the bulk load, so the development database orders lists from their indexes.
  analyze(devPostgres(config));
  const seedSeconds = (performance.now() - started) / 1000;
  // The service starts after the seed (it builds the indexes when it starts), in its own process.
  const logFile = path.join(os.tmpdir(), `bench-reports-support-${process.pid}.log`);
  const supervisor = new Supervisor((e) => (e.type === 'exited' || e.type === 'restarting' ? say(`support API: ${JSON.stringify(e)} (log: ${logFile})`) : undefined));
  await supervisor.start(appProcessSpecs({ ...env, NODE_OPTIONS: process.env.BENCH_API_NODE_OPTIONS ?? '' }, { file: logFile }).find((spec) => spec.name === 'support')!);
  const base = `http://127.0.0.1:${env.SUPPORT_PORT}`;
  say(`seeded in ${seedSeconds.toFixed(0)} s: ${TICKETS} tickets, ${messageId} messages, ${eventCount} events`);

  process.stdout.write(
    `**${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${cpu}, ${database}, Node ${process.version}; ` +
      `${TICKETS.toLocaleString('en')} tickets, ${messageId.toLocaleString('en')} messages, ${eventCount.toLocaleString('en')} status events (seeded and indexed in ${seedSeconds.toFixed(0)} s${unique ? '' : '; unique indexes left out'}); ` +
      `periods: the whole year:**\n\n` +
      `| report | cold alone: median / slowest of 3 | cold, ${STAFF} staff (${COLD_REQUESTS} requests): p50 / p99 | warm, ${STAFF} staff at full speed (${WARM_REQUESTS} requests): p50 / p99 (answered per second) | warm, ${STAFF} staff each sending every ${PACE_MS} ms (${PACED_REQUESTS} requests): p50 / p99 | warm answers |\n|---|---:|---:|---:|---:|---|\n`,
  );

  // 2. The reports. `period(i)`: the year, starting i days later (a distinct cache key per i).
  const period = (i: number) => `data_inicio=${isoDay(yearAgo + i * DAY)}&data_fim=${isoDay(now)}`;
  const reports: { name: string; path: (i: number) => string; reference?: true }[] = [
    // For reference, two small requests on the same path and cores: one without auth, one with a
    // staff request's fixed costs (JWT, the per-IP rate limit counted in MongoDB) and a read.
    { name: 'reference: GET /health (no auth; pings MongoDB, Temporal, MinIO)', path: () => '/health', reference: true },
    { name: 'reference: GET /support/tags (JWT, rate limit, the tag list)', path: () => '/support/tags', reference: true },
    { name: 'filtros', path: () => '/support/relatorios/filtros' },
    { name: 'comparativo', path: (i) => `/support/relatorios/comparativo?${period(i)}` },
    { name: 'comparativo (year before)', path: (i) => `/support/relatorios/comparativo?${period(i)}&comparar_com=mesmo_periodo_ano_anterior` },
    { name: 'metricas-resolucao', path: (i) => `/support/relatorios/metricas-resolucao?${period(i)}` },
    { name: 'dashboard', path: () => '/support/relatorios/dashboard' },
    { name: 'categorias', path: (i) => `/support/relatorios/categorias?${period(i)}` },
    { name: 'distribuicao por hora', path: (i) => `/support/relatorios/distribuicao?por=hora&${period(i)}` },
    { name: 'distribuicao por dia_semana', path: (i) => `/support/relatorios/distribuicao?por=dia_semana&${period(i)}` },
    { name: 'distribuicao por newsletter', path: (i) => `/support/relatorios/distribuicao?por=newsletter&${period(i)}` },
    { name: 'serie por dia', path: (i) => `/support/relatorios/serie?agrupamento=dia&${period(i)}` },
    { name: 'serie por semana', path: (i) => `/support/relatorios/serie?agrupamento=semana&${period(i)}` },
    { name: 'coortes', path: (i) => `/support/relatorios/coortes?${period(i)}` },
    { name: 'resumo', path: () => '/support/relatorios/resumo' },
    { name: 'detalhado (page 1)', path: (i) => `/support/relatorios/detalhado?${period(i)}&limit=50` },
    { name: 'detalhado (page 200)', path: (i) => `/support/relatorios/detalhado?${period(i)}&limit=50&page=200` },
    { name: 'agentes', path: (i) => `/support/relatorios/agentes?${period(i)}` },
    // Narrowed by a ticket field: the replies and resolutions of the tickets it selects (43% of them).
    { name: 'agentes, status closed', path: (i) => `/support/relatorios/agentes?${period(i)}&status=closed` },
    { name: 'metricas-resolucao, one agent', path: (i) => `/support/relatorios/metricas-resolucao?${period(i)}&agente=agente-03` },
  ];
  const agent = new http.Agent({ keepAlive: true, maxSockets: STAFF });
  const request = (path: string): TimedRequest => ({ url: `${base}${path}`, headers: { Authorization: auth } });
  const withFresh = (path: string) => `${path}${path.includes('?') ? '&' : '?'}fresh=true`;
  /** A staff member's request: from an address of its own (see above). */
  const asMember = (r: TimedRequest, member: number): TimedRequest =>
    process.env.BENCH_SAME_IP === '1' ? r : { ...r, headers: { ...r.headers, 'X-Forwarded-For': `10.0.0.${member + 1}` } };
  const load = async (requests: TimedRequest[], statuses: Map<number, number>) => {
    const latencies: number[] = [];
    let next = 0;
    await Promise.all(Array.from({ length: STAFF }, async (_, member) => {
      while (next < requests.length) {
        const r = requests[next++]!;
        latencies.push(await timedRequest(agent, asMember(r, member), statuses));
      }
    }));
    return latencies;
  };
  /** PACED_REQUESTS, one from each staff member every PACE_MS (their start spread over the first interval). */
  const pacedLoad = async (r: TimedRequest, statuses: Map<number, number>) => {
    const latencies: number[] = [];
    const each = Math.ceil(PACED_REQUESTS / STAFF);
    await Promise.all(Array.from({ length: STAFF }, async (_, member) => {
      const started = performance.now() + (member * PACE_MS) / STAFF;
      const sent: Promise<void>[] = [];
      for (let k = 0; k < each; k += 1) {
        await new Promise((done) => setTimeout(done, Math.max(0, started + k * PACE_MS - performance.now())));
        sent.push(timedRequest(agent, asMember(r, member), statuses).then((t) => void latencies.push(t)));
      }
      await Promise.all(sent);
    }));
    return latencies;
  };
  const ms = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(1)} ms`);
  for (const report of reports.filter((r) => !ONLY || ONLY.some((o) => r.name.includes(o)))) {
    say(`${report.name}…`);
    const statuses = new Map<number, number>();
    const alone: number[] = [];
    const fresh = (path: string) => (report.reference ? path : withFresh(path));
    for (let i = 0; i < 3; i += 1) alone.push(await timedRequest(agent, request(fresh(report.path(0))), statuses));
    const cold = await load(Array.from({ length: COLD_REQUESTS }, (_, i) => request(fresh(report.path(i + 1)))), statuses);
    // Warm: report.path(0) is cached by the cold-alone requests.
    const warmStatuses = new Map<number, number>();
    const warmStarted = performance.now();
    const warm = await load(Array.from({ length: WARM_REQUESTS }, () => request(report.path(0))), warmStatuses);
    const perSecond = WARM_REQUESTS / ((performance.now() - warmStarted) / 1000);
    const paced = await pacedLoad(request(report.path(0)), warmStatuses);
    const bad = [...statuses].filter(([s]) => s !== 200);
    if (bad.length > 0) say(`  cold answers: ${[...statuses].map(([s, n]) => `${n} × ${s}`).join(', ')}`);
    const answers = [...warmStatuses].sort(([a], [b]) => a - b).map(([s, n]) => `${n} × ${s}`).join(', ');
    process.stdout.write(
      `| ${report.name} | ${ms(percentile(alone, 50))} / ${ms(Math.max(...alone))} | ${ms(percentile(cold, 50))} / ${ms(percentile(cold, 99))} | ` +
        `${ms(percentile(warm, 50))} / **${ms(percentile(warm, 99))}** (${perSecond.toFixed(0)}/s) | ${ms(percentile(paced, 50))} / **${ms(percentile(paced, 99))}** | ${answers} |\n`,
    );
  }
  agent.destroy();
  await supervisor.stop();
  await closeInfra(infra);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
