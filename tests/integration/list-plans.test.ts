/**
 * Every list reads its page in index order: the queries the repositories send for each list (every
 * article order, unfiltered and with each filter; tickets with each filter; quizzes, attempts, the
 * detailed report) are captured from the driver and explained, and a plan that sorts in memory
 * fails the test. On the development database that is a PostgreSQL Sort node (DocumentDB orders
 * from an index only on its extended RUM, with statistics: ops/dev-database.ts); on MongoDB a SORT
 * stage. The data lives in a database of its own, large enough that a Sort would be chosen over a
 * scan in order were the index missing or unusable.
 */
import { randomUUID } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import type { CommandStartedEvent, Document } from 'mongodb';
import { buildIndexesRacing } from '../../models/infra/mongo';
import { loadConfig } from '../../models/config';
import { articleModel } from '../../models/news/article.model';
import { createArticleQueries } from '../../models/news/article-query';
import { defaultPreferences } from '../../models/news/preferences.rules';
import { ORDERINGS, SECTORS, TOPICS, URGENCY_LEVELS, type Ordering } from '../../models/news/article.rules';
import { ticketModel } from '../../models/support/support.model';
import { createTicketRepo } from '../../models/support/ticket.repo';
import { createQuizRepo } from '../../models/quiz/quiz.repo';
import { createAttemptRepo } from '../../models/quiz/attempt.repo';
import { createReportRepo } from '../../models/support/report.repo';
import { analyze, devPostgres } from '../../ops/dev-database';

const ARTICLES = 12_000;
const TICKETS = 6_000;
const DAY = 86_400_000;
const now = Date.UTC(2026, 10, 20, 12);

let conn: Connection;
const captured: Document[] = [];

/** The commands a call sends that read a sorted page (find with sort, aggregate with $sort). */
async function sortedReadsOf(call: () => Promise<unknown>): Promise<Document[]> {
  captured.length = 0;
  await call();
  // The driver sends a find's sort as a Map.
  const sorted = (sort: unknown) => (sort instanceof Map ? sort.size > 0 : !!sort && Object.keys(sort).length > 0);
  return captured.filter((c) => (c.find && sorted(c.sort)) || (c.aggregate && (c.pipeline as Document[]).some((s) => '$sort' in s)));
}

/** Plan nodes (PostgreSQL's JSON plan under FerretDB, winning-plan stages on MongoDB), top down. */
function planNodes(explained: Document): string[] {
  const pg = (explained.queryPlanner as Document | undefined)?.Plan as Document | undefined;
  if (pg) {
    const walk = (n: Document): string[] => [String(n['Node Type']) + (n['Index Name'] ? `(${n['Index Name']})` : ''), ...((n.Plans as Document[] | undefined) ?? []).flatMap(walk)];
    return walk(pg);
  }
  const stages: string[] = [];
  const walk = (s: Document | undefined) => {
    if (!s) return;
    stages.push(String(s.stage) + (s.indexName ? `(${s.indexName})` : ''));
    walk(s.inputStage as Document | undefined);
    for (const i of (s.inputStages as Document[] | undefined) ?? []) walk(i);
  };
  const planner = (explained.queryPlanner ?? (explained.stages as Document[] | undefined)?.[0]?.$cursor?.queryPlanner) as Document | undefined;
  walk(planner?.winningPlan as Document | undefined);
  return stages;
}

const sortsInMemory = (nodes: string[]) => nodes.some((n) => /^(Sort|Incremental Sort|SORT)\b/.test(n));

async function explain(command: Document): Promise<string[]> {
  const { lsid: _l, $clusterTime: _c, $db: _d, $readPreference: _r, ...cmd } = command;
  return planNodes(await conn.db!.command({ explain: cmd, verbosity: 'queryPlanner' }));
}

/** Explains every sorted read a call makes; returns what sorted in memory (empty when none did). */
async function inMemorySorts(call: () => Promise<unknown>): Promise<string[]> {
  const reads = await sortedReadsOf(call);
  expect(reads.length).toBeGreaterThan(0);
  const bad: string[] = [];
  for (const read of reads) {
    const nodes = await explain(read);
    const sort = read.sort instanceof Map ? Object.fromEntries(read.sort) : read.sort;
    if (sortsInMemory(nodes)) bad.push(`${JSON.stringify(read.filter ?? read.pipeline)} sort ${JSON.stringify(sort ?? '')}: ${nodes.join(' > ')}`);
  }
  return bad;
}

