/**
 * The news editors' backend end to end (issue 38 item 3), on a database and task queues of this
 * file's own (startIsolatedNewsStack: its worker serves news-sources, so an article is enriched
 * again by its real workflow and the OpenAI double):
 * - GET /api/admin/articles: items waiting for or failed at enrichment, published articles by the
 *   state of their enrichment, hidden ones; newest first, by state and source, paged;
 * - hiding and unhiding: a hidden article is in no reader's answer (list, search, by sector,
 *   breaking, feed, an entity's articles; by id 404), and a copy of its page is not published;
 * - correcting an article's enrichment: readers get the labels, the labelled example is kept, and
 *   enriching the article again keeps them;
 * - the catalogue: the editors' list, edits of aliases, ticker and CNPJ, a candidate as an alias;
 * - every refusal a 4xx in the news envelope that changes nothing;
 * - and the list's queries read their pages in index order (explain, on a database of some
 *   thousands of documents), as tests/integration/list-plans.test.ts checks the readers' lists.
 */
import { randomUUID } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import type { CommandStartedEvent, Document } from 'mongodb';
import request from 'supertest';
import { loadConfig } from '../../models/config';
import { buildIndexesRacing, collectionOf } from '../../models/infra/mongo';
import { articleModel } from '../../models/news/article.model';
import { createArticleRepo } from '../../models/news/article.repo';
import type { ArticleDoc, EnrichmentRecord } from '../../models/news/article.rules';
import { EDITORIAL_STATES, WAITING_NOTE, type EditorialFilter } from '../../models/news/editorial.rules';
import { ENRICHMENT_EXAMPLES, type EnrichmentExampleDoc } from '../../models/news/enrichment-example.repo';
import { PROMPT_VERSION } from '../../models/news/enrichment.rules';
import type { EntityDoc } from '../../models/news/entity.model';
import { nameKeysOf } from '../../models/news/entity.rules';
import { createHiddenArticleRepo } from '../../models/news/hidden-article.repo';
import { buildArticle, buildDictionary, ImportLine } from '../../models/news/ingest.rules';
import { createFeedItemRepo, type FeedItemDoc } from '../../models/news/sources/feed-item.repo';
import { NEW_HEALTH, type SourceDoc } from '../../models/news/sources/source.rules';
import { listEditorial } from '../../operations/news/editorial';
import { analyze, devPostgres } from '../../ops/dev-database';
import { correctionFixtures } from '../../ops/eval-enrichment';
import { workflowIds } from '../../workflows/ids';
import { accountWithKey, startIsolatedNewsStack, withKey, type NewsService } from '../helpers/news';
import { tokenFor } from '../helpers/service';

jest.setTimeout(180_000);

const HOUR = 3_600_000;
const NOW = Date.now();
const ago = (h: number) => new Date(NOW - h * HOUR);
const S1 = randomUUID();
const S2 = randomUUID();

const entity = (name: string, type: EntityDoc['entityType'], ticker: string | null, cnpj: string | null, aliases: string[] = []): EntityDoc => ({
  _id: randomUUID(),
  entityType: type,
  canonicalName: name,
  aliases,
  ticker,
  cnpj,
  nameKeys: [],
  createdAt: new Date(NOW),
});
const PETRO = entity('Petrobras', 'COMPANY', 'PETR4', '33.000.167/0001-01', ['Petrobrás']);
const VALE = entity('Vale', 'COMPANY', 'VALE3', '33.592.510/0001-54', ['Vale S.A.']);
const TESOURO = entity('Tesouro Nacional', 'INSTITUTION', null, null);
for (const e of [PETRO, VALE, TESOURO]) e.nameKeys = nameKeysOf(e.canonicalName, e.aliases);

const enriched = (h: number): EnrichmentRecord => ({ state: 'enriched', promptVersion: 'enrich-older', model: 'gpt-4o-mini', promptTokens: 900, completionTokens: 300, costUsd: 0.0003, attempts: 1, at: ago(h), error: null });

/** An article as imports and enrichment store it. */
function article(title: string, h: number, over: Partial<ArticleDoc> & { line?: Partial<ImportLine> } = {}): ArticleDoc {
  const { line, ...fields } = over;
  const parsed = ImportLine.parse({
    title,
    summary: `${title}: o resumo.`,
    sourceName: 'InfoMoney',
    sourceUrl: `https://editors.example/${randomUUID()}`,
    publishedAt: ago(h).toISOString(),
    primarySector: 'ENE',
    primaryTopic: 'GUIDANCE',
    modules: { sentiment: { score: 0.46, label: 'POSITIVO', confidence: 0.8 } },
    ...line,
  });
  const { doc } = buildArticle(randomUUID(), parsed, buildDictionary([PETRO, VALE, TESOURO]), ago(h));
  return { ...doc, ...fields };
}

