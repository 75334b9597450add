/**
 * Benchmark: events out (issue 40), against the stack `npm test` provisions, with a database and
 * task queues of its own:
 *  1. **Server-sent events.** An in-process news API (its NewsEventHub polling the event log every
 *     NEWS_STREAM_POLL_MS, 250 by default). Articles are published one at a time, as the pipeline
 *     publishes them (publishEvents), BENCH_SSE_ARTICLES of them (default 30), 400–600 ms apart;
 *     the delay from each publish to its event on each stream: first with one stream open (the
 *     floor: the poll's wait and one read), then with BENCH_SSE_CLIENTS streams (default 500, on
 *     10 business accounts' keys, 50 each). The clients run in this process too (plain sockets,
 *     a few bytes parsed each).
 *  2. **The daily digest.** BENCH_DIGEST_READERS readers (default 100,000), each with a proven
 *     address, following a sector, the digest on at this slot's hour; BENCH_DIGEST_ARTICLES
 *     articles of the last 24 hours. A worker process (workers/main.ts, the news-notify queue)
 *     runs newsDigestWorkflow for the slot and hands every mail to an SMTP sink in this process
 *     (smtp-server, accepting everything): the time until the run ends and every mail is in the
 *     sink, mails a second, and the worker's peak resident memory (VmHWM). The floor: the same
 *     mails handed to the sink straight from this process by nodemailer, 8 at a time.
 *  3. **Webhooks.** BENCH_WEBHOOK_ENDPOINTS endpoints (default 1,000, on 10 business accounts) on
 *     a receiver in this process, subscribed to breaking articles; a worker process serving
 *     news-webhooks. BENCH_WEBHOOK_ARTICLES breaking articles (default 3) published 3 s apart as
 *     the pipeline publishes them (the event appended, its fan-out started). One endpoint in ten
 *     fails: it answers 503 with `Retry-After: 1` to the first delivery of each message, then
 *     recovers. The delay from the publish to the first 2xx at each endpoint (healthy and failing
 *     apart), whether every endpoint got every article (no message lost), and how many deliveries
 *     repeated a webhook-id already answered 2xx (duplicates beyond at-least-once). The floors: one
 *     endpoint, the same articles (the latency of one delivery); and Temporal's, as many workflows
 *     as there were messages, of the delivery workflow's shape with a local activity doing nothing
 *     (ops/bench/floor.workflow.ts), started 20 at a time as the fan-out starts them, on a worker in
 *     this process with news-webhooks' concurrency (the most a workflow per message can deliver a
 *     second here, whatever the delivery does).
 * Run with `npm run bench:events`. Prints Markdown to stdout, progress to stderr.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { DefaultLogger, NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { createApp } from '../../api/shared/app';
import { closeInfra, createInfra } from '../../api/shared/infra';
import { definitionFor } from '../../api/shared/server';
import { makeNewsDeps, newsService } from '../../api/news/service';
import { parseConfig } from '../../models/config';
import { createLogger } from '../../models/infra/logger';
import { DEFAULT_NOTIFICATIONS, defaultPreferences } from '../../models/news/preferences.rules';
import { publishEvents } from '../../operations/events/publish';
import { temporalWebhookStarts } from '../../operations/events/webhook-fanout';
import { createEventLogRepo } from '../../models/events/event-log.repo';
import { createSecretBox, WEBHOOK_SECRETS_INFO } from '../../models/events/secret-box';
import { createWebhookEndpointRepo } from '../../models/events/webhook-endpoint.repo';
import { newWebhookSecret } from '../../models/events/webhook-signing';
import { TASK_QUEUES, taskQueueName } from '../../workflows/ids';
import type { NewsDigestResult } from '../../workflows/news/digest.workflow';
import { eventArticle } from '../../tests/helpers/events';
import { killGroup, startOwnWorker } from '../../tests/helpers/processes';
import { QUEUES } from '../../workers/queues';
import { percentile, say } from './load';

const SSE_ARTICLES = Number(process.env.BENCH_SSE_ARTICLES ?? 30);
const SSE_CLIENTS = Number(process.env.BENCH_SSE_CLIENTS ?? 500);
const DIGEST_READERS = Number(process.env.BENCH_DIGEST_READERS ?? 100_000);
const DIGEST_ARTICLES = Number(process.env.BENCH_DIGEST_ARTICLES ?? 200);
const WEBHOOK_ENDPOINTS = Number(process.env.BENCH_WEBHOOK_ENDPOINTS ?? 1_000);
const WEBHOOK_ARTICLES = Number(process.env.BENCH_WEBHOOK_ARTICLES ?? 3);
const STREAMS_PER_KEY = 50;

const ms = (x: number) => `${Math.round(x)} ms`;
const stats = (xs: number[]) => `p50 ${ms(percentile(xs, 50))}, p95 ${ms(percentile(xs, 95))} (n = ${xs.length})`;
const row = (measurement: string, result: string) => process.stdout.write(`| ${measurement} | ${result} |\n`);
const sleep = (n: number) => new Promise((r) => setTimeout(r, n));

/** One SSE stream read off a socket: each article event's arrival, by article id. */
function openStream(base: string, key: string, arrived: (articleId: string) => void): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/api/stream`, { headers: { 'X-API-Key': key, Accept: 'text/event-stream' }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET /api/stream: ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /"article":\{"id":"([^"]+)"/.exec(block)?.[1];
          if (id && /^event: article\./m.test(block)) arrived(id);
        }
      });
      res.on('error', () => undefined);
      resolve(req);
    });
    req.on('error', reject);
  });
}

async function sse(): Promise<void> {
  const tag = randomUUID().slice(0, 8);
  const config = parseConfig({ ...process.env, MONGODB_DB: `bench_events_${tag}`, TASK_QUEUE_PREFIX: `bench-events-${tag}-`, NEWS_STREAM_MAX_STREAMS: String(SSE_CLIENTS + 10) });
  const infra = createInfra(config, 'news', createLogger({ name: 'bench', level: 'silent' }));
  await infra.mongo.ready;
  const deps = await makeNewsDeps(infra);
  const server = http.createServer(createApp(definitionFor(newsService, config), deps).callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const keys: string[] = [];
  for (let i = 0; i < Math.ceil(SSE_CLIENTS / STREAMS_PER_KEY); i += 1) {
    const userId = `bench-sse-${tag}-${i}`;
    await deps.users.setPlan(userId, 'business');
    keys.push((await deps.apiKeys.create({ userId, name: 'bench', mode: 'live', scopes: ['*'], expiresAt: null })).key);
  }

  const published = new Map<string, number>();
  const delays: number[] = [];
  const arrived = (articleId: string) => {
    const at = published.get(articleId);
    if (at !== undefined) delays.push(performance.now() - at);
  };
  const round = async (clients: number): Promise<number[]> => {
    delays.length = 0;
    const requests: http.ClientRequest[] = [];
    for (let i = 0; i < clients; i += 1) requests.push(await openStream(base, keys[Math.floor(i / STREAMS_PER_KEY)]!, arrived));
    await sleep(1_000);
    for (let i = 0; i < SSE_ARTICLES; i += 1) {
      const article = eventArticle();
      published.set(article._id, performance.now());
      await publishEvents({ events: deps.stream.log }, [article]);
      await sleep(400 + Math.random() * 200);
    }
    for (let waited = 0; delays.length < clients * SSE_ARTICLES && waited < 10_000; waited += 100) await sleep(100);
    for (const r of requests) r.destroy();
    await sleep(500);
    if (delays.length < clients * SSE_ARTICLES) throw new Error(`${clients} streams: ${delays.length} of ${clients * SSE_ARTICLES} events arrived`);
    return [...delays];
  };
  say(`SSE: 1 stream, ${SSE_ARTICLES} articles…`);
  const one = await round(1);
  say(`SSE: ${SSE_CLIENTS} streams, ${SSE_ARTICLES} articles…`);
  const many = await round(SSE_CLIENTS);
  row(`SSE, 1 stream (the floor: poll every ${config.news.stream.pollMs} ms, one read): published → event`, stats(one));
  row(`SSE, ${SSE_CLIENTS} streams: published → event on each`, stats(many));
  row(`SSE, ${SSE_CLIENTS} streams: p95 / the floor's p95`, (percentile(many, 95) / percentile(one, 95)).toFixed(2));
  await new Promise((r) => server.close(r));
  await infra.mongo.conn.dropDatabase().catch(() => undefined);
  await closeInfra(infra);
}