beforeAll(async () => {
  const config = loadConfig();
  conn = await mongoose
    .createConnection(config.mongo.uri!, { dbName: `plans_${randomUUID().slice(0, 8)}`, monitorCommands: true })
    .asPromise();
  conn.on('commandStarted', (e: CommandStartedEvent) => {
    if (e.commandName === 'find' || e.commandName === 'aggregate') captured.push(e.command);
  });

  // Articles: every sector, topic, urgency; a few entities and tickers; breaking now and then.
  const articles = Array.from({ length: ARTICLES }, (_, i) => {
    const publishedAt = new Date(now - i * 3_600_000 - (i % 7) * 60_000);
    const baseScore = (i * 37) % 101;
    return {
      _id: randomUUID(), sourceName: 'Fonte', sourceUrl: `https://fonte.example/${i}`, sourceKey: `fonte.example/${i}`,
      title: `Artigo ${i}`, subtitle: null, summary: null, publishedAt,
      // Few sectors and topics, so that each filtered list is long (a short one is sorted in memory
      // on cost, rightly: 200 rows sort faster than an index walk).
      primarySector: SECTORS[i % 3], primaryTopic: TOPICS[(i * 7) % 3], contentType: 'NEWS',
      urgencyLevel: URGENCY_LEVELS[i % URGENCY_LEVELS.length], urgencyRank: 1 + (i % 4), isBreaking: i % 50 === 0, isExclusive: false,
      language: i % 5 === 0 ? 'en' : 'pt', baseScore, relevance: publishedAt.getTime() / 3_600_000 + 0.24 * baseScore, modules: {},
      entityIds: [`entity-${i % 40}`], tickers: [`TICK${i % 30}`], search: { title: `artigo ${i}`, subtitle: '', summary: '' }, terms: ['artig', `n${i % 100}`],
      createdAt: publishedAt,
    };
  });
  const Articles = articleModel(conn);
  // Index builds of other databases (the pipeline's) may run at once: the development database can
  // abort one as a deadlock, and repeated it succeeds (models/infra/mongo.ts).
  await buildIndexesRacing(() => Articles.createIndexes());
  await Articles.collection.insertMany(articles as never[]);

  const Tickets = ticketModel(conn);
  await buildIndexesRacing(() => Tickets.createIndexes());
  const statuses = ['open', 'in_progress', 'resolved', 'closed', 'deleted'] as const;
  await Tickets.collection.insertMany(
    Array.from({ length: TICKETS }, (_, i) => {
      const createdAt = new Date(now - (TICKETS - i) * 600_000);
      const status = statuses[i % statuses.length]!;
      return {
        _id: i + 1, main: `main-${i % 4}`, issue: `issue-${i % 12}`, description: `Chamado ${i}`, status, email: `leitor${i % 300}@example.com`,
        newsletter: `news-${i % 3}`, wantReply: true, replied: null, tags: [i % 20], statusVersion: 1, statusBeforeDelete: status === 'deleted' ? 'open' : null,
        deletedAt: status === 'deleted' ? createdAt : null, firstAdminReplyAt: null, firstAdminReplyBy: null, resolvedAt: null, reopenCount: 0, lastMessageAt: null, createdAt, updatedAt: createdAt,
      } as never;
    }),
  );

  const quizzes = createQuizRepo(conn);
  await quizzes.ensureIndexes();
  await conn.db!.collection('quizzes').insertMany(
    Array.from({ length: 730 }, (_, i) => ({ _id: randomUUID(), date: new Date(now - Math.floor(i / 2) * DAY).toISOString().slice(0, 10), edition: i % 2 ? 'night' : 'morning', questions: [], createdAt: new Date(now) })) as never[],
  );
  const attempts = createAttemptRepo(conn);
  await attempts.ensureIndexes();
  await conn.db!.collection('quiz_attempts').insertMany(
    Array.from({ length: 4_000 }, (_, i) => ({ _id: randomUUID(), userId: i < 2_000 ? 'reader-3' : `reader-${i % 200}`, quizId: randomUUID(), date: new Date(now - (i % 300) * DAY).toISOString().slice(0, 10), at: new Date(now - i * 60_000), passed: true })) as never[],
  );

  // The development database chooses an ordered scan on its statistics (MongoDB needs none).
  analyze(devPostgres(config));
}, 300_000);

afterAll(async () => {
  await conn?.dropDatabase().catch(() => undefined);
  await conn?.close();
});