const A1 = article('Petrobras prevê investimentos de US$ 109 bilhões no plano de negócios', 1, { sourceId: S1, enrichment: enriched(1) });
const A5 = article('Vale anuncia leilão extraordinário de minério', 2, { sourceId: S2, enrichment: enriched(2), line: { isBreaking: true, contentType: 'BREAKING', urgencyLevel: 'CRITICAL', primarySector: 'MAT', primaryTopic: 'CONTRACT' } });
const A2 = article('Petrobras revisa projeção de produção', 3, { sourceId: S1, enrichment: { ...enriched(3), state: 'failed', error: 'the AI provider refused the request (rejected): policy' } });
const A3 = article('Tesouro Nacional capta US$ 2 bilhões no exterior', 5, { line: { primarySector: 'FIN', primaryTopic: 'DEBT' } });
const A4 = article('Vale conclui venda de fatia em metais básicos', 7, { sourceId: S2, enrichment: { ...enriched(7), state: 'waiting-budget' } });

function item(h: number, source: string, over: Partial<FeedItemDoc> = {}): FeedItemDoc {
  const id = randomUUID();
  return {
    _id: id, sourceId: source, guid: id, url: `https://editors.example/item/${id}`, title: `Notícia do feed de ${h} horas atrás`, summary: 'Resumo do feed.',
    feedPublishedAt: ago(h), seenAt: ago(h), publishedAt: ago(h), articleId: randomUUID(), state: 'extracted', page: null, urlKey: null,
    simBands: [], signature: null, sameAs: null, alsoReportedBy: [], error: null, updatedAt: ago(h), ...over,
  };
}
const I0 = item(0.5, S1);
const I6 = item(6, S2, { error: WAITING_NOTE });
const I8 = item(8, S1, { state: 'failed', error: "the model's enrichment was refused 3 times: entities: required" });
const I9 = item(9, S1, { state: 'published' });

const source = (id: string, name: string): SourceDoc => ({
  _id: id, name, feedUrl: `https://editors.example/${id}/feed.xml`, feedKey: `editors.example/${id}/feed.xml`, tier: 1, language: 'pt', defaultSector: null,
  pollIntervalMinutes: 5, enabled: false, http: { etag: null, lastModified: null }, health: NEW_HEALTH, createdAt: new Date(NOW), updatedAt: new Date(NOW),
});

let stack: Awaited<ReturnType<typeof startIsolatedNewsStack>>;
let svc: NewsService;
let admin: string;
let reader: string;
let key: string;

const api = () => request(svc.callback);
const get = (path: string) => api().get(path).set('Authorization', admin);
const post = (path: string, body?: object) => api().post(path).set('Authorization', admin).send(body ?? {});
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((a) => a.id);
const stored = (id: string) => svc.deps.articles.findById(id);

beforeAll(async () => {
  stack = await startIsolatedNewsStack('news-editors');
  svc = stack.svc;
  admin = `Bearer ${await tokenFor('news-editor', ['news.admin'])}`;
  reader = `Bearer ${await tokenFor('news-reader', [])}`;
  key = (await accountWithKey(svc, 'pro', { mode: 'test' })).key;
  await svc.deps.entities.insertMany([PETRO, VALE, TESOURO]);
  await svc.deps.sources.create(source(S1, 'InfoMoney'));
  await svc.deps.sources.create(source(S2, 'Money Times'));
  expect(await svc.deps.articles.insertNew([A1, A5, A2, A3, A4])).toMatchObject({ inserted: 5 });
  const items = createFeedItemRepo(svc.deps.mongo.conn);
  await items.ensureIndexes();
  await collectionOf<FeedItemDoc>(svc.deps.mongo.conn, 'news_feed_items').insertMany([I0, I6, I8, I9]);
});
afterAll(async () => {
  await stack?.close();
});

/** 400 in the news envelope. */
const expect400 = (res: request.Response) => expect([res.status, res.body.success, res.body.code]).toEqual([400, false, 'VALIDATION_FAILED']);

