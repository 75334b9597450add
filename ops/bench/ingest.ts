/**
 * Benchmark: the news sources pipeline (issue 25, item 6). `npm run bench:ingest [-- --minutes N]
 * [--json]` runs it on the stack `npm test` provisions. It measures four things:
 *
 *  1. Ingest throughput. 20 sources (4 news-web-double instances of 5 sites each, in this process)
 *     whose feeds list 100 items each: the time from registering them until no item is in state
 *     'new' (page read, main text extracted, duplicates decided, stored), as items per second. The
 *     same phase times each ingestItem activity, each page's HTTP request (undici's diagnostics
 *     channels), and extraction alone (extractPage again over raw pages read back from MinIO).
 *  2. Feed to listed article. In a steady phase (--minutes, default 5), one item is published
 *     every --publish-every seconds (default 5) on a random site. The time from publishing to its
 *     article being in `articles` (checked every second), for the items that became articles; the
 *     others (syndicated copies, the same page) are counted, with the time until they were decided.
 *  3. Enrichment overhead. For --enrich articles (default 50), re-enrichment through the
 *     enrichment workflow (`client.workflow.execute(newsEnrichWorkflow)`) against a direct
 *     `requestEnrichment` call with the same model on the same OpenAI double, interleaved. Then
 *     the floors, interleaved: as many runs of the same workflow on a worker whose activity
 *     answers at once (no database, no model), what Temporal alone costs per run on this stack,
 *     and of the same shape with a local activity (ops/bench/floor.workflow.ts).
 *  4. Memory. This process runs the pipeline's activities and workflows: a Temporal Worker on
 *     `bench-news-sources` with the news-sources activities from workers/queues.ts, and the sources
 *     are registered with the task queue prefix 'bench-', so the stack's shared worker does not
 *     serve them. rss and heapUsed are sampled every 30 s over the steady phase.
 *
 * The double has 14 distinct stories per site, and its 4 instances tell the same ones: after the
 * ingest phase every story is known, so every later item would be a syndicated copy. Before the
 * steady phase the bench therefore clears the similarity bands (`simBands`) of its items, so that
 * the first item of each story becomes an article again (see docs/benchmarks.md).
 *
 * Markdown results on stdout (JSON with --json); progress on stderr.
 */
import diagnostics from 'node:diagnostics_channel';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import mongoose from 'mongoose';
import type { CommandStartedEvent, CommandSucceededEvent } from 'mongodb';
import { closeInfra, createInfra } from '../../api/shared/infra';
import { mongoUri, parseConfig } from '../../models/config';
import { createLlmClient } from '../../models/infra/llm';
import { createLogger } from '../../models/infra/logger';
import { collectionOf } from '../../models/infra/mongo';
import { ensureBucket } from '../../models/infra/storage';
import type { ArticleDoc } from '../../models/news/article.rules';
import { requestEnrichment } from '../../operations/news/enrichment';
import type { EnrichmentInput } from '../../models/news/enrichment.rules';
import { addSource, removeSource } from '../../operations/news/sources';
import { createSourceRepo } from '../../models/news/sources/source.repo';
import type { FeedItemDoc } from '../../models/news/sources/feed-item.repo';
import { extractPage } from '../../models/news/sources/page.rules';
import { itemText } from '../../operations/news/pipeline';
import type { SourceDoc } from '../../models/news/sources/source.rules';
import { newsWebDoubleControl, startNewsWebDouble, type NewsWebDouble, type NewsWebSite } from '../../tests/doubles/news-web-double';
import { newsEnrichWorkflow } from '../../workflows/news/enrich.workflow';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { QUEUES } from '../../workers/queues';
import { percentile, say } from './load';

// ---- Settings -------------------------------------------------------------------------------

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!(value > 0)) throw new Error(`--${name} needs a positive number`);
  return value;
}

const MINUTES = option('minutes', 5);
const PUBLISH_EVERY_S = option('publish-every', 5);
const ENRICH_RUNS = Math.round(option('enrich', 50));
const JSON_OUT = process.argv.includes('--json');
/** Instances of the double (5 sites each): 20 sources. */
const INSTANCES = 4;
/** Items each feed lists (and the pipeline reads in one poll: ITEMS_PER_POLL is 100). */
const FEED_ITEMS = 100;
/** Items a site of the double has published at start: 10 item periods ago up to now. */
const ITEMS_AT_START = 11;
/** No item appears on its own during a run (one an hour): only the bench's publishes. */
const ITEM_PERIOD_MS = 3_600_000;
const POLL_MINUTES = 1;
const PREFIX = 'bench-';
const TASK_QUEUE = taskQueueName(PREFIX, TASK_QUEUES.newsSources);
const MEMORY_EVERY_MS = 30_000;
const ENRICH_WARMUP = 5;
/** How long items published at the end of the steady phase may take to settle. */
const SETTLE_MS = 3 * 60_000;
/** The ingest phase gives up after this (the report then says so). */
const INGEST_LIMIT_MS = 20 * 60_000;

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (x: number, digits = 1) => Number(x.toFixed(digits));

interface Stats {
  n: number;
  p50: number;
  p95: number;
  mean: number;
}
const stats = (xs: readonly number[]): Stats | null =>
  xs.length === 0 ? null : { n: xs.length, p50: round(percentile(xs, 50)), p95: round(percentile(xs, 95)), mean: round(xs.reduce((a, b) => a + b, 0) / xs.length) };