/** An SMTP server that takes every mail and counts it. */
async function smtpSink(): Promise<{ port: number; received: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    maxClients: 100,
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        count += 1;
        callback();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as { port: number }).port;
  return { port, received: () => count, close: () => new Promise((r) => server.close(() => r())) };
}

const memoryOf = (pid: number, field: 'VmHWM' | 'VmRSS'): number => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
const MiB = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;

async function digest(): Promise<void> {
  const tag = randomUUID().slice(0, 8);
  const sink = await smtpSink();
  const env = { MONGODB_DB: `bench_digest_${tag}`, TASK_QUEUE_PREFIX: `bench-digest-${tag}-`, SMTP_URL: `smtp://127.0.0.1:${sink.port}` };
  const config = parseConfig({ ...process.env, ...env });
  const infra = createInfra(config, 'news', createLogger({ name: 'bench', level: 'silent' }));
  const conn = await infra.mongo.ready;
  const slot = new Date(Math.ceil((Date.now() + 1) / 3_600_000) * 3_600_000);
  say(`digest: writing ${DIGEST_READERS} readers and ${DIGEST_ARTICLES} articles…`);
  const articles = Array.from({ length: DIGEST_ARTICLES }, (_, i) => eventArticle({ primarySector: 'ENE', baseScore: 40 + (i % 60), isBreaking: i % 10 === 0 }, new Date(slot.getTime() - 3_600_000 - i * 60_000)));
  await conn.db!.collection('articles').insertMany(articles as never[]);
  const settings = { ...DEFAULT_NOTIFICATIONS, email: false, digest: true, timeZone: 'UTC', digestHour: slot.getUTCHours(), language: 'en' as const };
  const now = new Date();
  for (let from = 0; from < DIGEST_READERS; from += 1_000) {
    const ids = Array.from({ length: Math.min(1_000, DIGEST_READERS - from) }, (_, i) => `r${String(from + i).padStart(7, '0')}`);
    await conn.db!.collection('users').insertMany(ids.map((id) => ({ _id: id, email: `${id}@bench.example`, emailVerifiedAt: now, plan: 'starter', createdAt: now, updatedAt: now })) as never[]);
    await conn.db!.collection('user_preferences').insertMany(ids.map((id) => ({ _id: id, ...defaultPreferences(), sectors: ['ENE'], notificationSettings: settings, updatedAt: now })) as never[]);
    if (from % 20_000 === 0) say(`  ${from + ids.length} readers written`);
  }

  // The floor: the same number of mails handed to the sink from here, 8 at a time.
  const floorMails = Math.min(DIGEST_READERS, 5_000);
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: sink.port, secure: false, ignoreTLS: true, pool: true, maxConnections: 8 });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let i = next++; i < floorMails; i = next++) await transport.sendMail({ from: 'digest@bench.example', to: `r${i}@bench.example`, subject: 'Your digest', text: 'x'.repeat(2_000) });
  }));
  const floorRate = floorMails / ((performance.now() - t0) / 1000);
  transport.close();
  const before = sink.received();

  const worker = await startOwnWorker(env.TASK_QUEUE_PREFIX, config, { ...env, WORKER_QUEUES: 'platform-ops,news-notify', NEWS_DIGEST_SCHEDULE_ENABLED: 'false' });
  try {
    await sleep(2_000);
    const idle = memoryOf(worker.pid!, 'VmRSS');
    say(`digest: running newsDigestWorkflow for ${slot.toISOString()}…`);
    const t1 = performance.now();
    const result = (await infra.temporal.client.workflow.execute('newsDigestWorkflow', {
      workflowId: `bench-digest-${tag}`,
      taskQueue: taskQueueName(env.TASK_QUEUE_PREFIX, TASK_QUEUES.notify),
      args: [{ slot: slot.toISOString() }],
    })) as NewsDigestResult;
    const elapsed = (performance.now() - t1) / 1000;
    const rss = memoryOf(worker.pid!, 'VmHWM');
    if (sink.received() - before !== result.sent) throw new Error(`the sink got ${sink.received() - before} mails, the run says ${result.sent}`);
    row(`digest floor: mails handed to the SMTP sink from one process, 8 at a time (n = ${floorMails})`, `${Math.round(floorRate)} mails/s`);
    row(`digest, ${DIGEST_READERS.toLocaleString('en')} readers: the run, until every mail is in the sink`, `${elapsed.toFixed(0)} s (${result.sent} sent, ${result.empty} empty, ${result.failed} failed)`);
    row('digest: mails a second / the floor', `${Math.round(result.sent / elapsed)} mails/s (${(result.sent / elapsed / floorRate).toFixed(2)} of the floor)`);
    row("digest: the worker's resident memory, idle before the run / its peak (VmHWM)", `${MiB(idle)} / ${MiB(rss)}`);
  } finally {
    killGroup(worker);
    await sink.close();
    await conn.dropDatabase().catch(() => undefined);
    await closeInfra(infra);
  }
}