describe('GET /api/admin/articles', () => {
  it('lists every article in the pipeline newest first, each with its state, whether readers see it and why not', async () => {
    const res = await get('/api/admin/articles').expect(200);
    expect(ids(res)).toEqual([I0.articleId, A1._id, A5._id, A2._id, A3._id, I6.articleId, A4._id, I8.articleId]);
    expect(res.body.data.map((a: { state: string }) => a.state)).toEqual(['pending', 'enriched', 'enriched', 'failed', 'imported', 'waiting-budget', 'waiting-budget', 'failed']);
    expect(res.body.pagination).toEqual({ limit: 20, offset: 0, total: 8, hasMore: false });
    const [pending, visible] = res.body.data;
    expect(pending).toMatchObject({ visible: false, sourceName: 'InfoMoney', sourceId: S1, title: I0.title, url: I0.url, primarySector: null, enrichment: null, workflowId: workflowIds.newsEnrich(I0.articleId) });
    expect(visible).toMatchObject({ visible: true, sourceId: S1, primarySector: 'ENE', reason: null, hidden: null, corrected: null, enrichment: { state: 'enriched', promptVersion: 'enrich-older', attempts: 1 } });
    expect(res.body.data[3]).toMatchObject({ state: 'failed', visible: true, reason: 'the AI provider refused the request (rejected): policy' });
    expect(res.body.data[4]).toMatchObject({ state: 'imported', sourceId: null, enrichment: null });
    expect(res.body.data[5]).toMatchObject({ state: 'waiting-budget', visible: false, reason: WAITING_NOTE, sourceName: 'Money Times' });
    expect(res.body.data[7]).toMatchObject({ state: 'failed', visible: false, reason: I8.error });
  });

  it('pages through the same order, and filters by state and source', async () => {
    const all = ids(await get('/api/admin/articles').expect(200));
    const paged: string[] = [];
    for (let offset = 0; offset < 8; offset += 3) {
      const res = await get(`/api/admin/articles?limit=3&offset=${offset}`).expect(200);
      expect(res.body.pagination).toEqual({ limit: 3, offset, total: 8, hasMore: offset + 3 < 8 });
      paged.push(...ids(res));
    }
    expect(paged).toEqual(all);
    expect(ids(await get('/api/admin/articles?state=failed').expect(200))).toEqual([A2._id, I8.articleId]);
    expect(ids(await get('/api/admin/articles?state=waiting-budget').expect(200))).toEqual([I6.articleId, A4._id]);
    expect(ids(await get('/api/admin/articles?state=pending').expect(200))).toEqual([I0.articleId]);
    expect(ids(await get('/api/admin/articles?state=imported').expect(200))).toEqual([A3._id]);
    expect(ids(await get(`/api/admin/articles?sourceId=${S2}`).expect(200))).toEqual([A5._id, I6.articleId, A4._id]);
    expect(ids(await get(`/api/admin/articles?state=enriched&sourceId=${S1}`).expect(200))).toEqual([A1._id]);
    expect(ids(await get(`/api/admin/articles?sourceId=${randomUUID()}`).expect(200))).toEqual([]);
  });

  it('refuses bad parameters with a 400 naming them, and callers without news.admin', async () => {
    for (const q of ['state=bogus', 'limit=0', 'limit=101', 'offset=-1', 'offset=10001', 'offset=1.5', 'sourceId=x', 'state=failed&state=enriched']) {
      const res = await get(`/api/admin/articles?${q}`);
      expect400(res);
      expect(res.body.details[0].path).toMatch(/^query\./);
    }
    expect((await api().get('/api/admin/articles')).status).toBe(401);
    expect((await api().get('/api/admin/articles').set('Authorization', reader)).status).toBe(403);
    expect((await api().post(`/api/admin/articles/${A1._id}/hide`).set('Authorization', reader)).status).toBe(403);
  });

  it('answers one article whatever its state: an item with its reason, a published one with every module', async () => {
    const failed = await get(`/api/admin/articles/${I8.articleId}`).expect(200);
    expect(failed.body.data).toMatchObject({ id: I8.articleId, state: 'failed', reason: I8.error, article: null, correction: null });
    const one = await get(`/api/admin/articles/${A1._id}`).expect(200);
    expect(one.body.data).toMatchObject({ id: A1._id, state: 'enriched', article: { id: A1._id, sentimentLabel: 'POSITIVO', entities: [expect.objectContaining({ entityId: PETRO._id })], classification: expect.any(Object), meta: expect.any(Object) }, correction: null });
    expect((await get(`/api/admin/articles/${I9.articleId}`)).status).toBe(404);
    expect((await get(`/api/admin/articles/${randomUUID()}`)).status).toBe(404);
    expect400(await get('/api/admin/articles/not-a-uuid'));
  });
});