/** Least-squares slope of y over x. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  const num = points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

// ---- Instruments ----------------------------------------------------------------------------

/** Durations recorded per phase and name (activity runs, HTTP requests). */
class Timings {
  phase = 'setup';
  private readonly data = new Map<string, number[]>();
  add(name: string, ms: number): void {
    const key = `${this.phase}:${name}`;
    let list = this.data.get(key);
    if (!list) this.data.set(key, (list = []));
    list.push(ms);
  }
  get(phase: string, name: string): number[] {
    return this.data.get(`${phase}:${name}`) ?? [];
  }
  /** Every name recorded in a phase that starts with `prefix`, with its durations. */
  entries(phase: string, prefix: string): [string, number[]][] {
    const head = `${phase}:${prefix}`;
    return [...this.data].filter(([k]) => k.startsWith(head)).map(([k, v]) => [k.slice(head.length), v]);
  }
  /** Activity failures per phase and activity: how many, and the first few messages. */
  readonly failures = new Map<string, { n: number; messages: string[] }>();
  fail(name: string, err: unknown): void {
    const key = `${this.phase}:${name}`;
    const f = this.failures.get(key) ?? { n: 0, messages: [] };
    f.n += 1;
    if (f.messages.length < 3) f.messages.push(String((err as Error).message).slice(0, 200));
    this.failures.set(key, f);
  }
}

/** The activities, each timed (the wrapper adds a clock read around the product's function). */
function timedActivities(activities: object, timings: Timings): Record<string, (...args: unknown[]) => Promise<unknown>> {
  return Object.fromEntries(
    Object.entries(activities).map(([name, fn]) => [
      name,
      async (...args: unknown[]) => {
        const started = performance.now();
        try {
          return await (fn as (...a: unknown[]) => Promise<unknown>)(...args);
        } catch (err) {
          timings.fail(name, err);
          throw err;
        } finally {
          timings.add(name, performance.now() - started);
        }
      },
    ]),
  );
}

/**
 * Times the HTTP requests to the double's sites from undici's diagnostics channels (the polite
 * fetcher uses undici): from the request's creation to its last byte. robots.txt, feeds and
 * pages apart.
 */
function timeSiteRequests(sites: readonly NewsWebSite[], timings: Timings): void {
  const feeds = new Map(sites.map((s) => [s.origin, new URL(s.feedUrl).pathname]));
  const started = new WeakMap<object, number>();
  type Msg = { request: { origin?: string; path?: string } };
  diagnostics.subscribe('undici:request:create', (msg) => {
    const { request } = msg as Msg;
    if (request.origin && feeds.has(String(request.origin))) started.set(request, performance.now());
  });
  diagnostics.subscribe('undici:request:trailers', (msg) => {
    const { request } = msg as Msg;
    const at = started.get(request);
    if (at === undefined) return;
    started.delete(request);
    const p = (request.path ?? '').split('?')[0];
    const kind = p === '/robots.txt' ? 'http:robots' : p === feeds.get(String(request.origin)) ? 'http:feed' : 'http:page';
    timings.add(kind, performance.now() - at);
  });
}

/**
 * Times every database command of the pipeline's connection (the driver's command monitoring,
 * switched on by `monitorCommands=true` in its URI), by command, collection and the fields it
 * filters on: `find news_feed_items {simBands,seenAt,_id,state}` is the syndication candidates.
 */
function timeDatabase(conn: mongoose.Connection, timings: Timings): void {
  const keys = new Map<number, string>();
  const fieldsOf = (filter: unknown) => (filter && typeof filter === 'object' ? `{${Object.keys(filter).join(',')}}` : '');
  const client = conn.getClient();
  client.on('commandStarted', (e: CommandStartedEvent) => {
    const c = e.command as Record<string, unknown>;
    const collection = typeof c[e.commandName] === 'string' ? String(c[e.commandName]) : '';
    const first = (list: unknown, field: string) => (Array.isArray(list) ? (list[0] as Record<string, unknown> | undefined)?.[field] : undefined);
    const filter = c.filter ?? c.query ?? first(c.updates, 'q') ?? first(c.deletes, 'q');
    keys.set(e.requestId, `${e.commandName} ${collection} ${fieldsOf(filter)}`.trim());
  });
  client.on('commandSucceeded', (e: CommandSucceededEvent) => {
    const key = keys.get(e.requestId);
    keys.delete(e.requestId);
    if (key) timings.add(`db:${key}`, e.duration);
  });
  client.on('commandFailed', (e: { requestId: number }) => keys.delete(e.requestId));
}

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;
type HistoryEvent = NonNullable<History['events']>[number];

/**
 * Where one workflow run's time went, from its history's event times (ms): the first workflow
 * task (waiting for a worker, then the worker's part), the activity, then the workflow task that
 * completes the run.
 */
function runBreakdown(history: History): { total: number; [part: string]: number } | null {
  const at = (e: HistoryEvent | undefined) => (e ? Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6 : NaN);
  const events = history.events ?? [];
  const all = (attr: keyof HistoryEvent) => events.filter((e) => e[attr] != null);
  const [wft1Scheduled] = all('workflowTaskScheduledEventAttributes');
  const [wft1Started, wft2Started] = all('workflowTaskStartedEventAttributes');
  const [wft1Completed, wft2Completed] = all('workflowTaskCompletedEventAttributes');
  const started = all('workflowExecutionStartedEventAttributes')[0];
  const actScheduled = all('activityTaskScheduledEventAttributes')[0];
  const actStarted = all('activityTaskStartedEventAttributes')[0];
  const actCompleted = all('activityTaskCompletedEventAttributes')[0];
  const completed = all('workflowExecutionCompletedEventAttributes')[0];
  const parts = {
    total: at(completed) - at(started),
    'task 1: start → worker has it': at(wft1Started) - at(wft1Scheduled),
    'task 1: worker → activity scheduled': at(wft1Completed) - at(wft1Started),
    'activity: scheduled → started': at(actStarted) - at(actScheduled),
    'activity: started → completed': at(actCompleted) - at(actStarted),
    'task 2: activity done → worker has it': at(wft2Started) - at(actCompleted),
    'task 2: worker → run completed': at(wft2Completed) - at(wft2Started),
  };
  return Object.values(parts).some((v) => Number.isNaN(v)) ? null : parts;
}

