/**
 * Benchmark: quizzes and streaks at scale (issue 12). In one run, against the stack `npm test`
 * provisions (or the database MONGODB_URI names):
 *  1. stores the quizzes of a year of editions (two per edition day), BENCH_READERS readers
 *     (default 100,000) with a year of readings (each reads ~60% of the edition days before the
 *     recovery window, one edition or both), and BENCH_ATTEMPTS attempts (default 50,000);
 *  2. from BENCH_CONNECTIONS concurrent keep-alive connections (default 50), BENCH_REQUESTS requests
 *     (default 1,000) each of GET /quiz/available, GET /quiz/streak (random readers) and POST
 *     /quiz/submit (each a first attempt of its reader at a quiz of the window), beside a bare Koa
 *     endpoint answering a fixed /quiz/available body (the ceiling of HTTP + Koa alone).
 *
 * Run with `npm run bench:quiz`. Prints Markdown to stdout, progress to stderr.
 */
import http from 'node:http';
import os from 'node:os';
import Koa from 'koa';
import { createApp } from '../../api/shared/app';
import { closeInfra, createInfra } from '../../api/shared/infra';
import { definitionFor } from '../../api/shared/server';
import { createQuizService, makeQuizDeps } from '../../api/quiz/service';
import { signToken } from '../../models/auth/token.rules';
import { parseConfig } from '../../models/config';
import { createLogger } from '../../models/infra/logger';
import { EDITIONS, hasEditions, MAX_DAYS_RECOVERY, quizDateOf } from '../../models/quiz/calendar.rules';
import { addDays, localDate } from '../../models/shared/calendar.rules';
import { QUIZ_RULES, type QuizDoc } from '../../models/quiz/quiz.rules';
import { masksOf } from '../../models/quiz/read-days.rules';
import { READ_DAYS_COLLECTION } from '../../models/quiz/read-days.repo';
import { closedLoop, measureLoad, percentile, say, type TimedRequest } from './load';
import { analyze, devPostgres } from '../dev-database';

const READERS = Number(process.env.BENCH_READERS ?? 100_000);
const ATTEMPTS = Number(process.env.BENCH_ATTEMPTS ?? 50_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1_000);
const WARMUP = 2 * CONNECTIONS;
const BATCH = 10_000;

/** A deterministic pseudo-random number in [0, 1) for a key (the same data on every run). */
function unit(key: string): number {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return (h >>> 0) / 2 ** 32;
}

const readerId = (n: number) => `bench-reader-${n}`;
const CORRECT = [0, 1, 2, 3, 0, 1, 2, 3, 0, 1];

