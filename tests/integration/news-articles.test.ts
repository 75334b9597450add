/**
 * Articles, search, breaking news, entity articles and the feed, over articles imported through
 * the real path: admin endpoint → MinIO → news import workflow (the test run's worker) → articles
 * collection. The only test file that imports articles, so the collection holds exactly this fixture.
 */
import type { QuizDoc } from '../../models/quiz/quiz.rules';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { NOT_STARTED } from '../../models/infra/save-then-start';
import type { EntityDoc } from '../../models/news/entity.model';
import { runTs } from '../helpers/processes';
import { makeNewsDeps, newsService } from '../../api/news/service';
import { CLOSED_PORT, startTestService, testConfig, tokenFor } from '../helpers/service';
import { accountWithKey, startNewsService, withKey, type NewsService } from '../helpers/news';

let svc: NewsService;
let pro: string;
let starter: string;
let adminJwt: string;

const HOUR = 3_600_000;
const NOW = Date.now();
const SECTORS = ['ENE', 'FIN', 'TEC'] as const;
const TOPICS = ['DIV', 'EARN', 'M&A'] as const;
const URGENCY = ['LOW', 'MEDIUM', 'HIGH'] as const;
const ZETA = { id: randomUUID(), name: 'Companhia Zetânia', ticker: 'ZETA3' };
const OMEGA = { id: randomUUID(), name: 'Ômega Quântica', ticker: 'OMGQ4' };
const N = 45;

interface Fixture {
  i: number;
  title: string;
  subtitle: string;
  summary: string;
  publishedAt: string;
  primarySector: string;
  primaryTopic: string;
  language: string;
  urgencyLevel: string;
  contentType: string;
  isBreaking: boolean;
  isExclusive: boolean;
  baseScore: number;
  sourceUrl: string;
  sourceName: string;
  modules?: object;
}

/** Article i was published i hours ago; special texts for search and entity tests. */
function fixture(i: number): Fixture {
  const special: Record<number, [string, string, string]> = {
    2: ['Mercado acompanha balanços do trimestre', 'Analistas revisam estimativas', 'Investidores esperam dividendo maior neste ano.'],
    5: ['Ações da Companhia Zetânia disparam', 'Papéis sobem após resultado', 'A empresa surpreendeu o mercado.'],
    12: ['Setor elétrico discute tarifas', 'ZETA3 e OMGQ4 entre as mais negociadas', 'Ômega Quântica participa do leilão.'],
    30: ['Companhia Zetânia anuncia dividendos extraordinários', 'Pagamento ocorre em dezembro', 'Conselho aprovou a proposta.'],
  };
  const [title, subtitle, summary] = special[i] ?? [`Boletim setorial número ${i}`, `Resumo do dia ${i}`, `Notas sobre o pregão ${i}.`];
  return {
    i,
    title,
    subtitle,
    summary,
    publishedAt: new Date(NOW - i * HOUR).toISOString(),
    primarySector: SECTORS[i % 3]!,
    primaryTopic: TOPICS[Math.floor(i / 3) % 3]!,
    language: i % 9 === 0 ? 'en' : 'pt',
    urgencyLevel: i === 40 ? 'CRITICAL' : URGENCY[i % 3]!,
    contentType: i % 5 === 0 ? 'ANALYSIS' : 'NEWS',
    isBreaking: [3, 10, 20].includes(i),
    isExclusive: i === 7,
    baseScore: i === 44 ? 99 : 40 + ((i * 7) % 45),
    sourceUrl: `https://fixture.example/artigo/${i}`,
    sourceName: 'Fixture News',
    ...(i === 0 ? { modules: { translations: { pt: { title, subtitle, summary }, en: { title: `Sector bulletin ${i}`, subtitle: null, summary: null } } } } : {}),
  };
}
const articles = Array.from({ length: N }, (_, i) => fixture(i));
const byTitle = new Map(articles.map((a) => [a.title, a]));
const idxOf = (data: { title: string }[]) => data.map((a) => byTitle.get(a.title)!.i);