/** A receiver of many endpoints (`/hooks/<n>`): when each message first got a 2xx, and the repeats. */
async function receiver(failing: (endpoint: number) => boolean) {
  const firstOk = new Map<string, number>(); // `${endpoint} ${webhook-id}` → when
  const refused = new Set<string>();
  let deliveries = 0;
  let duplicates = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      deliveries += 1;
      const endpoint = Number(/^\/hooks\/(\d+)$/.exec(req.url ?? '')?.[1]);
      const id = `${endpoint} ${String(req.headers['webhook-id'])}`;
      if (failing(endpoint) && !refused.has(id)) {
        refused.add(id);
        res.writeHead(503, { 'Retry-After': '1' }).end();
        return;
      }
      if (firstOk.has(id)) duplicates += 1;
      else firstOk.set(id, performance.now());
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { port: (server.address() as { port: number }).port, firstOk, stats: () => ({ deliveries, duplicates }), close: () => new Promise((r) => server.close(r)) };
}

/**
 * Temporal's floor for a workflow per message: `count` runs of deliveryFloorWorkflow, started 20 at
 * a time (as a fan-out page starts its messages), until every one's activity has run. Deliveries a
 * second at best.
 */
async function deliveryFloor(client: Client, address: string, namespace: string, prefix: string, count: number): Promise<{ seconds: number; perSecond: number }> {
  const queue = QUEUES.find((q) => q.queue === TASK_QUEUES.webhooks)!;
  const taskQueue = `${prefix}delivery-floor`;
  let done = 0;
  let allDone: () => void = () => undefined;
  const finished = new Promise<void>((r) => (allDone = r));
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowBundle: await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'floor.workflow.ts'), logger: new DefaultLogger('WARN') }),
    activities: {
      deliverNothing: async () => {
        done += 1;
        if (done === count) allDone();
      },
    },
    maxConcurrentActivityTaskExecutions: queue.maxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: queue.maxConcurrentWorkflowTasks,
    shutdownGraceTime: '5 seconds',
  });
  const running = worker.run();
  try {
    const t0 = performance.now();
    let next = 0;
    const tag = randomUUID().slice(0, 8);
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let i = next++; i < count; i = next++) await client.workflow.start('deliveryFloorWorkflow', { workflowId: `delivery-floor-${tag}-${i}`, taskQueue, args: [{ msgId: String(i) }] });
      }),
    );
    await finished;
    const seconds = (performance.now() - t0) / 1000;
    return { seconds, perSecond: count / seconds };
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
  }
}