async function main(): Promise<void> {
  const config = parseConfig(process.env);
  const infra = createInfra(config, 'quiz', createLogger({ name: 'bench', level: 'silent' }));
  const conn = await infra.mongo.ready;
  const deps = makeQuizDeps(infra);
  const db = conn.db!;
  const today = localDate(new Date(), config.quiz.timeZone);
  const days: string[] = [];
  for (let d = addDays(today, -365); d < today; d = addDays(d, 1)) if (hasEditions(d)) days.push(d);
  const windowStart = addDays(today, -MAX_DAYS_RECOVERY);

  // 1. Data. Quizzes: two per edition day of the year.
  await Promise.all([deps.quiz.quizzes.ensureIndexes(), deps.quiz.attempts.ensureIndexes(), deps.quiz.readings.daysRead('warm-up')]);
  const quizzes = db.collection<QuizDoc>('quizzes');
  if ((await quizzes.countDocuments({ origin: 'manual', title: /^bench/ })) < days.length * 2) {
    say(`storing ${days.length * 2} quizzes…`);
    for (const date of days)
      for (const edition of EDITIONS)
        await deps.quiz.quizzes.insert({
          date,
          edition,
          quizDate: quizDateOf(date, edition),
          postId: `${date}-${edition}`,
          title: `bench quiz ${date} ${edition}`,
          description: 'benchmark',
          minCorrectAnswers: QUIZ_RULES.minCorrectAnswers,
          questions: CORRECT.map((correct, i) => ({ text: `Pergunta ${i + 1}?`, options: ['A', 'B', 'C', 'D'], correct })),
          origin: 'manual',
        });
  }
  const windowQuizzes = await quizzes.find({ date: { $gte: windowStart, $lt: today } }, { projection: { _id: 1, date: 1 } }).toArray();
  const yearQuizzes = await quizzes.find({ date: { $lt: windowStart } }, { projection: { _id: 1, date: 1, edition: 1, quizDate: 1 } }).toArray();

  // Readings: a year before the window, ~60% of edition days per reader (so the window is unread).
  function* readingsOf(userId: string): Generator<[string, readonly ('morning' | 'night')[]]> {
    for (const date of days) {
      if (date >= windowStart) continue;
      const r = unit(`${userId}|${date}`);
      if (r >= 0.6) continue;
      yield [date, r < 0.15 ? EDITIONS : r < 0.4 ? ['morning'] : ['night']];
    }
  }
  const readings = db.collection('readings');
  const readingsPresent = await db.command({ count: 'readings', query: { userId: /^bench-reader-/ } }).then((r) => (r as { n: number }).n);
  const seedStarted = performance.now();
  if (readingsPresent === 0) {
    say(`storing a year of readings for ${READERS.toLocaleString('en')} readers…`);
    let batch: Record<string, unknown>[] = [];
    let stored = 0;
    // Up to three batches in flight: the database, not this loop, sets the pace.
    const inFlight = new Set<Promise<void>>();
    const flush = async () => {
      if (batch.length === 0) return;
      const docs = batch;
      batch = [];
      const write: Promise<void> = readings.insertMany(docs as never[], { ordered: false }).then(() => {
        stored += docs.length;
        inFlight.delete(write);
      });
      inFlight.add(write);
      if (inFlight.size >= 3) await Promise.race(inFlight);
    };
    for (let n = 0; n < READERS; n++) {
      const userId = readerId(n);
      for (const [date, editions] of readingsOf(userId)) {
        for (const edition of editions) batch.push({ _id: `${encodeURIComponent(userId)}|${date}|${edition}`, userId, date, edition, source: 'read', at: new Date(`${date}T12:00:00Z`) });
      }
      if (batch.length >= BATCH) await flush();
      if (n % 10_000 === 9_999) say(`  ${n + 1} readers, ${stored.toLocaleString('en')} readings, ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`);
    }
    await flush();
    await Promise.all(inFlight);
  }
  const readingCount = await db.command({ count: 'readings', query: { userId: /^bench-reader-/ } }).then((r) => (r as { n: number }).n);
  const readingsSeconds = (performance.now() - seedStarted) / 1000;

  // Statistics after the bulk load, so the development database orders lists from their indexes.
  if (analyze(devPostgres(config))) say('statistics gathered');

  // Attempts: one each for the first ATTEMPTS readers, at a quiz of a day they did not read.
  const attempts = db.collection('quiz_attempts');
  if ((await db.command({ count: 'quiz_attempts', query: { userId: /^bench-reader-/ } }).then((r) => (r as { n: number }).n)) === 0) {
    say(`storing ${ATTEMPTS.toLocaleString('en')} attempts…`);
    let batch: Record<string, unknown>[] = [];
    for (let n = 0; n < ATTEMPTS; n++) {
      const userId = readerId(n);
      const quiz = yearQuizzes[Math.floor(unit(`attempt|${userId}`) * yearQuizzes.length)]!;
      const correctAnswers = Math.floor(unit(`score|${userId}`) * 11);
      const passed = correctAnswers >= QUIZ_RULES.minCorrectAnswers;
      batch.push({ _id: `${encodeURIComponent(userId)}|${quiz._id}`, userId, quizId: quiz._id, quizDate: quiz.quizDate, date: quiz.date, edition: quiz.edition, title: 'bench', answers: CORRECT, correctAnswers, totalQuestions: 10, minCorrectAnswers: 6, passed, streakRecovered: passed, at: new Date(`${quiz.date}T20:00:00Z`) });
      if (batch.length >= BATCH) {
        await attempts.insertMany(batch as never[], { ordered: false });
        batch = [];
      }
    }
    if (batch.length) await attempts.insertMany(batch as never[], { ordered: false });
  }
  // Each reader's days (read-days.repo): what the writes above would have marked, history complete.
  const readDays = db.collection(READ_DAYS_COLLECTION);
  if ((await db.command({ count: READ_DAYS_COLLECTION, query: { _id: /^bench-reader-/ } }).then((r) => (r as { n: number }).n)) === 0) {
    say(`storing the day documents of ${READERS.toLocaleString('en')} readers…`);
    const recovered = new Map((await attempts.find({ userId: /^bench-reader-/, streakRecovered: true }, { projection: { userId: 1, date: 1 } }).toArray()).map((a) => [a.userId as string, a.date as string]));
    let batch: Record<string, unknown>[] = [];
    for (let n = 0; n < READERS; n++) {
      const userId = readerId(n);
      const read = [...readingsOf(userId)].map(([date]) => date);
      const extra = recovered.get(userId);
      batch.push({ _id: userId, months: masksOf(extra ? [...read, extra] : read), complete: true });
      if (batch.length >= BATCH) {
        await readDays.insertMany(batch as never[], { ordered: false });
        batch = [];
      }
    }
    if (batch.length) await readDays.insertMany(batch as never[], { ordered: false });
  }
  // The design the issue proposed, for comparison (BENCH_BUCKETS=0 leaves it out): one document
  // per reader and month holding that month's readings, read by an `_id` range.
  const buckets = db.collection('bench_reading_buckets');
  const compareBuckets = process.env.BENCH_BUCKETS !== '0';
  if (compareBuckets && (await buckets.estimatedDocumentCount()) === 0) {
    say('storing monthly reading buckets for the comparison…');
    let batch: Record<string, unknown>[] = [];
    const bucketStarted = performance.now();
    for (let n = 0; n < READERS; n++) {
      const userId = readerId(n);
      const months = new Map<string, Record<string, Record<string, { source: string; at: Date }>>>();
      for (const [date, editions] of readingsOf(userId)) {
        const month = months.get(date.slice(0, 7)) ?? {};
        month[date] = Object.fromEntries(editions.map((e) => [e, { source: 'read', at: new Date(`${date}T12:00:00Z`) }]));
        months.set(date.slice(0, 7), month);
      }
      for (const [month, daysRead] of months) batch.push({ _id: `${encodeURIComponent(userId)}|${month}`, days: daysRead });
      if (batch.length >= BATCH) {
        await buckets.insertMany(batch as never[], { ordered: false });
        batch = [];
      }
    }
    if (batch.length) await buckets.insertMany(batch as never[], { ordered: false });
    say(`  ${(await buckets.estimatedDocumentCount()).toLocaleString('en')} buckets in ${((performance.now() - bucketStarted) / 1000).toFixed(0)} s`);
  }
  if (analyze(devPostgres(config))) say('statistics gathered');

  // Submissions of this run start after those of earlier runs (each must be a first attempt).
  await attempts.deleteMany({ userId: /^bench-reader-/, date: { $gte: windowStart } });

  // 2. Load.
  const serverInfo = (await db.command({ buildInfo: 1 })) as { version?: string; ferretdb?: { version?: string } };
  const database = serverInfo.ferretdb?.version ? `FerretDB ${serverInfo.ferretdb.version} on PostgreSQL with DocumentDB` : `MongoDB ${serverInfo.version}`;
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  process.stdout.write(
    `**${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${cpu}, ${database}, Node ${process.version}; ` +
      `${READERS.toLocaleString('en')} readers, ${readingCount.toLocaleString('en')} readings (stored in ${readingsSeconds.toFixed(0)} s), ` +
      `${(await attempts.estimatedDocumentCount()).toLocaleString('en')} attempts, ${(yearQuizzes.length + windowQuizzes.length).toLocaleString('en')} quizzes; ` +
      `${CONNECTIONS} connections, ${REQUESTS} requests per endpoint:**\n\n| endpoint | p50 | p99 | requests/s | answers |\n|---|---:|---:|---:|---|\n`,
  );
  if (windowQuizzes.length === 0) throw new Error('no quiz in the recovery window (today is just after a Sunday and a Saturday?)');

  const app = createApp(definitionFor(createQuizService, config), deps);
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const token = (userId: string) => signToken(config.auth.jwtSecret!, { sub: userId, permissions: [] });

  type Call = TimedRequest;
  const measure = (name: string, calls: Call[], warmup: Call[]) => measureLoad(name, agent, CONNECTIONS, calls, warmup);

  const randomReaders = async (count: number, salt: string) =>
    await Promise.all(Array.from({ length: count }, async (_, i) => `Bearer ${await token(readerId(Math.floor(unit(`${salt}|${i}`) * READERS)))}`));
  const gets = async (path: string, count: number, salt: string): Promise<Call[]> => (await randomReaders(count, salt)).map((auth) => ({ url: `${base}${path}`, headers: { Authorization: auth } }));

  const fixed = await (await fetch(`${base}/quiz/available`, { headers: { Authorization: (await randomReaders(1, 'fixed'))[0]! } })).text();
  const bare = new Koa();
  bare.use((ctx) => {
    ctx.type = 'application/json';
    ctx.body = fixed;
  });
  const bareServer = http.createServer(bare.callback());
  await new Promise<void>((r) => bareServer.listen(0, '127.0.0.1', () => r()));
  const bareBase = `http://127.0.0.1:${(bareServer.address() as { port: number }).port}`;
  const bareCalls = (n: number): Call[] => Array.from({ length: n }, () => ({ url: `${bareBase}/`, headers: { Authorization: 'Bearer x' } }));

  await measure('bare Koa, fixed /quiz/available body (ceiling)', bareCalls(REQUESTS), bareCalls(WARMUP));
  await measure('GET /quiz/available', await gets('/quiz/available', REQUESTS, 'available'), await gets('/quiz/available', WARMUP, 'available-warm'));
  await measure('GET /quiz/streak', await gets('/quiz/streak', REQUESTS, 'streak'), await gets('/quiz/streak', WARMUP, 'streak-warm'));
  // Each submission is a reader's first attempt at a quiz of the window (readers spread over all).
  const submissions = async (from: number, count: number): Promise<Call[]> =>
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const n = Math.floor(((from + i) * READERS) / (REQUESTS + WARMUP)) % READERS;
        const quiz = windowQuizzes[(from + i) % windowQuizzes.length]!;
        const answers = CORRECT.map((c, q) => (unit(`answer|${n}|${q}`) < 0.7 ? c : (c + 1) % 4));
        return { method: 'POST' as const, url: `${base}/quiz/submit`, headers: { Authorization: `Bearer ${await token(readerId(n))}` }, body: JSON.stringify({ quizId: quiz._id, answers }) };
      }),
    );
  await measure('POST /quiz/submit', await submissions(WARMUP, REQUESTS), await submissions(0, WARMUP));

  // 3. A streak's read alone, through the driver, from the same callers: the three designs.
  process.stdout.write(`\n**A reader's days alone (${CONNECTIONS} callers, ${REQUESTS} random readers, through the driver):**\n\n| read | p50 | p99 | per s |\n|---|---:|---:|---:|\n`);
  const reader = (i: number) => readerId(Math.floor(unit(`db|${i}`) * READERS));
  const designs: Array<[string, (i: number) => Promise<unknown>]> = [
    ['history: readings by `{userId}` + recovered attempts (before)', (i) => Promise.all([readings.find({ userId: reader(i) }, { projection: { _id: 0, date: 1 }, batchSize: 5_000 }).toArray(), attempts.find({ userId: reader(i), streakRecovered: true }, { projection: { _id: 0, date: 1 } }).toArray()])],
    ['one day document by `_id` (after)', (i) => readDays.findOne({ _id: reader(i) as never })],
  ];
  if (compareBuckets) {
    designs.push(['monthly buckets by `_id` range (proposed)', (i) => buckets.find({ _id: { $gte: `${encodeURIComponent(reader(i))}|`, $lt: `${encodeURIComponent(reader(i))}|~` } as never }, { batchSize: 100 }).toArray()]);
  }
  for (const [name, op] of designs) {
    await closedLoop(CONNECTIONS, WARMUP, (i) => op(i + 1_000_000));
    const { latencies, ms } = await closedLoop(CONNECTIONS, REQUESTS, op);
    process.stdout.write(`| ${name} | ${percentile(latencies, 50).toFixed(1)} ms | **${percentile(latencies, 99).toFixed(1)} ms** | ${Math.round(REQUESTS / (ms / 1000))} |\n`);
  }

  agent.destroy();
  bareServer.close();
  server.close();
  await closeInfra(infra);
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`bench failed: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