describe('hiding an article', () => {
  /** What readers get of A5 (breaking, MAT, mentions Vale) from every read. */
  async function readerSees(id: string) {
    const list = ids(await withKey(svc, key, '/api/articles?limit=100').expect(200));
    const search = ids(await withKey(svc, key, '/api/articles/search?q=leilao%20minerio').expect(200));
    const sector = ids(await withKey(svc, key, '/api/articles/by-sector/MAT').expect(200));
    const breaking = ids(await withKey(svc, key, '/api/articles/breaking').expect(200));
    const feed = ids(await withKey(svc, key, '/api/feed?limit=100').expect(200));
    const entity = ids(await withKey(svc, key, `/api/entities/${VALE._id}/articles`).expect(200));
    const one = (await withKey(svc, key, `/api/articles/${id}`)).status;
    return { list: list.includes(id), search: search.includes(id), sector: sector.includes(id), breaking: breaking.includes(id), feed: feed.includes(id), entity: entity.includes(id), one };
  }
  const everywhere = { list: true, search: true, sector: true, breaking: true, feed: true, entity: true, one: 200 };

  it('takes it out of every reader answer, keeps its URL, and puts it back when unhidden', async () => {
    expect(await readerSees(A5._id)).toEqual(everywhere);
    const hidden = await post(`/api/admin/articles/${A5._id}/hide`, { reason: 'Fonte não confirmou o leilão' }).expect(200);
    expect(hidden.body.data).toMatchObject({ id: A5._id, state: 'hidden', visible: false, reason: 'Fonte não confirmou o leilão', hidden: { by: 'news-editor', reason: 'Fonte não confirmou o leilão', at: expect.any(String) } });
    expect(await readerSees(A5._id)).toEqual({ list: false, search: false, sector: false, breaking: false, feed: false, entity: false, one: 404 });
    // Hiding again changes nothing; editors still find it.
    expect((await post(`/api/admin/articles/${A5._id}/hide`).expect(200)).body.data.hidden).toEqual(hidden.body.data.hidden);
    expect(ids(await get('/api/admin/articles?state=hidden').expect(200))).toEqual([A5._id]);
    expect((await get(`/api/admin/articles/${A5._id}`).expect(200)).body.data).toMatchObject({ state: 'hidden', article: { id: A5._id, isBreaking: true } });
    // The same page again (an import, another source's item) is a duplicate of the hidden article, not a new one.
    expect(await svc.deps.articles.insertNew([{ ...A5, _id: randomUUID() }])).toEqual({ inserted: 0, duplicates: 1, insertedIds: [] });
    expect(await svc.deps.articles.bySourceKey(A5.sourceKey)).toMatchObject({ _id: A5._id });
    // Correcting or enriching a hidden article is refused.
    expect((await api().put(`/api/admin/articles/${A5._id}/correction`).set('Authorization', admin).send({ primarySector: 'MAT', primaryTopic: 'CONTRACT', sentimentLabel: 'NEUTRO', entities: [] })).status).toBe(409);

    const back = await post(`/api/admin/articles/${A5._id}/unhide`).expect(200);
    expect(back.body.data).toMatchObject({ id: A5._id, state: 'enriched', visible: true, hidden: null });
    expect(await readerSees(A5._id)).toEqual(everywhere);
    expect(await stored(A5._id)).toEqual(A5);
    expect((await post(`/api/admin/articles/${A5._id}/unhide`).expect(200)).body.data.visible).toBe(true);
  });

  it('refuses what is not a published article, and bad bodies, changing nothing', async () => {
    const pending = await post(`/api/admin/articles/${I0.articleId}/hide`);
    expect([pending.status, pending.body.success, pending.body.code]).toEqual([409, false, 'CONFLICT']);
    expect((await post(`/api/admin/articles/${I8.articleId}/unhide`)).status).toBe(409);
    expect((await post(`/api/admin/articles/${randomUUID()}/hide`)).status).toBe(404);
    expect((await post(`/api/admin/articles/${randomUUID()}/unhide`)).status).toBe(404);
    for (const body of [{ reason: 'x'.repeat(501) }, { reason: '   ' }, { reason: 7 }, { why: 'x' }]) expect400(await post(`/api/admin/articles/${A1._id}/hide`, body));
    expect400(await api().post(`/api/admin/articles/${A1._id}/hide`).set('Authorization', admin).set('Content-Type', 'application/json').send('[1,2]'));
    expect(await stored(A1._id)).toEqual(A1);
    expect(await svc.deps.hiddenArticles.get(A1._id)).toBeNull();
  });
});