/**
 * Where a run with one local activity went (ms): its one workflow task, waiting for a worker and
 * then on the worker (the local activity runs inside it), and the start-to-end total.
 */
function localRunBreakdown(history: History): { total: number; [part: string]: number } | null {
  const at = (e: HistoryEvent | undefined) => (e ? Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6 : NaN);
  const events = history.events ?? [];
  const first = (attr: keyof HistoryEvent) => events.find((e) => e[attr] != null);
  const parts = {
    total: at(first('workflowExecutionCompletedEventAttributes')) - at(first('workflowExecutionStartedEventAttributes')),
    'task 1: start → worker has it': at(first('workflowTaskStartedEventAttributes')) - at(first('workflowTaskScheduledEventAttributes')),
    'task 1: worker → run completed (the local activity inside)': at(first('workflowTaskCompletedEventAttributes')) - at(first('workflowTaskStartedEventAttributes')),
  };
  return Object.values(parts).some((v) => Number.isNaN(v)) ? null : parts;
}

/** The machine's CPU time so far from /proc/stat (Linux): busy and total jiffies; null elsewhere. */
function machineCpu(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle and iowait
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/**
 * CPU seconds used so far by each process of this stack (Linux): the descendants of `root`, the
 * ops/test.ts process that provisioned it, grouped by name (all PostgreSQL processes as one; a
 * Node process by its script). Processes that end between two readings are missed.
 */
function stackCpu(root: number): Map<string, number> {
  const procs = new Map<number, { ppid: number; name: string; seconds: number }>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return new Map(); // not Linux
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const rest = stat.slice(close + 2).split(' ');
      let name = comm;
      if (Number(pid) === process.pid) name = 'this process (worker, doubles)';
      else if (comm === 'MainThread' || comm === 'node') {
        const script = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').find((a) => a.endsWith('.ts'));
        name = script ? path.basename(script, '.ts') : comm;
      }
      procs.set(Number(pid), { ppid: Number(rest[1]), name, seconds: (Number(rest[11]) + Number(rest[12])) / 100 });
    } catch {
      // gone, or not ours to read
    }
  }
  const inStack = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 20; hops += 1) {
      if (p === root) return true;
      p = procs.get(p)?.ppid ?? 0;
    }
    return false;
  };
  const byName = new Map<string, number>();
  for (const [pid, p] of procs) if (inStack(pid)) byName.set(p.name, (byName.get(p.name) ?? 0) + p.seconds);
  return byName;
}

/**
 * How loaded a phase ran: the cores this process used, how busy the whole machine was (every
 * process: the stack, and whatever else runs on it), and this process's event-loop delay.
 */
function phaseMeter() {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const machine = machineCpu();
  const stack = stackCpu(process.ppid);
  return () => {
    const stackAfter = stackCpu(process.ppid);
    loop.disable();
    const seconds = (performance.now() - wall) / 1000;
    const used = process.cpuUsage(cpu);
    const after = machineCpu();
    return {
      benchProcessCores: round((used.user + used.system) / 1e6 / seconds, 2),
      machineBusyPercent: machine && after ? round((100 * (after.busy - machine.busy)) / Math.max(1, after.total - machine.total), 0) : null,
      eventLoopDelayMs: { p50: round(loop.percentile(50) / 1e6), p99: round(loop.percentile(99) / 1e6) },
      /** Cores used by each process of the stack, the busiest first. */
      stackCores: Object.fromEntries(
        [...stackAfter]
          .map(([name, sec]) => [name, round((sec - (stack.get(name) ?? 0)) / seconds, 2)] as const)
          .filter(([, cores]) => cores >= 0.01)
          .sort((a, b) => b[1] - a[1]),
      ),
    };
  };
}

// ---- The run --------------------------------------------------------------------------------