describe('every list reads its page in index order (explain)', () => {
  const page = { limit: 20, offset: 40 };
  const since = new Date(now - 90 * DAY);

  it.each(ORDERINGS.map((o) => [o]))('articles sorted by %s, unfiltered (and by date, newest first)', async (ordering: Ordering) => {
    const q = createArticleQueries(conn);
    const bad: string[] = [];
    const filters = ordering === 'publishedAt' ? [{}, { from: since }, { from: since, to: new Date(now - 30 * DAY) }] : [{}];
    for (const f of filters) bad.push(...(await inMemorySorts(() => q.list(f, ordering, page))));
    expect(bad).toEqual([]);
  });

  it.each(ORDERINGS.map((o) => [o]))('articles of one sector or topic sorted by %s, with further filters', async (ordering: Ordering) => {
    // Four indexes share each of the `primarySector` and `primaryTopic` prefixes, one per order:
    // each list must read from its own (the development database's planner needed a patch for
    // that, ops/postgres.ts).
    const q = createArticleQueries(conn);
    const bad: string[] = [];
    for (const f of [{ sector: SECTORS[1] }, { topic: TOPICS[2] }, { sector: SECTORS[1], language: 'pt' }, { topic: TOPICS[2], urgencyLevel: 'HIGH' }]) {
      bad.push(...(await inMemorySorts(() => q.list(f, ordering, page))));
    }
    expect(bad).toEqual([]);
  });

  it('search: the newest matches of every word, unfiltered and by sector, and the older ones', async () => {
    const q = createArticleQueries(conn, undefined, { searchWindow: 100 });
    const bad: string[] = [];
    for (const f of [{}, { sector: SECTORS[1] }]) {
      bad.push(...(await inMemorySorts(() => q.search('artigo n7', f, page))));
      bad.push(...(await inMemorySorts(() => q.search('artigo n7', f, { offset: 100, limit: 20 }))));
    }
    expect(bad).toEqual([]);
  });

  it('the feed: every list followed, newest first, in one command', async () => {
    const q = createArticleQueries(conn);
    const prefs = { ...defaultPreferences(), sectors: [SECTORS[0], SECTORS[1]], topics: [TOPICS[2]], watchlistCompanies: ['entity-7'], watchlistTickers: ['TICK3'], keywords: ['artigo n7'] };
    const reads = await sortedReadsOf(() => q.feed(prefs, { limit: 20, offset: 0 }, new Date(now)));
    expect(reads).toHaveLength(1);
    expect(await inMemorySorts(() => q.feed(prefs, { limit: 20, offset: 0 }, new Date(now)))).toEqual([]);
  });

  it('articles of an entity, a ticker and breaking news, newest first', async () => {
    const q = createArticleQueries(conn);
    const bad: string[] = [];
    for (const filters of [{ entity: 'entity-7' }, { ticker: 'TICK3' }, { isBreaking: true }, { isBreaking: true, since }, { entity: 'entity-7', from: since }]) {
      bad.push(...(await inMemorySorts(() => q.list(filters, 'publishedAt', { limit: 20, offset: 0 }))));
    }
    expect(bad).toEqual([]);
  });

  it('tickets, newest first: not deleted, by status, e-mail, issue, tag, and with deleted ones of a status', async () => {
    const tickets = createTicketRepo(conn);
    const bad: string[] = [];
    for (const filters of [{}, { status: 'open' as const }, { email: 'leitor17@example.com' }, { issue: 'issue-3' }, { tag: 5 }, { status: 'deleted' as const, includeDeleted: true }]) {
      bad.push(...(await inMemorySorts(() => tickets.list(filters, 3, 20))));
    }
    expect(bad).toEqual([]);
  });

  it('quizzes newest first, all and by edition; the attempts of a reader, newest first', async () => {
    const quizzes = createQuizRepo(conn);
    const attempts = createAttemptRepo(conn);
    const bad = [
      ...(await inMemorySorts(() => quizzes.list({ page: 2, limit: 20 }))),
      ...(await inMemorySorts(() => quizzes.list({ edition: 'night', page: 1, limit: 20 }))),
      ...(await inMemorySorts(() => attempts.history('reader-3', 2, 20))),
    ];
    expect(bad).toEqual([]);
  });

  it('the detailed support report, newest first', async () => {
    const reports = createReportRepo(conn);
    const bad = await inMemorySorts(() => reports.detailed({ from: new Date(now - 365 * DAY), to: new Date(now) }, { offset: 20, limit: 20 }));
    expect(bad).toEqual([]);
  });

  it('tells a plan that sorts in memory from one that does not (the check can fail)', async () => {
    // No index of articles is ordered by language: both databases must sort this one in memory.
    const bad = await inMemorySorts(() => conn.db!.collection('articles').find({ primarySector: SECTORS[1] }, { sort: { language: 1 }, limit: 20 }).toArray());
    expect(bad).toHaveLength(1);
  });
});