describe('correcting an article', () => {
  const body = {
    primarySector: 'GOV',
    primaryTopic: 'MACRO',
    secondarySectors: ['ENE'],
    sentimentLabel: 'NEGATIVO',
    entities: [{ entityId: TESOURO._id, sentiment: -0.3 }, { entityId: PETRO._id }],
    note: 'A matéria é sobre a meta fiscal',
  };
  const put = (id: string, b: object) => api().put(`/api/admin/articles/${id}/correction`).set('Authorization', admin).send(b);
  const examples = () => collectionOf<EnrichmentExampleDoc>(svc.deps.mongo.conn, ENRICHMENT_EXAMPLES);

  it('refuses bad labels, unknown entities and what is not a published article, changing nothing', async () => {
    for (const bad of [
      {},
      { ...body, primarySector: 'XYZ' },
      { ...body, sentimentScore: 0.9 },
      { ...body, entities: [{ entityId: PETRO._id }, { entityId: PETRO._id }] },
      { ...body, entities: [{ entityId: PETRO._id, sentiment: 3 }] },
      { ...body, entities: [{ entityId: { $gt: '' } }] },
      { ...body, extra: true },
    ]) {
      expect400(await put(A1._id, bad));
    }
    const unknown = await put(A1._id, { ...body, entities: [{ entityId: randomUUID() }] });
    expect400(unknown);
    expect(unknown.body.details).toEqual([{ path: 'body.entities.0.entityId', message: expect.stringMatching(/no entity/) }]);
    expect((await put(I0.articleId, body)).status).toBe(409);
    expect((await put(randomUUID(), body)).status).toBe(404);
    expect(await stored(A1._id)).toEqual(A1);
    expect(await examples().countDocuments()).toBe(0);
  });

  it("shows readers the editor's labels, keeps the model's output and a labelled example", async () => {
    const res = await put(A1._id, body).expect(200);
    expect(res.body.data).toMatchObject({
      id: A1._id,
      state: 'enriched',
      primarySector: 'GOV',
      primaryTopic: 'MACRO',
      corrected: { by: 'news-editor', at: expect.any(String) },
      correction: {
        by: 'news-editor',
        note: body.note,
        labels: { primarySector: 'GOV', primaryTopic: 'MACRO', secondarySectors: ['ENE'], secondaryTopics: null, sentimentLabel: 'NEGATIVO', sentimentScore: -0.4, entities: [{ entityId: TESOURO._id, canonicalName: 'Tesouro Nacional', sentiment: -0.3 }, { entityId: PETRO._id, ticker: 'PETR4', sentiment: null }] },
        model: { primarySector: 'ENE', primaryTopic: 'GUIDANCE', sentiment: { label: 'POSITIVO', score: 0.46 } },
      },
    });
    const seen = (await withKey(svc, key, `/api/articles/${A1._id}?include=sentiment,entities,classification`).expect(200)).body.data;
    expect(seen).toMatchObject({ primarySector: 'GOV', primaryTopic: 'MACRO', sentimentLabel: 'NEGATIVO', sentimentScore: -0.4, sentimentConfidence: 1, classification: { secondarySectors: ['ENE'] } });
    expect(seen.entities.map((e: { entityId: string }) => e.entityId).sort()).toEqual([PETRO._id, TESOURO._id].sort());
    expect(ids(await withKey(svc, key, `/api/entities/${TESOURO._id}/articles`).expect(200))).toContain(A1._id);
    expect(ids(await withKey(svc, key, '/api/articles/by-sector/GOV').expect(200))).toContain(A1._id);

    const example = await examples().findOne({ _id: A1._id });
    expect(example).toMatchObject({
      by: 'news-editor',
      firstBy: 'news-editor',
      revisions: 1,
      note: body.note,
      enrichment: { promptVersion: 'enrich-older', model: 'gpt-4o-mini' },
      input: { title: A1.title, text: expect.stringContaining(A1.title), language: 'pt', sourceName: 'InfoMoney' },
      labels: { primarySector: 'GOV', sentimentLabel: 'NEGATIVO' },
      model: { primarySector: 'ENE', primaryTopic: 'GUIDANCE' },
    });
    // The evaluation reads it as a line of its corpus (ops/eval-enrichment.ts --corrections).
    expect(correctionFixtures(await svc.deps.enrichmentExamples.list())).toEqual([
      {
        id: `correction:${A1._id}`,
        title: A1.title,
        subtitle: null,
        summary: A1.summary,
        text: expect.stringContaining(A1.summary!),
        labels: { primarySector: 'GOV', primaryTopic: 'MACRO', sentimentLabel: 'NEGATIVO', entities: [{ name: 'Tesouro Nacional', ticker: null, aliases: [] }, { name: 'Petrobras', ticker: 'PETR4', aliases: ['Petrobrás'] }] },
      },
    ]);
    // Corrected again: the labels are replaced, the model's output before is still the model's.
    await put(A1._id, { ...body, primaryTopic: 'RATES' }).expect(200);
    expect(await examples().findOne({ _id: A1._id })).toMatchObject({ revisions: 2, labels: { primaryTopic: 'RATES' }, model: { primaryTopic: 'GUIDANCE' } });
  });

  it('keeps the correction when the article is enriched again, with the new output of the model beside it', async () => {
    const before = (await stored(A1._id))!;
    const started = await post(`/api/admin/articles/${A1._id}/enrich`).expect(202);
    await svc.deps.temporal.client.workflow.getHandle(started.body.data.workflowId as string).result();
    const after = (await stored(A1._id))!;
    expect(after.enrichment).toMatchObject({ state: 'enriched', promptVersion: PROMPT_VERSION });
    expect(after.enrichment!.at.getTime()).toBeGreaterThan(before.enrichment!.at.getTime());
    expect(after).toMatchObject({ primarySector: 'GOV', primaryTopic: 'RATES', modules: { sentiment: { label: 'NEGATIVO', confidence: 1 } } });
    expect(after.correction).toMatchObject({ by: 'news-editor', labels: before.correction!.labels });
    // The model's new output is kept on the correction (the double's sentiment, with its confidence).
    expect(after.correction!.model.sentiment).toMatchObject({ confidence: 0.6 });
    expect(after.correction!.model).not.toEqual(before.correction!.model);
    expect((await get(`/api/admin/articles/${A1._id}`).expect(200)).body.data).toMatchObject({ primarySector: 'GOV', enrichment: { promptVersion: PROMPT_VERSION } });
  });
});