async function waitForImport(id: string) {
  for (let i = 0; i < 240; i++) {
    const res = await request(svc.callback).get(`/api/admin/imports/${id}`).set('Authorization', `Bearer ${adminJwt}`).expect(200);
    if (res.body.data.state === 'completed' || res.body.data.state === 'failed') return res.body.data;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`import ${id} did not finish`);
}

const postImport = (body: string, jwt = adminJwt, type = 'application/x-ndjson') =>
  request(svc.callback).post('/api/admin/articles/import').set('Authorization', `Bearer ${jwt}`).set('Content-Type', type).send(body);

const list = async (path: string, key = pro) => (await withKey(svc, key, path).expect(200)).body;

beforeAll(async () => {
  // Totals read right after each import: counted on every page (the shared count's staleness is unit-tested: tests/unit/list-totals.test.ts).
  svc = await startNewsService({ LIST_TOTAL_MAX_AGE_SECONDS: '0' });
  pro = (await accountWithKey(svc, 'pro', { mode: 'test' })).key;
  starter = (await accountWithKey(svc, 'starter', { mode: 'test' })).key;
  adminJwt = await tokenFor('news-admin', ['news.admin']);
  const entity = (e: typeof ZETA, aliases: string[]): EntityDoc => ({
    _id: e.id,
    entityType: 'COMPANY',
    canonicalName: e.name,
    aliases,
    ticker: e.ticker,
    cnpj: '11.222.333/0001-81',
    nameKeys: [],
    createdAt: new Date(),
  });
  await svc.deps.entities.insertMany([entity(ZETA, ['Zetânia']), entity(OMEGA, [])]);
});
afterAll(() => svc?.close());

describe('POST /api/admin/articles/import', () => {
  it('imports JSON lines: counts inserted, duplicate URLs and invalid lines (with their line numbers)', async () => {
    const lines = [
      ...articles.map(({ i: _i, ...a }) => JSON.stringify(a)),
      JSON.stringify({ ...articles[0], i: undefined, sourceUrl: 'https://FIXTURE.example/artigo/0/?utm_source=news' }), // same page
      '{not json',
      JSON.stringify({ ...articles[1], i: undefined, sourceUrl: 'https://fixture.example/x', primarySector: 'XYZ' }),
      '',
    ];
    const res = await postImport(lines.join('\n')).expect(202);
    expect(res.headers.location).toBe(`/api/admin/imports/${res.body.data.id}`);
    expect(res.body.data.state).toBe('queued');
    const done = await waitForImport(res.body.data.id);
    expect(done).toMatchObject({ state: 'completed', inserted: N, duplicates: 1, invalid: 2, linesDone: N + 3 });
    expect(done.errors.map((e: { line: number }) => e.line)).toEqual([N + 2, N + 3]);
    expect(done.errors[1].error).toContain('primarySector');
  });

  it('with Temporal down: 503, and the import is failed with why (never left queued without a workflow)', async () => {
    const down = await startTestService(newsService, makeNewsDeps, { config: testConfig({ TEMPORAL_ADDRESS: `127.0.0.1:${CLOSED_PORT}` }) });
    const admin = `news-admin-down-${randomUUID().slice(0, 6)}`;
    try {
      const res = await request(down.callback)
        .post('/api/admin/articles/import')
        .set('Authorization', `Bearer ${await tokenFor(admin, ['news.admin'])}`)
        .set('Content-Type', 'application/x-ndjson')
        .send(JSON.stringify(articles[0]))
        .expect(503);
      expect(res.body).toMatchObject({ success: false, statusCode: 503 });
      const stored = await svc.deps.mongo.conn.db!.collection('news_imports').find({ requestedBy: admin }).toArray();
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ state: 'failed', error: NOT_STARTED });
    } finally {
      await down.close();
    }
  });

  it('adds nothing when the same articles come again, in two imports at once, each its own workflow', async () => {
    const body = articles.map(({ i: _i, ...a }) => JSON.stringify(a)).join('\n');
    const [a, b] = await Promise.all([postImport(body).expect(202), postImport(body).expect(202)]);
    for (const id of [a.body.data.id, b.body.data.id]) {
      expect(await waitForImport(id)).toMatchObject({ state: 'completed', inserted: 0, duplicates: N, invalid: 0 });
      const handle = svc.deps.temporal.client.workflow.getHandle(`news-import-${id}`);
      // Nothing inserted, so no breaking-news alerts started.
      expect(await handle.result()).toEqual({ state: 'completed', inserted: 0, duplicates: N, invalid: 0, alerts: 0, enrichments: 0 });
      expect((await handle.describe()).type).toBe('newsImportWorkflow');
    }
    expect((await list('/api/articles?limit=1')).pagination.total).toBe(N);
  });

  it('refuses callers without news.admin, other media types and empty bodies, queueing nothing', async () => {
    await request(svc.callback).post('/api/admin/articles/import').set('Content-Type', 'application/x-ndjson').send('{}').expect(401);
    await postImport('{}', await tokenFor('someone', [])).expect(403);
    const wrongType = await postImport('{"a":1}', adminJwt, 'text/csv').expect(415);
    expect(wrongType.body.error).toContain('application/x-ndjson');
    await postImport('').expect(400);
    await request(svc.callback).get(`/api/admin/imports/${randomUUID()}`).set('Authorization', `Bearer ${adminJwt}`).expect(404);
  });
});