async function main(): Promise<void> {
  // The budget is not what is measured: a long run must never wait for the next day's.
  // Its own doubles take random ports of loopback, which the fetcher refuses unless allowed.
  const plain = parseConfig({ NEWS_ENRICH_DAILY_TOKENS: '1000000000', ...process.env, NEWS_FETCH_ALLOW_HOSTS: '127.0.0.1' });
  const uri = mongoUri(plain);
  const config = { ...plain, mongo: { ...plain.mongo, uri: `${uri}${uri.includes('?') ? '&' : '?'}monitorCommands=true` } };
  const loadStart = os.loadavg();
  const runStarted = new Date();
  const logger = createLogger({ name: 'bench', level: 'silent' });
  // Worker logs (warnings and worse) go to stderr, so stdout stays the results.
  Runtime.install({ logger: new DefaultLogger('WARN', (e) => process.stderr.write(`[worker] ${e.level} ${e.message}\n`)) });
  const infra = createInfra(config, 'bench', logger);
  const conn = await infra.mongo.ready;
  await ensureBucket(infra.storage, config.minio.region);
  const client = infra.temporal.client;
  const timings = new Timings();
  timeDatabase(conn, timings);
  // The bench's own queries (progress, the steady phase's checks) on a connection of their own,
  // so they are not counted as the pipeline's.
  const own = await mongoose.createConnection(uri, { dbName: config.mongo.db }).asPromise();
  const items = () => collectionOf<FeedItemDoc>(own, 'news_feed_items');
  const articles = () => collectionOf<ArticleDoc>(own, 'articles');

  say(`starting ${INSTANCES} news-web-double instances (${INSTANCES * 5} sites), feeds of ${FEED_ITEMS} items`);
  const doubles: NewsWebDouble[] = [];
  for (let i = 0; i < INSTANCES; i += 1) doubles.push(await startNewsWebDouble({ itemPeriodMs: ITEM_PERIOD_MS, seed: i + 1, feedSize: FEED_ITEMS }));
  const sites = doubles.flatMap((d, instance) => d.sites.map((site) => ({ site, instance, control: newsWebDoubleControl(d.url) })));
  timeSiteRequests(
    sites.map((s) => s.site),
    timings,
  );
  for (const s of sites) await s.control.publish(s.site.id, FEED_ITEMS - ITEMS_AT_START);

  say('bundling workflows and starting the in-process worker on bench-news-sources');
  const queue = QUEUES.find((q) => q.queue === TASK_QUEUES.newsSources)!;
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, '..', '..', 'workflows'), logger: new DefaultLogger('WARN') });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: TASK_QUEUE,
    workflowBundle,
    activities: timedActivities(queue.activities({ config, logger, conn, storage: infra.storage }), timings),
    maxConcurrentActivityTaskExecutions: queue.maxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: queue.maxConcurrentWorkflowTasks,
    shutdownGraceTime: '10 seconds',
    maxHeartbeatThrottleInterval: '2 seconds',
  });
  const running = worker.run();

  // ---- 1. Ingest: 20 sources × 100 items ----
  timings.phase = 'ingest';
  const ingestMeter = phaseMeter();
  const sourceDeps = { sources: createSourceRepo(conn), temporal: { client }, taskQueuePrefix: PREFIX };
  const t0 = performance.now();
  const sources: SourceDoc[] = [];
  for (const { site, instance } of sites) {
    sources.push(
      await addSource(sourceDeps, {
        name: `${site.name} (bench ${instance + 1})`,
        feedUrl: site.feedUrl,
        tier: site.tier,
        language: 'pt',
        defaultSector: site.defaultSector ?? null,
        pollIntervalMinutes: POLL_MINUTES,
        enabled: true,
      }),
    );
  }
  const registeredMs = performance.now() - t0;
  const sourceIds = sources.map((s) => s._id);
  const ours = { sourceId: { $in: sourceIds } };
  const expected = sources.length * FEED_ITEMS;
  say(`${sources.length} sources registered in ${(registeredMs / 1000).toFixed(1)} s; waiting for ${expected} items to leave state 'new'`);

  let decidedMs: number | null = null;
  let publishedMs: number | null = null;
  let lastLog = 0;
  for (;;) {
    const elapsed = performance.now() - t0;
    const [total, fresh, extracted] = await Promise.all([
      items().countDocuments(ours),
      items().countDocuments({ ...ours, state: 'new' }),
      items().countDocuments({ ...ours, state: 'extracted' }),
    ]);
    if (decidedMs === null && total >= expected && fresh === 0) decidedMs = performance.now() - t0;
    if (decidedMs !== null && extracted === 0) {
      publishedMs = performance.now() - t0;
      break;
    }
    if (elapsed > INGEST_LIMIT_MS) break;
    if (elapsed - lastLog > 15_000) {
      lastLog = elapsed;
      say(`  ${(elapsed / 1000).toFixed(0)} s: ${total} items stored, ${fresh} new, ${extracted} waiting for enrichment`);
    }
    await sleep(1_000);
  }
  const ingestLoad = ingestMeter();
  const states = Object.fromEntries(
    (await items().aggregate<{ _id: string; n: number }>([{ $match: ours }, { $group: { _id: '$state', n: { $sum: 1 } } }]).toArray()).map((r) => [r._id, r.n]),
  );
  const itemsStored = await items().countDocuments(ours);
  say(`ingest: decided in ${decidedMs === null ? 'n/a' : (decidedMs / 1000).toFixed(1)} s, published in ${publishedMs === null ? 'n/a' : (publishedMs / 1000).toFixed(1)} s; states ${JSON.stringify(states)}`);

  // Extraction alone, over raw pages the pipeline kept in MinIO.
  const withPages = await items()
    .find({ ...ours, 'page.rawObjectKey': { $ne: null } }, { projection: { url: 1, 'page.rawObjectKey': 1 }, limit: 200 })
    .toArray();
  const extractMs: number[] = [];
  for (const item of withPages) {
    const stream = await infra.storage.client.getObject(infra.storage.bucket, item.page!.rawObjectKey!);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const html = Buffer.concat(chunks).toString('utf8');
    const started = performance.now();
    extractPage(html, item.url);
    extractMs.push(performance.now() - started);
  }

  // ---- 3. Enrichment: the workflow against a direct provider call ----
  timings.phase = 'enrich';
  const enrichMeter = phaseMeter();
  say(`enrichment overhead: ${ENRICH_RUNS} articles (+${ENRICH_WARMUP} warm-up), workflow and direct call interleaved`);
  const llm = createLlmClient(config);
  const settings = config.news.enrichment;
  const sourcesById = new Map(sources.map((s) => [s._id, s]));
  const picked = await articles()
    .find({ ...ours, isBreaking: false }, { limit: ENRICH_RUNS + ENRICH_WARMUP, sort: { _id: 1 } })
    .toArray();
  const viaWorkflow: number[] = [];
  const direct: number[] = [];
  const activityMs: number[] = [];
  const parts = new Map<string, number[]>();
  let skipped = 0;
  for (const [i, article] of picked.entries()) {
    const item = await items().findOne({ articleId: article._id });
    const source = sourcesById.get(article.sourceId ?? '');
    // The input enrichArticle builds for an article already listed (enrich-article.ts inputOf).
    const input: EnrichmentInput = {
      title: article.title,
      subtitle: article.subtitle,
      summary: article.summary,
      text: item ? itemText(item) : null,
      language: article.language as EnrichmentInput['language'],
      sourceName: article.sourceName,
      sourceTier: (article.modules.meta?.sourceTier ?? source?.tier ?? 2) as 1 | 2 | 3,
      defaultSector: source?.defaultSector ?? null,
    };
    const runDirect = async () => {
      const started = performance.now();
      await requestEnrichment(llm, input, { model: settings.model, maxInputTokens: settings.maxInputTokens, maxOutputTokens: settings.maxOutputTokens });
      return performance.now() - started;
    };
    const runWorkflow = async () => {
      const before = timings.get('enrich', 'enrichArticle').length;
      const started = performance.now();
      const result = await client.workflow.execute(newsEnrichWorkflow, { workflowId: workflowIds.newsEnrich(article._id), taskQueue: TASK_QUEUE, args: [{ articleId: article._id }] });
      const took = performance.now() - started;
      if (result.state !== 'enriched') throw new Error(`re-enrichment of ${article._id} answered ${JSON.stringify(result)}`);
      const activity = timings.get('enrich', 'enrichArticle').slice(before);
      // Read after the clock stopped: where the run's time went on the server's side.
      const history = await client.workflow.getHandle(workflowIds.newsEnrich(article._id)).fetchHistory();
      return { took, activity: activity.length === 1 ? activity[0]! : null, parts: runBreakdown(history) };
    };
    let w;
    let d;
    try {
      // Alternate which goes first, so neither always meets a warmer cache.
      if (i % 2 === 0) {
        d = await runDirect();
        w = await runWorkflow();
      } else {
        w = await runWorkflow();
        d = await runDirect();
      }
    } catch (err) {
      if ((err as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw err;
      skipped += 1; // its first enrichment still running: not a re-enrichment
      continue;
    }
    if (i < ENRICH_WARMUP) continue;
    viaWorkflow.push(w.took);
    direct.push(d);
    if (w.activity !== null) activityMs.push(w.activity);
    if (w.parts) {
      for (const [k, v] of Object.entries({ ...w.parts, 'client: execute − server total': w.took - w.parts.total })) parts.set(k, [...(parts.get(k) ?? []), v]);
    }
  }

  const enrichLoad = enrichMeter();

  // ---- 3b. The floors: the same workflow, its activity answering at once ----
  // What Temporal alone costs per run on this stack: the start, two workflow tasks, one activity
  // dispatch and the result, with no database work and no model call in the activity. Beside it,
  // the same shape with the activity as a local activity (ops/bench/floor.workflow.ts: one
  // workflow task, no activity dispatch), to tell what the ordinary activity's round trips cost.
  timings.phase = 'floor';
  say(`enrichment floors: ${ENRICH_RUNS} runs (+${ENRICH_WARMUP} warm-up) each of the same workflow with an activity answering at once, ordinary and local, interleaved`);
  const answerAtOnce = async () => ({ state: 'enriched' as const, published: false, isBreaking: false, publishedAt: new Date().toISOString(), alertsEnabled: false });
  const floorQueue = `${TASK_QUEUE}-floor`;
  const localFloorQueue = `${TASK_QUEUE}-floor-local`;
  const floorOptions = {
    connection,
    namespace: config.temporal.namespace,
    maxConcurrentActivityTaskExecutions: queue.maxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: queue.maxConcurrentWorkflowTasks,
    shutdownGraceTime: '10 seconds',
  };
  const floorWorkers = [
    await Worker.create({ ...floorOptions, taskQueue: floorQueue, workflowBundle, activities: { enrichArticle: answerAtOnce, failEnrichment: async () => undefined, alertsEnabled: async () => false } }),
    await Worker.create({
      ...floorOptions,
      taskQueue: localFloorQueue,
      workflowBundle: await bundleWorkflowCode({ workflowsPath: require.resolve('./floor.workflow'), logger: new DefaultLogger('WARN') }),
      activities: { enrichArticle: answerAtOnce },
    }),
  ];
  const floorRunning = floorWorkers.map((w) => w.run());
  const floorMs: number[] = [];
  const floorParts = new Map<string, number[]>();
  const localFloorMs: number[] = [];
  const localFloorParts = new Map<string, number[]>();
  const runFloor = async (i: number, local: boolean) => {
    const workflowId = `bench-floor${local ? '-local' : ''}-${runStarted.getTime()}-${i}`;
    const options = { workflowId, taskQueue: local ? localFloorQueue : floorQueue, args: [{ articleId: workflowId }] as [{ articleId: string }] };
    const started = performance.now();
    await (local ? client.workflow.execute('localActivityFloorWorkflow', options) : client.workflow.execute(newsEnrichWorkflow, options));
    const took = performance.now() - started;
    if (i < ENRICH_WARMUP) return;
    (local ? localFloorMs : floorMs).push(took);
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const p = local ? localRunBreakdown(history) : runBreakdown(history);
    const into = local ? localFloorParts : floorParts;
    if (p) for (const [k, v] of Object.entries({ ...p, 'client: execute − server total': took - p.total })) into.set(k, [...(into.get(k) ?? []), v]);
  };
  for (let i = 0; i < ENRICH_RUNS + ENRICH_WARMUP; i += 1) {
    // Alternate which goes first, as above.
    if (i % 2 === 0) {
      await runFloor(i, false);
      await runFloor(i, true);
    } else {
      await runFloor(i, true);
      await runFloor(i, false);
    }
  }
  for (const w of floorWorkers) w.shutdown();
  await Promise.all(floorRunning);

  // ---- 2 and 4. Steady phase: feed → article, and memory ----
  timings.phase = 'steady';
  const steadyMeter = phaseMeter();
  // The double's stories are all known by now (see the file's comment): forget their similarity
  // bands so that each story's next item can become an article again.
  await items().updateMany(ours, { $set: { simBands: [] } });
  say(`steady phase: ${MINUTES} min, one item every ${PUBLISH_EVERY_S} s on a random site; memory every ${MEMORY_EVERY_MS / 1000} s`);
  const steadyStart = Date.now();
  const steadyEnd = steadyStart + MINUTES * 60_000;
  const memory: { atS: number; rssMb: number; heapMb: number }[] = [];
  const sample = () => {
    const m = process.memoryUsage();
    memory.push({ atS: round((Date.now() - steadyStart) / 1000, 0), rssMb: round(m.rss / MB), heapMb: round(m.heapUsed / MB) });
  };
  sample();
  const sampler = setInterval(sample, MEMORY_EVERY_MS);

  interface Tracked {
    url: string;
    at: number;
    state?: string;
    articleId?: string;
    doneAt?: number;
  }
  const tracked = new Map<string, Tracked>();
  const publisher = (async () => {
    for (let next = steadyStart; next < steadyEnd; next += PUBLISH_EVERY_S * 1000) {
      await sleep(Math.max(0, next - Date.now()));
      const s = sites[Math.floor(Math.random() * sites.length)]!;
      const at = Date.now();
      const [published] = await s.control.publish(s.site.id, 1);
      const url = new URL(published!.link).href;
      tracked.set(url, { url, at });
    }
  })();

  const settleBy = steadyEnd + SETTLE_MS;
  let publishing = true;
  void publisher.then(
    () => (publishing = false),
    () => (publishing = false),
  );
  while (Date.now() < settleBy) {
    if (Date.now() >= steadyEnd) clearInterval(sampler);
    const open = [...tracked.values()].filter((t) => t.doneAt === undefined);
    if (!publishing && open.length === 0) break;
    if (open.length) {
      const now = Date.now();
      const found = await items()
        .find({ ...ours, seenAt: { $gte: new Date(steadyStart - 1_000) }, state: { $ne: 'new' } }, { projection: { url: 1, state: 1, articleId: 1 } })
        .toArray();
      const byUrl = new Map(found.map((f) => [f.url, f]));
      const waiting: Tracked[] = [];
      for (const t of open) {
        const f = byUrl.get(t.url);
        if (!f) continue;
        t.state = f.state;
        t.articleId = f.articleId;
        if (f.state === 'syndicated' || f.state === 'duplicate' || f.state === 'failed') t.doneAt = now;
        else waiting.push(t);
      }
      if (waiting.length) {
        const listed = new Set((await articles().find({ _id: { $in: waiting.map((t) => t.articleId!) } }, { projection: { _id: 1 } }).toArray()).map((a) => a._id));
        for (const t of waiting) {
          if (!listed.has(t.articleId!)) continue;
          t.state = 'published';
          t.doneAt = now;
        }
      }
    }
    await sleep(1_000);
  }
  clearInterval(sampler);
  await publisher;
  const steadyLoad = steadyMeter();

  const all = [...tracked.values()];
  const latencyOf = (states: string[]) => all.filter((t) => t.doneAt !== undefined && states.includes(t.state ?? '')).map((t) => (t.doneAt! - t.at) / 1000);
  const toArticle = latencyOf(['published']);
  const toCopy = latencyOf(['syndicated', 'duplicate']);
  const count = (state: string) => all.filter((t) => t.doneAt !== undefined && t.state === state).length;
  const unsettled = all.filter((t) => t.doneAt === undefined).length;

  // ---- Wind down: the bench's pollers end (their sources are gone), then the worker ----
  timings.phase = 'end';
  for (const id of sourceIds) await removeSource(sourceDeps, id);
  await Promise.race([Promise.allSettled(sourceIds.map((id) => client.workflow.getHandle(workflowIds.newsSource(id)).result())), sleep(30_000)]);
  worker.shutdown();
  await running;
  await connection.close();
  await Promise.all(doubles.map((d) => d.close()));
  const loadEnd = os.loadavg();

  // ---- Results ----
  const serverInfo = (await own.db!.command({ buildInfo: 1 })) as { version?: string; ferretdb?: { version?: string } };
  const database = serverInfo.ferretdb?.version ? `FerretDB ${serverInfo.ferretdb.version}` : `MongoDB ${serverInfo.version}`;
  await own.close();
  await closeInfra(infra);
  /** The phase's database commands, the costliest first: count and time per unit of work. */
  const databaseOf = (phase: string, units: number) =>
    timings
      .entries(phase, 'db:')
      .map(([command, ms]) => ({ command, perUnit: round(ms.length / units, 2), msPerUnit: round(ms.reduce((a, b) => a + b, 0) / units, 2), p50: round(percentile(ms, 50), 2), p95: round(percentile(ms, 95), 2) }))
      .sort((a, b) => b.msPerUnit - a.msPerUnit);
  const totalOf = (rows: { perUnit: number; msPerUnit: number }[]) => ({ commands: round(rows.reduce((a, r) => a + r.perUnit, 0), 1), ms: round(rows.reduce((a, r) => a + r.msPerUnit, 0), 1) });
  const failures = Object.fromEntries(timings.failures);
  const rss = memory.map((m) => ({ x: m.atS / 60, y: m.rssMb }));
  const heap = memory.map((m) => ({ x: m.atS / 60, y: m.heapMb }));
  // The slope of the second half too: the first minutes still shed what the ingest phase left.
  const memoryOf = (points: { x: number; y: number }[]) => ({
    startMb: points[0]?.y ?? 0,
    endMb: points.at(-1)?.y ?? 0,
    maxMb: Math.max(...points.map((p) => p.y)),
    slopeMbPer10Min: round(slope(points) * 10),
    secondHalfSlopeMbPer10Min: round(slope(points.slice(Math.floor(points.length / 2))) * 10),
  });
  const targetP95S = POLL_MINUTES * 60 + 15;
  const p50Overhead = viaWorkflow.length ? percentile(viaWorkflow, 50) - percentile(direct, 50) : null;
  const results = {
    date: runStarted.toISOString(),
    machine: { cores: os.cpus().length, cpu: os.cpus()[0]?.model.trim() ?? 'unknown', memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, database, loadAverage: { start: loadStart.map((l) => round(l, 2)), end: loadEnd.map((l) => round(l, 2)) } },
    load: { ingest: ingestLoad, enrich: enrichLoad, steady: steadyLoad },
    settings: { sources: sources.length, feedItems: FEED_ITEMS, pollIntervalMinutes: POLL_MINUTES, steadyMinutes: MINUTES, publishEverySeconds: PUBLISH_EVERY_S, enrichRuns: ENRICH_RUNS },
    ingest: {
      items: itemsStored,
      expected,
      registerMs: Math.round(registeredMs),
      decidedS: decidedMs === null ? null : round(decidedMs / 1000),
      itemsPerSecond: decidedMs === null ? null : round(itemsStored / (decidedMs / 1000)),
      allPublishedS: publishedMs === null ? null : round(publishedMs / 1000),
      states,
      ingestItemMs: stats(timings.get('ingest', 'ingestItem')),
      pollSourceMs: stats(timings.get('ingest', 'pollSource')),
      enrichArticleMs: stats(timings.get('ingest', 'enrichArticle')),
      pageHttpMs: stats(timings.get('ingest', 'http:page')),
      robotsHttpMs: stats(timings.get('ingest', 'http:robots')),
      feedHttpMs: stats(timings.get('ingest', 'http:feed')),
      extractMs: stats(extractMs),
      /** Per item stored; the first enrichments (and publishing) run in this phase too. */
      database: databaseOf('ingest', Math.max(1, itemsStored)),
    },
    feedToArticle: {
      published: all.length,
      becameArticles: count('published'),
      syndicated: count('syndicated'),
      duplicate: count('duplicate'),
      failed: count('failed'),
      unsettled,
      toArticleS: stats(toArticle),
      toCopyDecidedS: stats(toCopy),
      targetP95S,
      met: toArticle.length ? percentile(toArticle, 95) <= targetP95S : null,
    },
    enrichment: {
      runs: viaWorkflow.length,
      skipped,
      workflowMs: stats(viaWorkflow),
      directMs: stats(direct),
      activityMs: stats(activityMs),
      /** Server-side parts of each workflow run (history event times) and the client's share. */
      parts: Object.fromEntries([...parts].map(([k, v]) => [k, stats(v)])),
      /** Per run (warm-up included): the workflow's enrichArticle activity's commands. */
      database: databaseOf('enrich', Math.max(1, picked.length - skipped)),
      /** The same workflow with an activity that answers at once (Temporal alone), and its parts. */
      floorMs: stats(floorMs),
      floorParts: Object.fromEntries([...floorParts].map(([k, v]) => [k, stats(v)])),
      /** The same shape with a local activity answering at once (ops/bench/floor.workflow.ts). */
      localFloorMs: stats(localFloorMs),
      localFloorParts: Object.fromEntries([...localFloorParts].map(([k, v]) => [k, stats(v)])),
      overheadP50Ms: p50Overhead === null ? null : round(p50Overhead),
      overheadP95Ms: viaWorkflow.length ? round(percentile(viaWorkflow, 95) - percentile(direct, 95)) : null,
      targetP50Ms: 50,
      met: p50Overhead === null ? null : p50Overhead <= 50,
    },
    memory: { samples: memory, rss: memoryOf(rss), heapUsed: memoryOf(heap) },
    failures,
  };

  if (JSON_OUT) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  const f = (s: Stats | null, unit: string) => (s ? `${s.p50} / ${s.p95} ${unit} (n ${s.n})` : 'n/a');
  const yes = (met: boolean | null) => (met === null ? 'n/a' : met ? 'yes' : '**no**');
  const r = results;
  const lines = [
    '',
    `News sources ingest and enrichment: ${r.date.slice(0, 10)}, ${r.machine.cores} × ${r.machine.cpu}, ${r.machine.memoryGb} GiB, Node ${r.machine.node}, ${r.machine.database}; load average ${r.machine.loadAverage.start.join(' ')} at start, ${r.machine.loadAverage.end.join(' ')} at end`,
    `${r.settings.sources} sources × ${r.settings.feedItems} items, polled every ${r.settings.pollIntervalMinutes} min; steady phase ${r.settings.steadyMinutes} min, one item every ${r.settings.publishEverySeconds} s`,
    '',
    '| measure | result (p50 / p95) | target | met |',
    '|---|---|---|---|',
    `| ingest: registration → no item 'new' (${r.ingest.items} of ${r.ingest.expected} items) | ${r.ingest.decidedS ?? 'n/a'} s, **${r.ingest.itemsPerSecond ?? 'n/a'} items/s** | | |`,
    `| ingest: registration → every article published (${r.ingest.states.published ?? 0} articles) | ${r.ingest.allPublishedS ?? 'n/a'} s | | |`,
    `| item states after ingest | ${Object.entries(r.ingest.states).map(([k, v]) => `${k} ${v}`).join(', ')} | | |`,
    `| ingestItem activity (page, extraction, dedupe, storage) | ${f(r.ingest.ingestItemMs, 'ms')} | | |`,
    `| page HTTP request (robots.txt apart) | ${f(r.ingest.pageHttpMs, 'ms')} | | |`,
    `| extraction alone (extractPage over raw pages) | ${f(r.ingest.extractMs, 'ms')} | | |`,
    `| pollSource activity (100-item feed) | ${f(r.ingest.pollSourceMs, 'ms')} | | |`,
    `| enrichArticle activity (first enrichment, publish) | ${f(r.ingest.enrichArticleMs, 'ms')} | | |`,
    `| feed → article listed (${r.feedToArticle.becameArticles} of ${r.feedToArticle.published} items) | ${f(r.feedToArticle.toArticleS, 's')} | p95 ≤ ${r.feedToArticle.targetP95S} s | ${yes(r.feedToArticle.met)} |`,
    `| feed → syndicated copy/duplicate decided (${r.feedToArticle.syndicated} syndicated, ${r.feedToArticle.duplicate} duplicate; ${r.feedToArticle.failed} failed, ${r.feedToArticle.unsettled} unsettled) | ${f(r.feedToArticle.toCopyDecidedS, 's')} | | |`,
    `| re-enrichment through the workflow | ${f(r.enrichment.workflowMs, 'ms')} | | |`,
    `| direct requestEnrichment call | ${f(r.enrichment.directMs, 'ms')} | | |`,
    `| enrichArticle activity inside the workflow | ${f(r.enrichment.activityMs, 'ms')} | | |`,
    `| workflow − direct | ${r.enrichment.overheadP50Ms ?? 'n/a'} / ${r.enrichment.overheadP95Ms ?? 'n/a'} ms | p50 ≤ 50 ms | ${yes(r.enrichment.met)} |`,
    `| the floor: the same workflow, its activity answering at once | ${f(r.enrichment.floorMs, 'ms')} | | |`,
    `| the same with a local activity answering at once | ${f(r.enrichment.localFloorMs, 'ms')} | | |`,
    `| rss over the steady phase (${memory.length} samples) | start ${r.memory.rss.startMb}, end ${r.memory.rss.endMb}, max ${r.memory.rss.maxMb} MB; slope ${r.memory.rss.slopeMbPer10Min} MB/10 min (second half ${r.memory.rss.secondHalfSlopeMbPer10Min}) | steady | |`,
    `| heapUsed over the steady phase | start ${r.memory.heapUsed.startMb}, end ${r.memory.heapUsed.endMb}, max ${r.memory.heapUsed.maxMb} MB; slope ${r.memory.heapUsed.slopeMbPer10Min} MB/10 min (second half ${r.memory.heapUsed.secondHalfSlopeMbPer10Min}) | steady | |`,
    `rss / heapUsed every ${MEMORY_EVERY_MS / 1000} s (MB): ${memory.map((m) => `${m.rssMb.toFixed(0)}/${m.heapMb.toFixed(0)}`).join(' ')}`,
    '',
    `Load per phase (bench process cores used; whole machine busy; this process's event-loop delay p50/p99): ${Object.entries(r.load)
      .map(([k, v]) => `${k} ${v.benchProcessCores} cores, machine ${v.machineBusyPercent ?? 'n/a'}% busy, loop delay ${v.eventLoopDelayMs.p50}/${v.eventLoopDelayMs.p99} ms`)
      .join('; ')}`,
    '',
    'Cores used by the stack per phase (of 2 on the machine; other processes on it not counted):',
    '',
    ...Object.entries(r.load).map(([k, v]) => `- ${k}: ${Object.entries(v.stackCores).map(([n, c]) => `${n} ${c}`).join(', ')}`),
    '',
    `Activity failures (retried by Temporal): ${Object.keys(failures).length ? Object.entries(failures).map(([k, v]) => `${k} ${v.n} (${v.messages.join(' | ')})`).join('; ') : 'none'}`,
    '',
    'Enrichment workflow run, where the time went (p50 / p95 ms; server event times, client = execute − server total):',
    '',
    '| part | p50 / p95 ms | the floor (activity answering at once), p50 / p95 ms |',
    '|---|---|---|',
    ...Object.entries(r.enrichment.parts).map(([k, v]) => {
      const fl = r.enrichment.floorParts[k];
      return `| ${k} | ${v ? `${v.p50} / ${v.p95}` : 'n/a'} | ${fl ? `${fl.p50} / ${fl.p95}` : 'n/a'} |`;
    }),
    '',
    'The same shape with a local activity answering at once (p50 / p95 ms):',
    '',
    '| part | p50 / p95 ms |',
    '|---|---|',
    ...Object.entries(r.enrichment.localFloorParts).map(([k, v]) => `| ${k} | ${v ? `${v.p50} / ${v.p95}` : 'n/a'} |`),
    '',
    `Database commands, the costliest first. Ingest, per item stored (the first enrichments and publishing included): ${totalOf(r.ingest.database).commands} commands, ${totalOf(r.ingest.database).ms} ms in all. Enrichment, per re-enrichment: ${totalOf(r.enrichment.database).commands} commands, ${totalOf(r.enrichment.database).ms} ms.`,
    '',
    '| phase | command collection {filter fields} | commands per unit | ms per unit | p50 / p95 ms |',
    '|---|---|---:|---:|---|',
    ...r.ingest.database.slice(0, 14).map((d) => `| ingest | \`${d.command}\` | ${d.perUnit} | ${d.msPerUnit} | ${d.p50} / ${d.p95} |`),
    ...r.enrichment.database.slice(0, 10).map((d) => `| enrichment | \`${d.command}\` | ${d.perUnit} | ${d.msPerUnit} | ${d.p50} / ${d.p95} |`),
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    say(`failed: ${err.stack ?? err.message}`);
    process.exit(1);
  },
);