describe('the entity catalogue', () => {
  const patch = (id: string, b: unknown) => api().patch(`/api/admin/entities/${id}`).set('Authorization', admin).send(b as object);

  it('lists the catalogue by name for editors: by a name, alias or ticker prefix, type and ticker; no pattern from the caller', async () => {
    const names = (res: { body: { data: { canonicalName: string }[] } }) => res.body.data.map((e) => e.canonicalName);
    const all = await get('/api/admin/entities').expect(200);
    expect(names(all)).toEqual(['Petrobras', 'Tesouro Nacional', 'Vale']);
    expect(all.body.pagination).toEqual({ limit: 20, offset: 0, total: 3, hasMore: false });
    expect(names(await get('/api/admin/entities?q=petro').expect(200))).toEqual(['Petrobras']);
    expect(names(await get('/api/admin/entities?q=PETRÓ').expect(200))).toEqual(['Petrobras']);
    expect(names(await get('/api/admin/entities?q=val').expect(200))).toEqual(['Vale']);
    expect(names(await get('/api/admin/entities?q=vale3').expect(200))).toEqual(['Vale']);
    expect(names(await get('/api/admin/entities?type=INSTITUTION').expect(200))).toEqual(['Tesouro Nacional']);
    expect(names(await get('/api/admin/entities?ticker=petr4').expect(200))).toEqual(['Petrobras']);
    // Punctuation is no part of a folded name: `^p` is the prefix p; the rest match nothing.
    expect(names(await get(`/api/admin/entities?q=${encodeURIComponent('^p')}`).expect(200))).toEqual(['Petrobras']);
    for (const q of ['.*', '^x', '(a+)+$', '[', '\\', '$where']) expect(names(await get(`/api/admin/entities?q=${encodeURIComponent(q)}`).expect(200))).toEqual([]);
    for (const q of ['q=', `q=${'x'.repeat(101)}`, 'type=CITY', 'ticker=X', 'limit=0', 'offset=-1']) expect400(await get(`/api/admin/entities?${q}`));
    expect((await api().get('/api/admin/entities').set('Authorization', reader)).status).toBe(403);
  });

  it("changes an entity's aliases, ticker and CNPJ; linking's keys follow", async () => {
    const res = await patch(PETRO._id, { aliases: ['Petróleo Brasileiro S.A.', 'PETRÓLEO BRASILEIRO S/A', 'Petrobras', 'Petrobrás'], cnpj: '33000167000101', ticker: 'petr3' }).expect(200);
    // "Petrobrás" folds to the canonical name, "PETRÓLEO BRASILEIRO S/A" to the first alias: left out.
    expect(res.body.data).toMatchObject({ id: PETRO._id, aliases: ['Petróleo Brasileiro S.A.'], cnpj: '33.000.167/0001-01', ticker: 'PETR3' });
    expect((await svc.deps.entities.findById(PETRO._id))!.nameKeys).toEqual(['petrobras', 'petroleo brasileiro s a']);
    expect((await get('/api/admin/entities?q=petroleo').expect(200)).body.data.map((e: { id: string }) => e.id)).toEqual([PETRO._id]);
    await patch(PETRO._id, { ticker: 'PETR4' }).expect(200);
  });

  it("refuses another entity's ticker, CNPJ or alias (409), and bad values (400), changing nothing", async () => {
    const before = await svc.deps.entities.findById(PETRO._id);
    for (const b of [{ ticker: 'VALE3' }, { cnpj: '33.592.510/0001-54' }, { aliases: ['Nova Petro', 'vale s.a.'] }, { aliases: ['Tesouro Nacional'] }]) {
      const res = await patch(PETRO._id, b);
      expect([res.status, res.body.code, res.body.error]).toEqual([409, 'CONFLICT', expect.stringMatching(/another entity already/)]);
    }
    for (const b of [{}, { cnpj: '33.000.167/0001-02' }, { cnpj: '00000000000000' }, { ticker: 'PETROBRAS' }, { aliases: [''] }, { aliases: ['a\u0007b'] }, { aliases: Array.from({ length: 101 }, (_, i) => `N${i}`) }, { canonicalName: 'X' }, { ticker: { $ne: null } }]) {
      expect400(await patch(PETRO._id, b));
    }
    expect((await patch(randomUUID(), { ticker: null })).status).toBe(404);
    expect400(await patch('petrobras', { ticker: null }));
    expect(await svc.deps.entities.findById(PETRO._id)).toEqual(before);
  });

  it('adds a curation candidate as an alias of an entity, so the name links there', async () => {
    const now = new Date();
    await svc.deps.entityCandidates.mention('banco do tesouro', { name: 'Banco do Tesouro', entityType: 'INSTITUTION', ticker: null, cnpj: null }, A1._id, now);
    await svc.deps.entityCandidates.mention('vale do rio doce', { name: 'Vale do Rio Doce', entityType: 'COMPANY', ticker: null, cnpj: null }, A1._id, now);
    const alias = (key: string, b: object) => post(`/api/admin/entity-candidates/${encodeURIComponent(key)}/alias`, b);

    expect((await alias('banco do tesouro', { entityId: randomUUID() })).status).toBe(404);
    for (const b of [{}, { entityId: 'x' }, { entityId: TESOURO._id, more: 1 }]) expect400(await alias('banco do tesouro', b));
    expect((await alias('nobody', { entityId: TESOURO._id })).status).toBe(404);
    expect((await svc.deps.entityCandidates.get('banco do tesouro'))!.state).toBe('open');

    const res = await alias('banco do tesouro', { entityId: TESOURO._id }).expect(200);
    expect(res.body.data).toMatchObject({ id: 'banco do tesouro', state: 'aliased', entityId: TESOURO._id });
    expect(await svc.deps.entities.findById(TESOURO._id)).toMatchObject({ aliases: ['Banco do Tesouro'], nameKeys: ['tesouro nacional', 'banco do tesouro'] });
    expect((await alias('banco do tesouro', { entityId: TESOURO._id })).status).toBe(409);
    const listed = await get('/api/admin/entity-candidates?state=aliased').expect(200);
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual(['banco do tesouro']);

    // A name another entity has is refused: linking would find either.
    await patch(VALE._id, { aliases: ['Vale S.A.', 'Vale do Rio Doce'] }).expect(200);
    expect((await alias('vale do rio doce', { entityId: PETRO._id })).status).toBe(409);
    expect((await svc.deps.entityCandidates.get('vale do rio doce'))!.state).toBe('open');
  });
});

