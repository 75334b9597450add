/**
 * Benchmark: the News API at scale (issue 5). Against the stack `npm test` provisions (or the one
 * the environment names, e.g. DATA_DIR of a running `npm start`):
 *  1. makes sure BENCH_ARTICLES articles (default 100,000) and BENCH_ENTITIES entities (default
 *     5,000) are there, seeding the corpus through the import path if not (needs the worker);
 *  2. serves the news API in this process and, for each endpoint, sends BENCH_REQUESTS requests
 *     (default 500) from BENCH_CONNECTIONS keep-alive connections (default 50), after 2 warm-up
 *     requests per connection: p50, p99 and requests per second, with the real auth, limits and quota path (a
 *     Business test key per endpoint, so the 2,000/min limit is not reached);
 *  3. in the same run, a bare Koa endpoint returning a fixed 20-article page: the ceiling of
 *     Node + Koa + JSON on this machine.
 *
 * With BENCH_CRASH=1 (development database only), it first forces PostgreSQL through crash
 * recovery twice under writes (a backend killed while the articles' scores change), as issue 34
 * asks: the lists must still answer only 200 afterwards.
 *
 * Run with `npm run bench:news`. Prints Markdown to stdout, progress to stderr.
 */
import http from 'node:http';
import os from 'node:os';
import Koa from 'koa';
import { createApp } from '../../api/shared/app';
import { closeInfra, createInfra } from '../../api/shared/infra';
import { definitionFor } from '../../api/shared/server';
import { makeNewsDeps, newsService } from '../../api/news/service';
import { parseConfig } from '../../models/config';
import { createLogger } from '../../models/infra/logger';
import { corpusEntities } from '../news-corpus';
import { seedNewsCorpus } from '../seed';
import { measureLoad, say } from './load';
import type { Connection } from 'mongoose';
import { analyze, devPostgres, sql, type DevPostgres } from '../dev-database';

const ARTICLES = Number(process.env.BENCH_ARTICLES ?? 100_000);
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 5_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 500);
/** Warm-up requests, sent over all the connections (so the measured part opens none). */
const WARMUP = 2 * CONNECTIONS;