describe('GET /api/articles', () => {
  it('lists newest first by default, with exact pagination', async () => {
    const page = await list('/api/articles?limit=10');
    expect(idxOf(page.data)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(page.pagination).toEqual({ limit: 10, offset: 0, total: N, hasMore: true });
    const last = await list(`/api/articles?limit=5&offset=${N - 5}`);
    expect(idxOf(last.data)).toEqual([40, 41, 42, 43, 44]);
    expect(last.pagination.hasMore).toBe(false);
    expect((await list(`/api/articles?limit=5&offset=${N - 6}`)).pagination.hasMore).toBe(true);
    expect((await list(`/api/articles?offset=${N}`)).data).toEqual([]);
  });

  it('sorts by baseScore, urgencyLevel and relevance', async () => {
    const expectSorted = (xs: Fixture[], cmp: (a: Fixture, b: Fixture) => number) => xs.map((a) => a.i).join() === [...xs].sort(cmp).map((a) => a.i).join();
    const byScore = (await list('/api/articles?sort=baseScore&limit=100')).data.map((a: { title: string }) => byTitle.get(a.title)!);
    expect(byScore[0].i).toBe(44);
    expect(expectSorted(byScore, (a, b) => b.baseScore - a.baseScore || a.i - b.i)).toBe(true);
    const rank = { CRITICAL: 4, HIGH: 3, MEDIUM: 2, LOW: 1 } as Record<string, number>;
    const byUrgency = (await list('/api/articles?sort=urgencyLevel&limit=100')).data.map((a: { title: string }) => byTitle.get(a.title)!);
    expect(byUrgency[0].i).toBe(40);
    expect(expectSorted(byUrgency, (a, b) => rank[b.urgencyLevel]! - rank[a.urgencyLevel]! || a.i - b.i)).toBe(true);
    // Relevance: the 99-point article of 44 hours ago loses to recent ones of 70+ points.
    const byRelevance = idxOf((await list('/api/articles?sort=relevance&limit=100')).data);
    expect(byRelevance.indexOf(44)).toBeGreaterThan(byRelevance.indexOf(0));
    expect(byRelevance.length).toBe(N);
  });

  it('filters by sector, topic, dates, language, urgency, content type, breaking, entity and ticker', async () => {
    const expectOf = (pred: (a: Fixture) => boolean) => articles.filter(pred).map((a) => a.i);
    const check = async (qs: string, pred: (a: Fixture) => boolean) => {
      const res = await list(`/api/articles?limit=100&${qs}`);
      expect({ qs, got: idxOf(res.data) }).toEqual({ qs, got: expectOf(pred) });
      expect(res.pagination.total).toBe(expectOf(pred).length);
    };
    await check('sector=FIN', (a) => a.primarySector === 'FIN');
    await check('topic=M%26A', (a) => a.primaryTopic === 'M&A');
    await check('sector=ENE&topic=DIV', (a) => a.primarySector === 'ENE' && a.primaryTopic === 'DIV');
    const from = new Date(NOW - 10.5 * HOUR).toISOString();
    const to = new Date(NOW - 2.5 * HOUR).toISOString();
    await check(`from=${from}&to=${to}`, (a) => a.i >= 3 && a.i <= 10);
    await check('language=en', (a) => a.language === 'en');
    await check('urgencyLevel=HIGH&contentType=ANALYSIS', (a) => a.urgencyLevel === 'HIGH' && a.contentType === 'ANALYSIS');
    await check('isBreaking=true', (a) => a.isBreaking);
    await check('isBreaking=false&sector=TEC', (a) => !a.isBreaking && a.primarySector === 'TEC');
    await check(`entity=${ZETA.id}`, (a) => [5, 12, 30].includes(a.i));
    await check('ticker=OMGQ4', (a) => a.i === 12);
    // A list kept newest first only (an entity's), sorted another way: 12 (79), 5 (75), 30 (70).
    expect(idxOf((await list(`/api/articles?entity=${ZETA.id}&sort=baseScore`)).data)).toEqual([12, 5, 30]);
  });

  it('answers bad parameters with 400 naming them, and a missing key with 401', async () => {
    for (const qs of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc', 'sort=popularity', 'sector=XYZ', 'from=yesterday', 'isBreaking=yes', 'entity=abc', 'ticker=P']) {
      const res = await withKey(svc, pro, `/api/articles?${qs}`).expect(400);
      expect({ qs, success: res.body.success, statusCode: res.body.statusCode }).toEqual({ qs, success: false, statusCode: 400 });
      expect(res.body.error.length).toBeGreaterThan(0);
    }
    const anon = await request(svc.callback).get('/api/articles').expect(401);
    expect(anon.body.error).toContain('POST /api/keys');
  });

  it('answers 500 without internals for a damaged article, and 503 when the database is down', async () => {
    // A stored article without its publication date (topic MGMT: no fixture article has it).
    const stored = svc.deps.mongo.conn.db!.collection<{ _id: string }>('articles');
    const damaged = randomUUID();
    await stored.insertOne({ _id: damaged, title: 'damaged', primaryTopic: 'MGMT', publishedAt: null, sourceKey: `https://fixture.example/damaged/${damaged}` } as never);
    try {
      const res = await withKey(svc, pro, '/api/articles?topic=MGMT').expect(500);
      expect(res.body).toMatchObject({ success: false, statusCode: 500 });
      expect(res.body.error).not.toMatch(/toISOString|publishedAt|TypeError/);
    } finally {
      await stored.deleteOne({ _id: damaged });
    }
    const down = await startTestService(newsService, makeNewsDeps, { config: testConfig({ MONGODB_URI: `mongodb://127.0.0.1:${CLOSED_PORT}/` }), waitForMongo: false });
    try {
      const res = await withKey(down, pro, '/api/articles').expect(503);
      expect(res.body).toMatchObject({ success: false, statusCode: 503 });
    } finally {
      await down.close();
    }
  });

  it('gates include modules by plan: 403 names the module and the plan that has it; unknown ones are 400', async () => {
    const starterPage = await list('/api/articles?limit=1&include=translations,meta,classification', starter);
    expect(starterPage.data[0]).toHaveProperty('translations.en.title');
    expect(starterPage.data[0]).toHaveProperty('meta.wordCount');
    expect(starterPage.data[0]).not.toHaveProperty('sentimentScore');
    const denied = await withKey(svc, starter, '/api/articles?include=sentiment').expect(403);
    expect(denied.body.error).toMatch(/sentiment.*Starter.*Pro/);
    const unknown = await withKey(svc, pro, '/api/articles?include=sentiment,emotions').expect(400);
    expect(unknown.body.error).toContain('emotions');
    const withEntities = await list('/api/articles?limit=1&offset=5&include=entities,scoring');
    expect(withEntities.data[0].entities).toEqual([expect.objectContaining({ entityId: ZETA.id, canonicalName: ZETA.name, ticker: 'ZETA3', isInTitle: true, mentionCount: 1 })]);
    expect(withEntities.data[0].scoring).toBeNull(); // imported without scoring: the module has no data
    const plain = await list('/api/articles?limit=1');
    expect(Object.keys(plain.data[0]).sort()).toEqual(
      ['alsoReportedBy', 'contentType', 'id', 'isBreaking', 'language', 'primarySector', 'primaryTopic', 'publishedAt', 'sourceName', 'subtitle', 'summary', 'title', 'urgencyLevel'].sort(),
    );
  });
});

describe('articles by sector, by id, breaking', () => {
  it('lists one sector with the list sorts; an unknown sector is 400', async () => {
    const res = await list('/api/articles/by-sector/TEC?limit=3&sort=urgencyLevel');
    expect(res.pagination.total).toBe(articles.filter((a) => a.primarySector === 'TEC').length);
    expect(res.data.every((a: { primarySector: string }) => a.primarySector === 'TEC')).toBe(true);
    expect(res.data[0].urgencyLevel).toBe('HIGH');
    await withKey(svc, pro, '/api/articles/by-sector/XYZ').expect(400);
  });

  it('returns one article; unknown id 404, malformed 400', async () => {
    const first = (await list('/api/articles?limit=1')).data[0];
    const one = (await list(`/api/articles/${first.id}?include=translations`)).data;
    expect(one).toMatchObject({ id: first.id, title: articles[0]!.title, translations: { en: { title: 'Sector bulletin 0' } } });
    const second = (await list('/api/articles?limit=1&offset=1&include=translations')).data[0];
    expect(second.translations).toBeNull(); // imported without translations
    await withKey(svc, pro, `/api/articles/${randomUUID()}`).expect(404);
    await withKey(svc, pro, '/api/articles/not-a-uuid').expect(400);
  });

  it('lists breaking news newest first, since a moment; needs read:breaking', async () => {
    expect(idxOf((await list('/api/articles/breaking')).data)).toEqual([3, 10, 20]);
    const since = new Date(NOW - 15 * HOUR).toISOString();
    expect(idxOf((await list(`/api/articles/breaking?since=${since}`)).data)).toEqual([3, 10]);
    const noScope = (await accountWithKey(svc, 'pro', { mode: 'test', scopes: ['read:articles'] })).key;
    const res = await withKey(svc, noScope, '/api/articles/breaking').expect(403);
    expect(res.body.error).toContain('read:breaking');
  });
});

describe('GET /api/articles/search', () => {
  it('folds accents and case and matches singular with plural', async () => {
    expect(idxOf((await list('/api/articles/search?q=zetania')).data)).toEqual(expect.arrayContaining([5, 30]));
    expect(idxOf((await list('/api/articles/search?q=ACOES')).data)).toEqual([5]);
    expect(idxOf((await list('/api/articles/search?q=a%C3%A7%C3%A3o')).data)).toEqual([5]); // "ação" finds "Ações"
    expect(idxOf((await list('/api/articles/search?q=quantica')).data)).toEqual([12]);
  });

  it('ranks by match quality (title before summary) and then recency', async () => {
    // "dividendo": article 30 has it in the title (30 h old), article 2 only in the summary (2 h old).
    expect(idxOf((await list('/api/articles/search?q=dividendo')).data)).toEqual([30, 2]);
    // Both words needed; each result holds both.
    expect(idxOf((await list('/api/articles/search?q=zet%C3%A2nia%20dividendos')).data)).toEqual([30]);
    // Two title matches: newest first.
    expect(idxOf((await list('/api/articles/search?q=boletim%20setorial&limit=3')).data)).toEqual([0, 1, 3]);
  });

  it('filters and paginates search results; q under 2 characters is 400', async () => {
    const res = await list('/api/articles/search?q=boletim&sector=FIN&limit=2&offset=1');
    const fin = articles.filter((a) => a.title.startsWith('Boletim') && a.primarySector === 'FIN').map((a) => a.i);
    expect(idxOf(res.data)).toEqual(fin.slice(1, 3));
    expect(res.pagination).toEqual({ limit: 2, offset: 1, total: fin.length, hasMore: true });
    expect((await list('/api/articles/search?q=inexistentexyz')).pagination.total).toBe(0);
    const short = await withKey(svc, pro, '/api/articles/search?q=a').expect(400);
    expect(short.body.error).toContain('2 characters');
    await withKey(svc, pro, '/api/articles/search').expect(400);
  });
});

describe('GET /api/entities/{id}/articles', () => {
  it('lists the articles mentioning an entity, newest first; unknown entity 404', async () => {
    const res = await list(`/api/entities/${ZETA.id}/articles?limit=2&include=entities`);
    expect(idxOf(res.data)).toEqual([5, 12]);
    expect(res.pagination).toEqual({ limit: 2, offset: 0, total: 3, hasMore: true });
    expect(res.data[1].entities.map((e: { entityId: string }) => e.entityId).sort()).toEqual([ZETA.id, OMEGA.id].sort());
    await withKey(svc, pro, `/api/entities/${randomUUID()}/articles`).expect(404);
    await withKey(svc, pro, '/api/entities/x/articles').expect(400);
  });
});

describe('GET /api/feed', () => {
  it('scores what the reader follows, with reasons, highest first', async () => {
    const reader = await accountWithKey(svc, 'pro', { mode: 'test' });
    await request(svc.callback)
      .put('/api/users/preferences')
      .set('X-API-Key', reader.key)
      .send({
        sectors: ['TEC'],
        sectorWeights: { TEC: 1 },
        watchlistTickers: ['OMGQ4'],
        keywords: ['dividendos'],
        keywordWeights: { dividendos: 5 },
        relevanceSettings: { recencyDecayEnabled: false, keywordMultiplier: 2, watchlistMultiplier: 3 },
      })
      .expect(200);
    const feed = await list('/api/feed?limit=100', reader.key);
    const items = feed.data as { title: string; feedScore: number; feedReasons: { type: string; value?: string }[] }[];
    // Keyword 5 × 2 = 10 points (+ 1 for TEC: article 2) beats the watchlist's 2 × 3 = 6 (article 12),
    // which beats a followed sector's 1 (even breaking: × 1.5).
    expect(byTitle.get(items[0]!.title)!.i).toBe(2);
    expect(items[0]!.feedReasons.map((r) => r.type)).toEqual(['sector', 'keyword', 'quality']);
    expect(byTitle.get(items[1]!.title)!.i).toBe(30);
    expect(byTitle.get(items[2]!.title)!.i).toBe(12);
    expect(items[2]!.feedReasons).toContainEqual(expect.objectContaining({ type: 'watchlist_ticker', value: 'OMGQ4' }));
    expect(items.map((i) => i.feedScore)).toEqual([...items.map((i) => i.feedScore)].sort((a, b) => b - a));
    const expected = new Set(articles.filter((a) => a.primarySector === 'TEC' || [2, 12, 30].includes(a.i)).map((a) => a.i));
    expect(new Set(idxOf(items))).toEqual(expected);
    expect(feed.pagination.total).toBe(expected.size);
  });
});

describe('CLI import and seed (same path: MinIO → import workflow → articles)', () => {
  it('imports a JSON lines file and prints the counts on the last line', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'news-import-'));
    const file = path.join(dir, 'artigos.jsonl');
    const extra = [100, 101, 102].map((i) => ({ ...fixture(i), i: undefined, sourceUrl: `https://fixture.example/cli/${i}`, title: `Nota da CLI ${i}` }));
    writeFileSync(file, [...extra, { ...articles[3], i: undefined }].map((a) => JSON.stringify(a)).join('\n'));
    const r = await runTs('ops/cli.ts', ['import', '--file', file], process.env, 120_000);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.lastLine)).toMatchObject({ state: 'completed', inserted: 3, duplicates: 1, invalid: 0 });
    expect((await list('/api/articles?limit=1')).pagination.total).toBe(N + 3);
    const one = path.join(dir, 'one.jsonl');
    writeFileSync(one, JSON.stringify({ ...fixture(103), i: undefined, sourceUrl: 'https://fixture.example/cli/103', title: 'Nota da CLI 103' }));
    expect((await runTs('ops/cli.ts', ['import', '--file', one], process.env, 120_000)).code).toBe(0);
    expect((await list('/api/articles?limit=1')).pagination.total).toBe(N + 4);
    const found = (await list('/api/articles/search?q=nota%20cli')).data.map((a: { title: string }) => a.title);
    expect(found).toEqual(['Nota da CLI 100', 'Nota da CLI 101', 'Nota da CLI 102', 'Nota da CLI 103']); // newest first
  }, 180_000);

  it('seeds 300 articles by default across the sectors, linked to companies with tickers; a second run adds nothing', async () => {
    const r = await runTs('ops/cli.ts', ['seed'], process.env, 180_000);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.lastLine);
    expect(summary.news).toMatchObject({ entities: 300, articles: { state: 'completed', inserted: 300, duplicates: 0, invalid: 0 } });
    expect((await list('/api/articles?limit=1')).pagination.total).toBe(N + 4 + 300);
    let sectorsWithNews = 0;
    for (const s of ['FIN', 'TEC', 'SAU', 'ENE', 'MAT', 'IND', 'CON', 'IMO', 'AGR', 'TRA', 'COM', 'SER', 'GOV', 'ESP', 'CRY', 'FIP', 'CIE', 'DEF', 'CUL', 'EDU', 'AMB', 'SOC', 'TUR']) {
      if ((await list(`/api/articles/by-sector/${s}?limit=1`)).pagination.total > 0) sectorsWithNews++;
    }
    expect(sectorsWithNews).toBeGreaterThanOrEqual(20);
    // Seeded articles span 60 days; the fixture's are at most 102 hours old.
    const page = await list(`/api/articles?limit=100&include=entities&to=${new Date(NOW - 5 * 24 * HOUR).toISOString()}`);
    expect(page.data.length).toBeGreaterThan(30);
    // Every seeded article names an entity (central-bank news names institutions); most a listed company.
    expect(page.data.every((a: { entities: unknown[] }) => a.entities.length > 0)).toBe(true);
    const withTicker = page.data.filter((a: { entities: { ticker?: string }[] }) => a.entities.some((e) => e.ticker));
    expect(withTicker.length).toBeGreaterThan(page.data.length * 0.7);
    // The quiz has editions to make quizzes from: Monday to Saturday of the last 14 days, from the stored news.
    expect(summary.quiz.editions).toBeGreaterThanOrEqual(20);
    const editions = await svc.deps.mongo.conn.db!.collection<{ _id: string; date: string; text: string }>('editions').find({}).toArray();
    expect(editions.every((e) => new Date(`${e.date}T12:00:00Z`).getUTCDay() !== 0 && e.text.length >= 200)).toBe(true);
    // …and demonstration quizzes on them, so a fresh install shows quizzes without an AI provider.
    expect(summary.quiz.quizzes).toBeGreaterThanOrEqual(10);
    const quizzes = await svc.deps.mongo.conn.db!.collection<QuizDoc>('quizzes').find({ description: /demonstração/ }).toArray();
    expect(quizzes.length).toBe(summary.quiz.quizzes);
    for (const q of quizzes) {
      const edition = editions.find((e) => e._id === q.postId)!;
      expect(q.questions).toHaveLength(10);
      for (const question of q.questions) {
        expect(new Set(question.options).size).toBe(4);
        // The right answer is in the edition; the others are not.
        expect(question.options.filter((o) => edition.text.includes(o))).toEqual([question.options[question.correct]]);
      }
    }
    // Search has something to find: a seeded title finds its article.
    const found = await list(`/api/articles/search?q=${encodeURIComponent(page.data[0].title)}&limit=100`);
    expect(found.data.map((a: { id: string }) => a.id)).toContain(page.data[0].id);
    const again = await runTs('ops/cli.ts', ['seed', '--articles', '300'], process.env, 180_000);
    expect(JSON.parse(again.lastLine).news.articles).toMatchObject({ inserted: 0, duplicates: 300 });
  }, 240_000);
});