describe("the editors' list reads its pages in index order (explain)", () => {
  let conn: Connection;
  const captured: Document[] = [];

  beforeAll(async () => {
    const config = loadConfig();
    conn = await mongoose.createConnection(config.mongo.uri!, { dbName: `editors_plans_${randomUUID().slice(0, 8)}`, monitorCommands: true }).asPromise();
    conn.on('commandStarted', (e: CommandStartedEvent) => {
      if (e.commandName === 'find') captured.push(e.command);
    });
    const states: (EnrichmentRecord['state'] | null)[] = ['enriched', 'enriched', 'enriched', 'enriched', 'enriched', 'failed', 'waiting-budget', null];
    const articles = Array.from({ length: 8_000 }, (_, i) => {
      const at = new Date(NOW - i * 600_000);
      const state = states[i % states.length]!;
      return {
        _id: randomUUID(), sourceName: 'Fonte', sourceUrl: `https://plans.example/${i}`, sourceKey: `plans.example/${i}`, title: `Artigo ${i}`, subtitle: null, summary: null, publishedAt: at,
        primarySector: 'ENE', primaryTopic: 'EARN', contentType: 'NEWS', urgencyLevel: 'LOW', urgencyRank: 1, isBreaking: false, isExclusive: false, language: 'pt', baseScore: 50, relevance: 0,
        modules: {}, entityIds: [], tickers: [], search: { title: '', subtitle: '', summary: '' }, terms: [], createdAt: at,
        ...(i % 2 ? { sourceId: S1 } : { sourceId: S2 }),
        ...(state ? { enrichment: { ...enriched(0), state } } : {}),
      };
    });
    const Articles = articleModel(conn);
    await buildIndexesRacing(() => Articles.createIndexes());
    await Articles.collection.insertMany(articles as never[]);
    const hidden = createHiddenArticleRepo(conn);
    await hidden.ensureIndexes();
    await conn.db!.collection('news_hidden_articles').insertMany(articles.slice(0, 2_000).map((a) => ({ ...a, _id: randomUUID(), hidden: { at: new Date(NOW), by: 'e', reason: null } })) as never[]);
    await createFeedItemRepo(conn).ensureIndexes();
    const itemStates = ['extracted', 'failed', 'published', 'published'] as const;
    await conn.db!.collection('news_feed_items').insertMany(
      Array.from({ length: 8_000 }, (_, i) => item(i / 6, Math.floor(i / 4) % 2 ? S1 : S2, { state: itemStates[i % 4]!, error: i % 12 === 0 ? WAITING_NOTE : null })) as never[],
    );
    // The development database chooses an ordered scan on its statistics (MongoDB needs none).
    analyze(devPostgres(config));
  }, 300_000);
  afterAll(async () => {
    await conn?.dropDatabase().catch(() => undefined);
    await conn?.close();
  });

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
    walk((explained.queryPlanner as Document | undefined)?.winningPlan as Document | undefined);
    return stages;
  }

  /** Explains every sorted find a call sends; answers those that sort in memory. */
  async function inMemorySorts(call: () => Promise<unknown>): Promise<string[]> {
    captured.length = 0;
    await call();
    const sorted = captured.filter((c) => c.sort && (c.sort instanceof Map ? c.sort.size > 0 : Object.keys(c.sort as object).length > 0));
    expect(sorted.length).toBeGreaterThan(0);
    const bad: string[] = [];
    for (const read of sorted) {
      const { lsid: _l, $clusterTime: _c, $db: _d, $readPreference: _r, ...cmd } = read;
      const nodes = planNodes(await conn.db!.command({ explain: cmd, verbosity: 'queryPlanner' }));
      if (nodes.some((n) => /^(Sort|Incremental Sort|SORT)\b/.test(n))) bad.push(`${read.find} ${JSON.stringify(read.filter)}: ${nodes.join(' > ')}`);
    }
    return bad;
  }

  it.each([[{}], ...EDITORIAL_STATES.map((state) => [{ state }]), ...EDITORIAL_STATES.map((state) => [{ state, sourceId: S1 }]), [{ sourceId: S2 }]] as [EditorialFilter][])('%j', async (filter) => {
    const deps = {
      articles: createArticleRepo(conn),
      hiddenArticles: createHiddenArticleRepo(conn),
      feedItems: createFeedItemRepo(conn),
      sources: { get: async () => null },
      now: () => new Date(),
    };
    let entries = 0;
    expect(await inMemorySorts(async () => (entries = (await listEditorial(deps, filter, { limit: 20, offset: 40 })).entries.length))).toEqual([]);
    expect(entries).toBe(20);
  });

  it('catches a read no index orders (the check can fail)', async () => {
    const bad = await inMemorySorts(() => conn.db!.collection('news_feed_items').find({ state: 'failed' }, { sort: { title: -1 }, limit: 20 }).toArray());
    expect(bad).toHaveLength(1);
  });
});