async function main(): Promise<void> {
  const config = parseConfig(process.env);
  const infra = createInfra(config, 'news', createLogger({ name: 'bench', level: 'silent' }));
  const conn = await infra.mongo.ready;
  const deps = makeNewsDeps(infra);

  const present = await deps.articles.count();
  if (present < ARTICLES) {
    say(`${present} articles present; seeding the corpus to ${ARTICLES} (this takes a while)…`);
    await seedNewsCorpus({ conn, storage: infra.storage, temporal: infra.temporal, config, log: say }, { articles: ARTICLES, entities: ENTITIES });
  }
  // Statistics after the bulk load, so the development database orders lists from their indexes.
  const pg = devPostgres(config);
  if (analyze(pg)) say('statistics gathered');
  if (process.env.BENCH_CRASH === '1') {
    if (!pg) throw new Error('BENCH_CRASH needs the development database');
    await crashUnderWrites(conn, pg);
  }
  const articleCount = await deps.articles.count();
  const entityCount = await conn.db!.collection('entities').estimatedDocumentCount();

  const app = createApp(definitionFor(newsService, config), deps);
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  const serverInfo = (await conn.db!.command({ buildInfo: 1 })) as { version?: string; ferretdb?: { version?: string } };
  const database = serverInfo.ferretdb?.version ? `FerretDB ${serverInfo.ferretdb.version} on PostgreSQL with DocumentDB` : `MongoDB ${serverInfo.version}`;
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const row = (cells: string[]) => process.stdout.write(`| ${cells.join(' | ')} |\n`);
  process.stdout.write(
    `**${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${cpu}, ${database}, Node ${process.version}; ${articleCount.toLocaleString('en')} articles, ${entityCount.toLocaleString('en')} entities; ${CONNECTIONS} connections, ${REQUESTS} requests per endpoint:**\n\n`,
  );
  row(['endpoint', 'p50', 'p99', 'requests/s', 'answers']);
  row(['---', '---:', '---:', '---:', '---']);

  // A fixed 20-article page, as the list answers it, for the bare Koa ceiling.
  // A Business account per measurement: the minute limit holds per account, and a fresh one starts
  // each measurement with its whole minute (live keys: Business has no monthly quota).
  let userId = '';
  const newKey = async () => {
    userId = `bench-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    await deps.users.setPlan(userId, 'business');
    return (await deps.apiKeys.create({ userId, name: 'bench', mode: 'live', scopes: ['*'], expiresAt: null })).key;
  };

  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

  /** `REQUESTS` requests cycling over `paths` (and a warm-up over the same paths). */
  async function measure(name: string, origin: string, paths: string[], key: string | null): Promise<void> {
    const list = (n: number) => Array.from({ length: n }, (_, i) => ({ url: `${origin}${paths[i % paths.length]}`, headers: key ? { 'X-API-Key': key } : ({} as Record<string, string>) }));
    await measureLoad(name, agent, CONNECTIONS, list(REQUESTS), list(WARMUP));
  }

  const pages = (path: string) => [0, 20, 100, 400, 1000].map((offset) => `${path}${path.includes('?') ? '&' : '?'}limit=20&offset=${offset}`);
  const fixedPage = await (await fetch(`${base}/api/articles?limit=20`, { headers: { 'X-API-Key': await newKey() } })).text();
  const bare = new Koa();
  bare.use((ctx) => {
    ctx.type = 'application/json';
    ctx.body = fixedPage;
  });
  const bareServer = http.createServer(bare.callback());
  await new Promise<void>((r) => bareServer.listen(0, '127.0.0.1', () => r()));
  const bareBase = `http://127.0.0.1:${(bareServer.address() as { port: number }).port}`;

  await measure('bare Koa, fixed 20-article page (ceiling)', bareBase, ['/'], null);
  for (const sort of ['publishedAt', 'baseScore', 'urgencyLevel', 'relevance']) {
    await measure(`GET /api/articles?sort=${sort}`, base, pages(`/api/articles?sort=${sort}`), await newKey());
  }
  await measure('GET /api/articles/by-sector/{sector}', base, ['FIN', 'ENE', 'TEC', 'AGR', 'SAU', 'IMO', 'CRY'].flatMap((s) => pages(`/api/articles/by-sector/${s}`)), await newKey());
  const queries = ['petrobras', 'dividendos', 'lucro trimestre', 'copom selic', 'banco central', 'vale mineração', 'ações sobem', 'debêntures', 'recompra de ações', 'itaú unibanco'];
  await measure('GET /api/articles/search', base, queries.flatMap((q) => [0, 20].map((o) => `/api/articles/search?q=${encodeURIComponent(q)}&limit=20&offset=${o}`)), await newKey());
  const ids = corpusEntities(Math.min(ENTITIES, 200)).filter((e) => e.entityType === 'COMPANY').map((e) => e._id);
  await measure('GET /api/entities/{id}/articles', base, ids.flatMap((id) => [0, 20].map((o) => `/api/entities/${id}/articles?limit=20&offset=${o}`)), await newKey());
  const reader = await newKey(); // its account (userId) gets the preferences the feed reads
  await deps.preferences.replace(userId, {
    ...(await deps.preferences.get(userId)),
    sectors: ['FIN', 'ENE', 'TEC'],
    sectorWeights: { FIN: 3, ENE: 2, TEC: 1 },
    topics: ['DIV', 'M&A'],
    topicWeights: { DIV: 2, 'M&A': 1 },
    watchlistCompanies: ids.slice(0, 2),
    watchlistTickers: ['PETR4', 'VALE3', 'ITUB4'],
    keywords: ['dividendos', 'lucro'],
    keywordWeights: { dividendos: 2, lucro: 1 },
  });
  await measure('GET /api/feed (3 sectors, 2 topics, 2 companies, 3 tickers, 2 keywords)', base, [0, 20, 40].map((o) => `/api/feed?limit=20&offset=${o}`), reader);

  agent.destroy();
  bareServer.close();
  server.close();
  await closeInfra(infra);
}

/** Kills a PostgreSQL backend twice while articles' scores (an ordered index's key) change, then waits for the database. */
async function crashUnderWrites(conn: Connection, pg: DevPostgres): Promise<void> {
  const articles = conn.db!.collection<{ _id: string; baseScore?: number }>('articles');
  const ids = (await articles.find({}, { projection: { _id: 1 }, limit: 20_000 }).toArray()).map((d) => d._id);
  let stop = false;
  let written = 0;
  let failed = 0;
  const writers = Array.from({ length: 6 }, async () => {
    while (!stop) {
      const id = ids[Math.floor(Math.random() * ids.length)]!;
      await articles.updateOne({ _id: id }, { $set: { baseScore: Math.round(Math.random() * 100) } }).then(
        () => (written += 1),
        async () => {
          failed += 1;
          await new Promise((r) => setTimeout(r, 50));
        },
      );
    }
  });
  for (let round = 1; round <= 2; round += 1) {
    await new Promise((r) => setTimeout(r, 3_000));
    // After the first crash, PostgreSQL answers again once its recovery is over.
    let victim: string | undefined;
    for (let attempt = 0; attempt < 120 && victim === undefined; attempt += 1) {
      try {
        [victim] = sql(pg, "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() ORDER BY random() LIMIT 1").flat();
      } catch {
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    if (victim) process.kill(Number(victim), 'SIGKILL');
    say(`crash ${round}: killed backend ${victim ?? '(none)'}`);
  }
  await new Promise((r) => setTimeout(r, 3_000));
  stop = true;
  await Promise.all(writers);
  for (let i = 0; i < 120; i += 1) {
    if (await conn.db!.command({ ping: 1 }).then(() => true, () => false)) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  analyze(pg);
  say(`after two crash recoveries: ${written} writes done, ${failed} failed while the database was down`);
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    say(`failed: ${err.stack ?? err.message}`);
    process.exit(1);
  },
);