async function webhooks(): Promise<void> {
  const tag = randomUUID().slice(0, 8);
  const failing = (n: number) => n % 10 === 9;
  const rx = await receiver(failing);
  const env = { MONGODB_DB: `bench_webhooks_${tag}`, TASK_QUEUE_PREFIX: `bench-webhooks-${tag}-`, NEWS_FETCH_ALLOW_HOSTS: `127.0.0.1:${rx.port}` };
  const config = parseConfig({ ...process.env, ...env });
  const infra = createInfra(config, 'news', createLogger({ name: 'bench', level: 'silent' }));
  const conn = await infra.mongo.ready;
  const endpoints = createWebhookEndpointRepo(conn, createSecretBox(config.web.secret, WEBHOOK_SECRETS_INFO));
  const events = createEventLogRepo(conn);
  const publish = { events, webhookFanOut: temporalWebhookStarts(infra.temporal.client, env.TASK_QUEUE_PREFIX).fanOut };
  const worker = await startOwnWorker(env.TASK_QUEUE_PREFIX, config, { ...env, WORKER_QUEUES: 'platform-ops,news-webhooks', NEWS_WEBHOOK_RELAY_SCHEDULE_ENABLED: 'false' });
  const register = async (from: number, count: number) => {
    for (let n = from; n < from + count; n += 1) {
      const accountId = `bench-wh-${tag}-${Math.floor(n / 100)}`;
      if (n % 100 === 0) await conn.db!.collection('users').updateOne({ _id: accountId as never }, { $set: { plan: 'business', email: `${accountId}@bench.example`, emailVerifiedAt: new Date(), createdAt: new Date(), updatedAt: new Date() } }, { upsert: true });
      await endpoints.create({ accountId, url: `http://127.0.0.1:${rx.port}/hooks/${n}`, description: null, eventTypes: ['article.breaking'], filters: {}, secret: newWebhookSecret(), now: new Date() });
    }
  };
  /** Publishes the breaking articles 3 s apart; waits until each of `expected` endpoints answered 2xx to each (or 15 minutes). */
  const round = async (expected: number[]): Promise<{ healthy: number[]; failing: number[]; lost: number; drainedS: number }> => {
    const t0 = performance.now();
    const published: { id: string; at: number }[] = [];
    for (let i = 0; i < WEBHOOK_ARTICLES; i += 1) {
      const article = eventArticle({ isBreaking: true });
      const at = performance.now();
      const [appended] = await publishEvents(publish, [article]);
      published.push({ id: appended!.articleId, at });
      await sleep(3_000);
    }
    const messages = async () => (await conn.db!.collection<{ _id: string; endpointId: string; eventKey: string }>('webhook_messages').find({}, { projection: { endpointId: 1, eventKey: 1 } }).toArray());
    const want = expected.length * WEBHOOK_ARTICLES;
    for (let waited = 0; waited < 900_000; waited += 1_000) {
      const ms = await messages();
      const answered = new Set([...rx.firstOk.keys()].map((k) => k.slice(k.indexOf(' ') + 1)));
      if (ms.length >= want && ms.every((m) => answered.has(m._id))) break;
      await sleep(1_000);
    }
    const ms = await messages();
    const eps = await conn.db!.collection<{ _id: string; url: string }>('webhook_endpoints').find({}, { projection: { url: 1 } }).toArray();
    const numberOf = new Map(eps.map((e) => [e._id, Number(/\/hooks\/(\d+)$/.exec(e.url)![1])]));
    const publishedAt = new Map(published.map((p) => [`article:${p.id}`, p.at]));
    const healthy: number[] = [];
    const failingDelays: number[] = [];
    let lost = 0;
    for (const m of ms) {
      const n = numberOf.get(m.endpointId)!;
      const ok = rx.firstOk.get(`${n} ${m._id}`);
      if (ok === undefined) {
        lost += 1;
        continue;
      }
      (failing(n) ? failingDelays : healthy).push(ok - publishedAt.get(m.eventKey)!);
    }
    lost += want - ms.length;
    return { healthy, failing: failingDelays, lost, drainedS: (Math.max(...rx.firstOk.values()) - t0) / 1000 };
  };
  try {
    say('webhooks: 1 endpoint (the floor)…');
    await register(0, 1);
    const floor = await round([0]);
    await conn.db!.collection('webhook_endpoints').deleteMany({});
    await conn.db!.collection('webhook_messages').deleteMany({});
    rx.firstOk.clear();
    say(`webhooks: ${WEBHOOK_ENDPOINTS} endpoints, one in ten failing once…`);
    await register(0, WEBHOOK_ENDPOINTS);
    const before = rx.stats();
    const many = await round(Array.from({ length: WEBHOOK_ENDPOINTS }, (_, n) => n));
    const after = rx.stats();
    row(`webhooks, 1 endpoint (the floor): published → delivered (2xx)`, stats(floor.healthy));
    row(`webhooks, ${WEBHOOK_ENDPOINTS} endpoints: published → delivered, the 90 % healthy`, stats(many.healthy));
    row(`webhooks: healthy p95 / the floor's p95`, (percentile(many.healthy, 95) / percentile(floor.healthy, 95)).toFixed(2));
    row(`webhooks, the 10 % failing once (503, Retry-After: 1): published → delivered after the retry`, stats(many.failing));
    row(`webhooks: messages lost / duplicates (a 2xx'd webhook-id delivered again)`, `${many.lost} of ${WEBHOOK_ENDPOINTS * WEBHOOK_ARTICLES} lost; ${after.duplicates - before.duplicates} duplicates in ${after.deliveries - before.deliveries} deliveries`);
    row(`webhooks: from the first publish to the last delivery / deliveries a second`, `${many.drainedS.toFixed(0)} s / ${((after.deliveries - before.deliveries) / many.drainedS).toFixed(1)}`);
    say(`webhooks: Temporal's floor, ${WEBHOOK_ENDPOINTS * WEBHOOK_ARTICLES} workflows of the delivery's shape doing nothing…`);
    const floorRate = await deliveryFloor(infra.temporal.client, config.temporal.address, config.temporal.namespace, env.TASK_QUEUE_PREFIX, WEBHOOK_ENDPOINTS * WEBHOOK_ARTICLES);
    row(`webhooks: Temporal's floor, ${WEBHOOK_ENDPOINTS * WEBHOOK_ARTICLES} workflows of the delivery's shape doing nothing: time / a second`, `${floorRate.seconds.toFixed(0)} s / ${floorRate.perSecond.toFixed(1)}`);
    row(`webhooks: deliveries a second / the floor's`, ((after.deliveries - before.deliveries) / many.drainedS / floorRate.perSecond).toFixed(2));
  } finally {
    killGroup(worker);
    await rx.close();
    await conn.dropDatabase().catch(() => undefined);
    await closeInfra(infra);
  }
}

async function main(): Promise<void> {
  const which = new Set((process.env.BENCH_EVENTS ?? 'sse,webhooks,digest').split(','));
  process.stdout.write(`**${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, FerretDB on PostgreSQL with DocumentDB, load average ${os.loadavg()[0]!.toFixed(2)} at the start:**\n\n| measurement | result |\n|---|---:|\n`);
  if (which.has('sse')) await sse();
  if (which.has('webhooks')) await webhooks();
  if (which.has('digest')) await digest();
  process.stdout.write(`\nLoad average at the end: ${os.loadavg()[0]!.toFixed(2)} (1 min).\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
