/**
 * The news editors' backend (issue 38 item 3) with fakes: the pipeline states and the merge of the
 * editors' list (editorial.rules), hiding and unhiding (operations/news/editorial.ts), corrections
 * (correction.rules, operations/news/correction.ts, and enrichment keeping them: enrich-article.ts),
 * the catalogue's edits and the curation queue's aliases (entity.rules, operations/news/catalogue.ts,
 * entity-candidates.ts aliasCandidate), and the corrections as the evaluation's corpus.
 */
import { AppError } from '../../models/errors';
import type { LlmClient } from '../../models/infra/llm';
import type { ArticleDoc, EnrichmentRecord, ModuleData } from '../../models/news/article.rules';
import { correctedFields, CorrectionInput, exampleFixture, keepCorrection, LABEL_SCORE, labelledFieldsOf, resolveLabels, type CatalogueEntity } from '../../models/news/correction.rules';
import { EDITORIAL_OFFSET_MAX, editorialQueries, articleState, itemState, mergeNewest, WAITING_NOTE, type ListedRow } from '../../models/news/editorial.rules';
import type { ModelEnrichment } from '../../models/news/enrichment.rules';
import type { EnrichmentExampleDoc, NewExample } from '../../models/news/enrichment-example.repo';
import type { EntityCandidateDoc } from '../../models/news/entity-candidate.repo';
import type { EntityDoc } from '../../models/news/entity.model';
import { EntityPatch, keptAliases, nameKeysOf } from '../../models/news/entity.rules';
import { formattedCnpj } from '../../models/news/cnpj.rules';
import { buildDictionary, derivedKeys } from '../../models/news/ingest.rules';
import type { HiddenArticleDoc } from '../../models/news/hidden-article.repo';
import type { FeedItemDoc } from '../../models/news/sources/feed-item.repo';
import { changeEntity } from '../../operations/news/catalogue';
import { correctArticle, type CorrectionDeps } from '../../operations/news/correction';
import { editorialArticle, hideArticle, listEditorial, unhideArticle, type EditorialDeps } from '../../operations/news/editorial';
import { enrichArticle, type EnrichDeps } from '../../operations/news/enrich-article';
import { aliasCandidate } from '../../operations/news/entity-candidates';
import { correctionFixtures } from '../../ops/eval-enrichment';

const NOW = new Date('2026-11-25T10:00:00Z');
const hours = (h: number) => new Date(NOW.getTime() - h * 3_600_000);
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const PETRO: EntityDoc = { _id: id(901), entityType: 'COMPANY', canonicalName: 'Petrobras', aliases: ['Petrobrás'], ticker: 'PETR4', cnpj: '33.000.167/0001-01', nameKeys: ['petrobras'], createdAt: NOW };
const TESOURO: EntityDoc = { _id: id(902), entityType: 'INSTITUTION', canonicalName: 'Tesouro Nacional', aliases: [], ticker: null, cnpj: null, nameKeys: ['tesouro nacional'], createdAt: NOW };
const VALE: EntityDoc = { _id: id(903), entityType: 'COMPANY', canonicalName: 'Vale', aliases: ['Vale S.A.'], ticker: 'VALE3', cnpj: null, nameKeys: ['vale', 'vale s a'], createdAt: NOW };

const enriched = (at: Date): EnrichmentRecord => ({ state: 'enriched', promptVersion: 'enrich-1', model: 'gpt-4o-mini', promptTokens: 100, completionTokens: 50, costUsd: 0.001, attempts: 1, at, error: null });

function article(n: number, over: Partial<ArticleDoc> = {}): ArticleDoc {
  const base = {
    _id: id(n),
    sourceName: 'InfoMoney',
    sourceUrl: `https://example.test/${n}`,
    title: `Petrobras e Tesouro Nacional, artigo ${n}`,
    subtitle: null,
    summary: 'Resumo.',
    publishedAt: hours(n),
    primarySector: 'ENE' as const,
    primaryTopic: 'GUIDANCE' as const,
    contentType: 'NEWS' as const,
    urgencyLevel: 'MEDIUM' as const,
    isBreaking: false,
    isExclusive: false,
    language: 'pt',
    baseScore: 50,
    modules: {
      sentiment: { score: 0.46, label: 'POSITIVO' as const, confidence: 0.8 },
      classification: { secondarySectors: ['FIN' as const], secondaryTopics: ['DIV' as const], keywords: ['petrobras'] },
      entities: [{ entityId: PETRO._id, entityType: 'COMPANY' as const, canonicalName: 'Petrobras', ticker: 'PETR4', mentionCount: 3, prominenceScore: 0.8, isInTitle: true, sentiment: 0.5 }],
    },
    entityIds: [PETRO._id],
    tickers: ['PETR4'],
    createdAt: hours(n),
    sourceId: id(800),
    enrichment: enriched(hours(n)),
    ...over,
  };
  return { ...base, ...derivedKeys(base) } as ArticleDoc;
}

function feedItem(n: number, over: Partial<FeedItemDoc> = {}): FeedItemDoc {
  return {
    _id: id(5000 + n),
    sourceId: id(800),
    guid: `g${n}`,
    url: `https://example.test/item/${n}`,
    title: `Item ${n}`,
    summary: null,
    feedPublishedAt: hours(n),
    seenAt: hours(n),
    publishedAt: hours(n),
    articleId: id(n),
    state: 'extracted',
    page: null,
    urlKey: null,
    simBands: [],
    signature: null,
    sameAs: null,
    alsoReportedBy: [],
    error: null,
    updatedAt: NOW,
    ...over,
  };
}

// ---- In-memory collections ------------------------------------------------------------------------

/** Whether a document holds to a query of equalities, `$ne` and dotted paths (what the editors' queries use). */
function matches(doc: object, query: Record<string, unknown>): boolean {
  return Object.entries(query).every(([path, want]) => {
    const got = path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], doc);
    if (want !== null && typeof want === 'object' && '$ne' in want) return got !== (want as { $ne: unknown }).$ne;
    return want === null ? got === undefined || got === null : got === want;
  });
}
const newestFirst = (rows: ListedRow[]) => rows.sort((a, b) => (b.publishedAt?.getTime() ?? 0) - (a.publishedAt?.getTime() ?? 0) || (a.id < b.id ? 1 : -1));

function world(seed: { articles?: ArticleDoc[]; hidden?: HiddenArticleDoc[]; items?: FeedItemDoc[] } = {}) {
  const articles = new Map((seed.articles ?? []).map((a) => [a._id, structuredClone(a)]));
  const hidden = new Map((seed.hidden ?? []).map((a) => [a._id, structuredClone(a)]));
  const items = seed.items ?? [];
  const reads: string[] = [];
  const deps: EditorialDeps = {
    articles: {
      findById: async (i) => articles.get(i) ?? null,
      findByIds: async (ids) => ids.flatMap((i) => articles.get(i) ?? []),
      newestRows: async (q, n) => (reads.push(`articles ${JSON.stringify(q)} ${n}`), newestFirst([...articles.values()].filter((a) => matches(a, q)).map((a) => ({ id: a._id, publishedAt: a.publishedAt }))).slice(0, n)),
      countWhere: async (q) => [...articles.values()].filter((a) => matches(a, q)).length,
      remove: async (i) => articles.delete(i),
      restore: async (doc) => {
        if (articles.has(doc._id)) return 'present';
        if ([...articles.values()].some((a) => a.sourceKey === doc.sourceKey)) return 'conflict';
        articles.set(doc._id, structuredClone(doc));
        return 'restored';
      },
    },
    hiddenArticles: {
      get: async (i) => hidden.get(i) ?? null,
      findByIds: async (ids) => ids.flatMap((i) => hidden.get(i) ?? []),
      newestRows: async (q, n) => newestFirst([...hidden.values()].filter((a) => matches(a, q)).map((a) => ({ id: a._id, publishedAt: a.publishedAt }))).slice(0, n),
      count: async (q) => [...hidden.values()].filter((a) => matches(a, q)).length,
      put: async (doc) => void hidden.set(doc._id, structuredClone(doc)),
      remove: async (i) => hidden.delete(i),
    },
    feedItems: {
      byArticle: async (a) => items.find((i) => i.articleId === a) ?? null,
      byArticleIds: async (ids) => items.filter((i) => ids.includes(i.articleId)),
      newestRows: async (q, n) => newestFirst(items.filter((i) => matches(i, q)).map((i) => ({ id: i.articleId, publishedAt: i.publishedAt ?? null }))).slice(0, n),
      countWhere: async (q) => items.filter((i) => matches(i, q)).length,
    },
    sources: { get: async (s) => (s === id(800) ? ({ _id: s, name: 'InfoMoney' } as never) : null) },
    now: () => NOW,
  };
  return { deps, articles, hidden, items, reads };
}

// ---- The editors' list ----------------------------------------------------------------------------

describe('pipeline states (editorial.rules)', () => {
  it('reads each state where it is recorded: items before publication, articles by their enrichment, hidden articles', () => {
    expect(articleState({})).toBe('imported');
    expect(articleState({ enrichment: { state: 'failed' } })).toBe('failed');
    expect(articleState({ enrichment: { state: 'waiting-budget' } })).toBe('waiting-budget');
    expect(itemState({ state: 'extracted', error: null })).toBe('pending');
    expect(itemState({ state: 'extracted', error: WAITING_NOTE })).toBe('waiting-budget');
    expect(itemState({ state: 'failed', error: 'refused' })).toBe('failed');
  });

  it('asks each collection for its part of a state, within a source when asked', () => {
    const src = { sourceId: id(800) };
    expect(editorialQueries({})).toEqual({ articles: {}, hidden: {}, items: [{ state: 'extracted' }, { state: 'failed' }] });
    expect(editorialQueries({ state: 'hidden', ...src })).toEqual({ articles: null, hidden: src, items: [] });
    expect(editorialQueries({ state: 'imported' })).toEqual({ articles: { 'enrichment.state': null }, hidden: null, items: [] });
    expect(editorialQueries({ state: 'failed', ...src })).toEqual({ articles: { ...src, 'enrichment.state': 'failed' }, hidden: null, items: [{ ...src, state: 'failed' }] });
    expect(editorialQueries({ state: 'waiting-budget' }).items).toEqual([{ state: 'extracted', error: WAITING_NOTE }]);
    expect(editorialQueries({ state: 'pending' }).items).toEqual([{ state: 'extracted', error: { $ne: WAITING_NOTE } }]);
  });

  it('merges parts newest first (then id), one row per id where readers find it, with the page and what follows', () => {
    const row = (n: number, h: number): ListedRow => ({ id: id(n), publishedAt: hours(h) });
    const parts = [
      { source: 'article' as const, rows: [row(1, 1), row(3, 3), row(7, 5)] },
      { source: 'hidden' as const, rows: [row(2, 2), row(7, 5)] },
      { source: 'item' as const, rows: [row(4, 4), row(1, 1), { id: id(9), publishedAt: null }] },
    ];
    const all = mergeNewest(parts, 0, 10);
    expect(all.rows.map((r) => [r.id, r.source])).toEqual([
      [id(1), 'article'],
      [id(2), 'hidden'],
      [id(3), 'article'],
      [id(4), 'item'],
      [id(7), 'article'],
      [id(9), 'item'],
    ]);
    expect(all).toMatchObject({ more: false, merged: 6 });
    expect(mergeNewest(parts, 2, 2)).toMatchObject({ rows: [{ id: id(3) }, { id: id(4) }], more: true });
    // Same time: the higher id first, as the indexes order them.
    expect(mergeNewest([{ source: 'item', rows: [row(1, 1)] }, { source: 'article', rows: [row(2, 1)] }], 0, 2).rows.map((r) => r.id)).toEqual([id(2), id(1)]);
  });
});

describe('listEditorial', () => {
  const seeded = () =>
    world({
      articles: [article(1), article(3, { enrichment: { ...enriched(hours(3)), state: 'failed', error: 'the AI provider refused the request' } }), article(5, { enrichment: undefined, sourceId: undefined }), article(7)],
      hidden: [{ ...article(2), hidden: { at: NOW, by: 'editor-1', reason: null } }],
      items: [feedItem(0), feedItem(4, { error: WAITING_NOTE }), feedItem(6, { state: 'failed', error: "the model's enrichment was refused 3 times" }), feedItem(8, { state: 'published' }), feedItem(9, { state: 'new' })],
    });
  const page = (limit: number, offset = 0) => ({ limit, offset });
  const idsOf = (p: Awaited<ReturnType<typeof listEditorial>>) => p.entries.map((e) => (e.kind === 'item' ? e.item.articleId : e.doc._id));

  it('lists items, articles and hidden articles together, newest first; published and new items are not in it', async () => {
    const { deps } = seeded();
    const all = await listEditorial(deps, {}, page(20));
    expect(idsOf(all)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map(id));
    expect(all.entries.map((e) => e.kind)).toEqual(['item', 'article', 'hidden', 'article', 'item', 'article', 'item', 'article']);
    expect(all).toMatchObject({ total: 8, hasMore: false });
    const item = all.entries[0]!;
    expect(item.kind === 'item' && item.sourceName).toBe('InfoMoney');
  });

  it('pages through the same order, with exact totals counted when a part was not read to its end', async () => {
    const { deps } = seeded();
    const pages = [];
    for (let offset = 0; offset < 8; offset += 3) pages.push(await listEditorial(deps, {}, page(3, offset)));
    expect(pages.flatMap(idsOf)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map(id));
    expect(pages.map((p) => [p.total, p.hasMore])).toEqual([
      [8, true],
      [8, true],
      [8, false],
    ]);
    expect(await listEditorial(deps, {}, page(3, 20))).toMatchObject({ entries: [], total: 8, hasMore: false });
  });

  it('filters by state and source', async () => {
    const { deps } = seeded();
    expect(idsOf(await listEditorial(deps, { state: 'failed' }, page(20)))).toEqual([id(3), id(6)]);
    expect(idsOf(await listEditorial(deps, { state: 'pending' }, page(20)))).toEqual([id(0)]);
    expect(idsOf(await listEditorial(deps, { state: 'waiting-budget' }, page(20)))).toEqual([id(4)]);
    expect(idsOf(await listEditorial(deps, { state: 'imported' }, page(20)))).toEqual([id(5)]);
    expect(idsOf(await listEditorial(deps, { state: 'hidden' }, page(20)))).toEqual([id(2)]);
    expect(idsOf(await listEditorial(deps, { state: 'enriched', sourceId: id(800) }, page(20)))).toEqual([id(1), id(7)]);
    expect(idsOf(await listEditorial(deps, { sourceId: id(801) }, page(20)))).toEqual([]);
  });

  it('reads offset + limit + 1 rows of each part, and refuses an offset past the bound', async () => {
    const { deps, reads } = seeded();
    await listEditorial(deps, { state: 'enriched' }, page(2, 4));
    expect(reads).toEqual([`articles {"enrichment.state":"enriched"} 7`]);
    await expect(listEditorial(deps, {}, page(10, EDITORIAL_OFFSET_MAX + 1))).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

// ---- Hiding -------------------------------------------------------------------------------------

describe('hideArticle and unhideArticle', () => {
  it('moves the article out of what readers read and back, each twice with the same result', async () => {
    const { deps, articles, hidden } = world({ articles: [article(1)] });
    const out = await hideArticle(deps, id(1), { by: 'editor-1', reason: 'rascunho' });
    expect(out).toMatchObject({ kind: 'hidden', doc: { _id: id(1), hidden: { by: 'editor-1', reason: 'rascunho', at: NOW } } });
    expect(articles.has(id(1))).toBe(false);
    expect(hidden.get(id(1))?.title).toBe(article(1).title);
    expect(await hideArticle(deps, id(1), { by: 'editor-2' })).toMatchObject({ kind: 'hidden', doc: { hidden: { by: 'editor-1' } } });
    expect(await editorialArticle(deps, id(1))).toMatchObject({ kind: 'hidden' });

    const back = await unhideArticle(deps, id(1));
    expect(back).toMatchObject({ kind: 'article', doc: { _id: id(1) } });
    expect(back.kind === 'article' && 'hidden' in back.doc).toBe(false);
    expect(articles.get(id(1))).toEqual(article(1));
    expect(hidden.size).toBe(0);
    expect(await unhideArticle(deps, id(1))).toMatchObject({ kind: 'article' });
  });

  it('finishes a hide a crash left half done (in both places: readers see it)', async () => {
    const { deps, articles, hidden } = world({ articles: [article(1)], hidden: [{ ...article(1), hidden: { at: NOW, by: 'x', reason: null } }] });
    expect(await editorialArticle(deps, id(1))).toMatchObject({ kind: 'article' });
    await hideArticle(deps, id(1), { by: 'editor-1' });
    expect([articles.has(id(1)), hidden.get(id(1))?.hidden.by]).toEqual([false, 'editor-1']);
  });

  it('refuses an article not published yet (409), an unknown one (404), and an unhide whose URL another article holds now (409, still hidden)', async () => {
    const { deps, hidden } = world({ articles: [{ ...article(2), _id: id(3) }], hidden: [{ ...article(2), hidden: { at: NOW, by: 'x', reason: null } }], items: [feedItem(4)] });
    await expect(hideArticle(deps, id(4), { by: 'e' })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(unhideArticle(deps, id(4))).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(hideArticle(deps, id(99), { by: 'e' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(unhideArticle(deps, id(2))).rejects.toThrow(/holds its URL/);
    expect(hidden.has(id(2))).toBe(true);
  });
});

// ---- Corrections --------------------------------------------------------------------------------

const catalogue = new Map<string, CatalogueEntity>([PETRO, TESOURO, VALE].map((e) => [e._id, e]));

describe('the correction request and its labels (correction.rules)', () => {
  const body = { primarySector: 'ENE', primaryTopic: 'GUIDANCE', sentimentLabel: 'NEUTRO', entities: [{ entityId: PETRO._id }] };

  it('needs the labels the evaluation reads, a score within its label, and each entity once', () => {
    expect(CorrectionInput.safeParse(body).success).toBe(true);
    for (const bad of [
      { ...body, primarySector: 'XYZ' },
      { ...body, sentimentLabel: undefined },
      { ...body, entities: undefined },
      { ...body, sentimentScore: 0.5 },
      { ...body, sentimentScore: 2 },
      { ...body, entities: [{ entityId: PETRO._id }, { entityId: PETRO._id }] },
      { ...body, entities: [{ entityId: 'not-a-uuid' }] },
      { ...body, entities: Array.from({ length: 51 }, (_, i) => ({ entityId: id(i) })) },
      { ...body, owner: 'me' },
      { ...body, note: 'x'.repeat(501) },
    ]) {
      expect(CorrectionInput.safeParse(bad).success).toBe(false);
    }
    expect(CorrectionInput.parse({ ...body, secondarySectors: ['FIN', 'FIN', 'GOV'] }).secondarySectors).toEqual(['FIN', 'GOV']);
  });

  it("takes the model's score when it has the label, else the middle of the label's range", () => {
    const model = labelledFieldsOf(article(1));
    expect(resolveLabels(CorrectionInput.parse({ ...body, sentimentLabel: 'POSITIVO' }), catalogue, model).sentimentScore).toBe(0.46);
    expect(resolveLabels(CorrectionInput.parse(body), catalogue, model).sentimentScore).toBe(LABEL_SCORE.NEUTRO);
    expect(resolveLabels(CorrectionInput.parse({ ...body, sentimentScore: -0.1 }), catalogue, model).sentimentScore).toBe(-0.1);
  });

  it('writes the labels over the fields: linked entities keep their counts, new ones are counted once, in the title when it names them', () => {
    const labels = resolveLabels(CorrectionInput.parse({ ...body, primarySector: 'GOV', secondarySectors: ['GOV', 'FIN'], entities: [{ entityId: TESOURO._id, sentiment: -0.2 }, { entityId: PETRO._id }, { entityId: VALE._id }] }), catalogue, labelledFieldsOf(article(1)));
    const fields = correctedFields(article(1), labels);
    expect(fields).toMatchObject({ primarySector: 'GOV', primaryTopic: 'GUIDANCE', entityIds: [PETRO._id, TESOURO._id, VALE._id], tickers: ['PETR4', 'VALE3'] });
    expect(fields.modules.sentiment).toEqual({ score: 0, label: 'NEUTRO', confidence: 1 });
    // The primary sector is left out of the secondary ones; the model's topics stand.
    expect(fields.modules.classification).toEqual({ secondarySectors: ['FIN'], secondaryTopics: ['DIV'], keywords: ['petrobras'] });
    const byId = new Map(fields.modules.entities!.map((e) => [e.entityId, e]));
    expect(byId.get(PETRO._id)).toMatchObject({ mentionCount: 3, prominenceScore: 0.8, isInTitle: true, sentiment: 0.5 });
    expect(byId.get(TESOURO._id)).toMatchObject({ mentionCount: 1, prominenceScore: 0.6, isInTitle: true, sentiment: -0.2 });
    expect(byId.get(VALE._id)).toMatchObject({ mentionCount: 1, prominenceScore: 0.3, isInTitle: false, sentiment: 0 });
    // Modules not labelled are as they were.
    expect(correctedFields({ ...article(1), modules: { ...article(1).modules, scoring: { relevance: 1, credibility: 2, depth: 3, timeliness: 4, originality: 5, overall: 6 } } }, labels).modules.scoring?.overall).toBe(6);
  });

  it("keeps a correction over enrichment's new output, and the new output on the correction", () => {
    const labels = resolveLabels(CorrectionInput.parse({ ...body, entities: [{ entityId: TESOURO._id }] }), catalogue, labelledFieldsOf(article(1)));
    const corrected = { ...article(1), correction: { labels, model: labelledFieldsOf(article(1)), by: 'editor-1', at: NOW, note: null } };
    const fresh: Pick<ArticleDoc, 'primarySector' | 'primaryTopic' | 'modules' | 'entityIds' | 'tickers'> = {
      primarySector: 'FIN',
      primaryTopic: 'EARN',
      modules: { sentiment: { score: -0.7, label: 'MUITO_NEGATIVO', confidence: 0.9 }, entities: [] },
      entityIds: [],
      tickers: [],
    };
    const kept = keepCorrection(fresh, corrected);
    expect(kept).toMatchObject({ primarySector: 'ENE', primaryTopic: 'GUIDANCE', entityIds: [TESOURO._id], modules: { sentiment: { label: 'NEUTRO' } } });
    expect(kept.correction).toMatchObject({ by: 'editor-1', labels, model: { primarySector: 'FIN', primaryTopic: 'EARN', sentiment: { label: 'MUITO_NEGATIVO' } } });
    expect(keepCorrection(fresh, article(1))).toBe(fresh);
  });
});

function correctionWorld(seed: Parameters<typeof world>[0] = {}) {
  const w = world(seed);
  const examples: NewExample[] = [];
  const writes: string[] = [];
  let racesLeft = 0;
  const deps: CorrectionDeps = {
    articles: {
      findById: w.deps.articles.findById,
      async applyCorrection(i, fields, read) {
        const a = w.articles.get(i);
        if (racesLeft > 0) {
          // An enrichment lands between the read and the write.
          racesLeft--;
          if (a) a.enrichment = enriched(new Date(NOW.getTime() + 1_000 * (racesLeft + 1)));
          return false;
        }
        if (!a || (a.enrichment?.at ?? null)?.getTime() !== read.enrichmentAt?.getTime() || (a.correction?.at ?? null)?.getTime() !== read.correctionAt?.getTime()) return false;
        writes.push(i);
        Object.assign(a, fields);
        return true;
      },
    },
    hiddenArticles: { get: w.deps.hiddenArticles.get },
    feedItems: { byArticle: w.deps.feedItems.byArticle },
    entities: { findByIds: async (ids) => [PETRO, TESOURO, VALE].filter((e) => ids.includes(e._id)) },
    enrichmentExamples: { save: async (e) => void examples.push(structuredClone(e)) },
    now: () => NOW,
  };
  return { ...w, deps, examples, writes, race: (n: number) => (racesLeft = n) };
}

describe('correctArticle', () => {
  const body = CorrectionInput.parse({ primarySector: 'GOV', primaryTopic: 'MACRO', sentimentLabel: 'NEGATIVO', entities: [{ entityId: TESOURO._id }], note: 'é sobre o Tesouro' });

  it('shows the labels, keeps the correction on the article and a labelled example: who, when, the model before, the labels, the text read', async () => {
    const w = correctionWorld({ articles: [article(1)], items: [feedItem(1, { state: 'published', title: 'Título do item', summary: 'Resumo do item' })] });
    const out = await correctArticle(w.deps, id(1), body, 'editor-1');
    expect(out).toMatchObject({ primarySector: 'GOV', primaryTopic: 'MACRO', entityIds: [TESOURO._id], modules: { sentiment: { label: 'NEGATIVO', score: -0.4 } } });
    expect(w.articles.get(id(1))).toMatchObject({ primarySector: 'GOV', correction: { by: 'editor-1', at: NOW, note: 'é sobre o Tesouro', model: { primarySector: 'ENE', sentiment: { label: 'POSITIVO' } } } });
    expect(w.examples).toEqual([
      expect.objectContaining({
        _id: id(1),
        by: 'editor-1',
        at: NOW,
        enrichment: { promptVersion: 'enrich-1', model: 'gpt-4o-mini' },
        model: labelledFieldsOf(article(1)),
        labels: expect.objectContaining({ primarySector: 'GOV', sentimentLabel: 'NEGATIVO', entities: [expect.objectContaining({ canonicalName: 'Tesouro Nacional' })] }),
        input: expect.objectContaining({ title: article(1).title, text: 'Título do item\n\nResumo do item' }),
      }),
    ]);
    // A second correction: the model's output before stays the model's, not the first correction's.
    await correctArticle(w.deps, id(1), CorrectionInput.parse({ ...body, primarySector: 'FIN' }), 'editor-2');
    expect(w.examples[1]).toMatchObject({ by: 'editor-2', model: { primarySector: 'ENE' }, labels: { primarySector: 'FIN' } });
  });

  it('is made again from the article as it is when an enrichment landed in between; 409 after three', async () => {
    const w = correctionWorld({ articles: [article(1)] });
    w.race(2);
    await correctArticle(w.deps, id(1), body, 'editor-1');
    expect(w.writes).toEqual([id(1)]);
    w.race(3);
    await expect(correctArticle(w.deps, id(1), body, 'editor-1')).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('refuses an entity the catalogue lacks (400), a hidden or unpublished article (409) and an unknown one (404), changing nothing', async () => {
    const w = correctionWorld({ articles: [article(1)], hidden: [{ ...article(2), hidden: { at: NOW, by: 'x', reason: null } }], items: [feedItem(3, { state: 'failed', error: 'x' })] });
    const err = await correctArticle(w.deps, id(1), CorrectionInput.parse({ ...body, entities: [{ entityId: TESOURO._id }, { entityId: id(999) }] }), 'e').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'body.entities.1.entityId' }] });
    await expect(correctArticle(w.deps, id(2), body, 'e')).rejects.toThrow(/hidden/);
    await expect(correctArticle(w.deps, id(3), body, 'e')).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(correctArticle(w.deps, id(4), body, 'e')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect([w.writes, w.examples, w.articles.get(id(1))]).toEqual([[], [], article(1)]);
  });
});

describe('enrichArticle over a corrected article (enrich-article.ts)', () => {
  const answer: ModelEnrichment = {
    classification: { primarySector: 'FIN', secondarySectors: [], primaryTopic: 'EARN', topics: [], contentType: 'NEWS', urgencyLevel: 'LOW', isBreaking: false },
    sentiment: { score: 0.9, label: 'MUITO_POSITIVO', confidence: 0.9 },
    marketImpact: { level: 'LOW', horizon: 'SHORT_TERM', scope: 'COMPANY', confidence: 0.5, affectedTickers: [] },
    entities: [{ name: 'Petrobras', type: 'COMPANY', ticker: 'PETR4', cnpj: null, mentionCount: 1, inTitle: true, sentiment: 0.9 }],
    translations: { pt: { title: 't', subtitle: null, summary: null }, en: { title: 't', subtitle: null, summary: null } },
    scores: { relevance: 50, credibility: 50, depth: 50, timeliness: 50, originality: 50 },
    keywords: [],
  };

  it("writes the editor's labels over the model's new output, reading again a correction made meanwhile", async () => {
    const labels = (sector: 'GOV' | 'TUR') => resolveLabels(CorrectionInput.parse({ primarySector: sector, primaryTopic: 'MACRO', sentimentLabel: 'NEUTRO', entities: [{ entityId: TESOURO._id }] }), catalogue, labelledFieldsOf(article(1)));
    const first = { ...article(1), correction: { labels: labels('GOV'), model: labelledFieldsOf(article(1)), by: 'editor-1', at: hours(1), note: null } };
    const second = { ...first, correction: { ...first.correction, labels: labels('TUR'), by: 'editor-2', at: NOW } };
    let stored: ArticleDoc = first;
    const written: { fields: Partial<ArticleDoc>; correctionAt: Date | null | undefined }[] = [];
    const llm: LlmClient = {
      configured: true,
      complete: async () => {
        // An editor corrects again while the model answers.
        stored = second;
        return { content: JSON.stringify(answer), toolCalls: [], usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 }, finishReason: 'stop', model: 'gpt-4o-mini' };
      },
      // eslint-disable-next-line require-yield
      async *stream() {
        throw new Error('not used');
      },
    };
    const deps: EnrichDeps = {
      articles: {
        findById: async () => stored,
        markEnrichment: async () => undefined,
        applyEnrichment: async (_id, fields, correctionAt) => {
          written.push({ fields, correctionAt });
          return correctionAt?.getTime() === stored.correction?.at.getTime();
        },
        insertNew: async () => ({ inserted: 0, duplicates: 0, insertedIds: [] }),
        bySourceKey: async () => null,
        addReport: async () => undefined,
      },
      feedItems: { byArticle: async () => null, set: async () => undefined, get: async () => null },
      sources: { get: async () => null, countArticle: async () => undefined },
      enrichmentUsage: { reserve: async () => true, settle: async () => undefined },
      entityCandidates: { mention: async () => undefined },
      llm,
      leases: { acquire: async () => ({ release: async () => undefined, renew: async () => true }) },
      config: { news: { enrichment: { model: 'gpt-4o-mini', dailyTokens: 1_000_000, concurrency: 1, maxInputTokens: 4_000, maxOutputTokens: 1_000 } } } as EnrichDeps['config'],
      catalogue: async () => ({ dictionary: buildDictionary([PETRO, TESOURO]), byCnpj: new Map() }),
      events: { appendArticles: async () => [] },
      now: () => NOW,
    };
    expect(await enrichArticle(deps, id(1))).toMatchObject({ state: 'enriched' });
    expect(written.map((w) => w.correctionAt)).toEqual([hours(1), NOW]);
    const last = written[1]!.fields;
    expect(last).toMatchObject({ primarySector: 'TUR', primaryTopic: 'MACRO', entityIds: [TESOURO._id], enrichment: { state: 'enriched' } });
    expect((last.modules as Partial<ModuleData>).sentiment).toEqual({ score: 0, label: 'NEUTRO', confidence: 1 });
    // The model's new output, kept beside the labels.
    expect(last.correction).toMatchObject({ by: 'editor-2', model: { primarySector: 'FIN', primaryTopic: 'EARN', sentiment: { label: 'MUITO_POSITIVO' }, entities: [expect.objectContaining({ entityId: PETRO._id })] } });
    // Other modules are the model's.
    expect((last.modules as Partial<ModuleData>).market_impact?.level).toBe('LOW');
  });
});

// ---- The catalogue and the curation queue -------------------------------------------------------

describe('catalogue edits (entity.rules, changeEntity)', () => {
  it('validates tickers, CNPJs (shape and check digits) and aliases; stores a CNPJ formatted', () => {
    expect(EntityPatch.parse({ ticker: ' petr4 ', cnpj: '33000167000101' })).toEqual({ ticker: 'PETR4', cnpj: '33.000.167/0001-01' });
    expect(EntityPatch.parse({ ticker: null, cnpj: null })).toEqual({ ticker: null, cnpj: null });
    expect(formattedCnpj('33.000.167/0001-01')).toBe('33.000.167/0001-01');
    for (const bad of [
      {},
      { ticker: 'PETROBRAS' },
      { ticker: '4PET4' },
      { cnpj: '33.000.167/0001-02' },
      { cnpj: '11.111.111/1111-11' },
      { cnpj: '33.000.167/000101' },
      { cnpj: '33000167000101 ' },
      { aliases: ['ok', ''] },
      { aliases: ['a\u0000b'] },
      { aliases: ['…'] },
      { aliases: ['x'.repeat(201)] },
      { aliases: Array.from({ length: 101 }, (_, i) => `Nome ${i}`) },
      { aliases: 'Petro' },
      { name: 'Outra' },
    ]) {
      expect(EntityPatch.safeParse(bad).success).toBe(false);
    }
  });

  it('keeps each folded spelling once and never the canonical name', () => {
    expect(keptAliases('Petrobras', ['Petrobrás', 'PETROBRAS', 'Petróleo Brasileiro', 'petroleo  brasileiro', 'BR'])).toEqual(['Petróleo Brasileiro', 'BR']);
    expect(nameKeysOf('Petrobras', ['Petróleo Brasileiro', 'BR'])).toEqual(['petrobras', 'petroleo brasileiro', 'br']);
  });

  function catalogueWorld() {
    const entities = new Map([PETRO, TESOURO, VALE].map((e) => [e._id, structuredClone(e)]));
    const updates: string[] = [];
    return {
      entities,
      updates,
      deps: {
        entities: {
          catalogue: async () => ({ items: [], total: 0 }),
          findById: async (i: string) => entities.get(i) ?? null,
          othersHolding: async (h: { ticker?: string; cnpj?: string; nameKeys?: readonly string[] }, except: string) =>
            [...entities.values()].filter((e) => e._id !== except && ((h.ticker && e.ticker === h.ticker) || (h.cnpj && e.cnpj === h.cnpj) || h.nameKeys?.some((k) => e.nameKeys.includes(k)))),
          update: async (i: string, set: Partial<EntityDoc>) => {
            updates.push(i);
            const e = entities.get(i);
            return e ? Object.assign(e, set) : null;
          },
        },
      },
    };
  }

  it('changes aliases (with their name keys), the ticker and the CNPJ', async () => {
    const w = catalogueWorld();
    const out = await changeEntity(w.deps, PETRO._id, EntityPatch.parse({ aliases: ['Petróleo Brasileiro S.A.', 'PETROLEO BRASILEIRO S/A', 'Petrobras'], ticker: 'PETR3', cnpj: null }));
    expect(out).toMatchObject({ aliases: ['Petróleo Brasileiro S.A.'], nameKeys: ['petrobras', 'petroleo brasileiro s a'], ticker: 'PETR3', cnpj: null });
  });

  it('refuses (409) a ticker, a CNPJ or an alias another entity has, changing nothing; 404 for an unknown entity', async () => {
    const w = catalogueWorld();
    for (const patch of [{ ticker: 'VALE3' }, { cnpj: '33000167000101' }, { aliases: ['Nova', 'Vale S.A.'] }]) {
      const target = patch.cnpj ? TESOURO._id : PETRO._id;
      await expect(changeEntity(w.deps, target, EntityPatch.parse(patch))).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/another entity/) });
    }
    await expect(changeEntity(w.deps, id(999), EntityPatch.parse({ ticker: null }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(w.updates).toEqual([]);
  });
});

describe('aliasCandidate', () => {
  const candidate = (state: EntityCandidateDoc['state'] = 'open'): EntityCandidateDoc => ({
    _id: 'petroleo brasileiro',
    name: 'Petróleo Brasileiro',
    entityType: 'COMPANY',
    ticker: null,
    cnpj: null,
    mentions: 4,
    articleIds: [],
    state,
    entityId: null,
    firstSeenAt: NOW,
    lastSeenAt: NOW,
    decidedAt: null,
    decidedBy: null,
  });
  function aliasWorld(c: EntityCandidateDoc, entities: EntityDoc[] = [PETRO, VALE]) {
    const candidates = new Map([[c._id, structuredClone(c)]]);
    const catalogueOf = new Map(entities.map((e) => [e._id, structuredClone(e)]));
    const deps = {
      entityCandidates: {
        get: async (k: string) => candidates.get(k) ?? null,
        markAliased: async (k: string, by: string, entityId: string, now: Date) => {
          const x = candidates.get(k);
          if (!x || x.state !== 'open') return null;
          return Object.assign(x, { state: 'aliased' as const, entityId, decidedBy: by, decidedAt: now });
        },
      },
      entities: {
        findById: async (i: string) => catalogueOf.get(i) ?? null,
        othersHolding: async (h: { nameKeys?: readonly string[] }, except: string) => [...catalogueOf.values()].filter((e) => e._id !== except && h.nameKeys?.some((k) => e.nameKeys.includes(k))),
        update: async (i: string, set: Partial<EntityDoc>) => Object.assign(catalogueOf.get(i)!, set),
      },
      now: () => NOW,
    };
    return { deps, candidates, catalogueOf };
  }

  it("adds the candidate's name to the entity's aliases and marks it aliased; a second time is a 409", async () => {
    const w = aliasWorld(candidate());
    expect(await aliasCandidate(w.deps, 'petroleo brasileiro', PETRO._id, 'editor-1')).toMatchObject({ state: 'aliased', entityId: PETRO._id, decidedBy: 'editor-1' });
    expect(w.catalogueOf.get(PETRO._id)).toMatchObject({ aliases: ['Petrobrás', 'Petróleo Brasileiro'], nameKeys: ['petrobras', 'petroleo brasileiro'] });
    await expect(aliasCandidate(w.deps, 'petroleo brasileiro', PETRO._id, 'editor-1')).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('refuses an unknown entity or candidate (404) and a name another entity has (409), leaving the candidate open', async () => {
    const w = aliasWorld(candidate(), [PETRO, { ...VALE, nameKeys: ['vale', 'petroleo brasileiro'] }]);
    await expect(aliasCandidate(w.deps, 'petroleo brasileiro', id(999), 'e')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(aliasCandidate(w.deps, 'nobody', PETRO._id, 'e')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(aliasCandidate(w.deps, 'petroleo brasileiro', PETRO._id, 'e')).rejects.toThrow(/Vale/);
    expect([w.candidates.get('petroleo brasileiro')!.state, w.catalogueOf.get(PETRO._id)!.aliases]).toEqual(['open', ['Petrobrás']]);
  });
});

// ---- The evaluation's corpus ----------------------------------------------------------------------

describe("the editors' corrections as the evaluation's corpus", () => {
  it('become lines the evaluation scores: the article as read, the labels, the entities by name, ticker and aliases', () => {
    const labels = resolveLabels(CorrectionInput.parse({ primarySector: 'ENE', primaryTopic: 'GUIDANCE', sentimentLabel: 'POSITIVO', entities: [{ entityId: PETRO._id }] }), catalogue, labelledFieldsOf(article(1)));
    const doc: EnrichmentExampleDoc = {
      _id: id(1),
      input: { title: 'T', subtitle: null, summary: 'S', text: 'T\n\nTexto', language: 'pt', sourceName: 'InfoMoney' },
      labels,
      model: labelledFieldsOf(article(1)),
      enrichment: null,
      by: 'e',
      at: NOW,
      note: null,
      firstBy: 'e',
      firstAt: NOW,
      revisions: 1,
    };
    expect(exampleFixture(doc)).toEqual({
      id: `correction:${id(1)}`,
      title: 'T',
      subtitle: null,
      summary: 'S',
      text: 'T\n\nTexto',
      labels: { primarySector: 'ENE', primaryTopic: 'GUIDANCE', sentimentLabel: 'POSITIVO', entities: [{ name: 'Petrobras', ticker: 'PETR4', aliases: ['Petrobrás'] }] },
    });
    const left: string[] = [];
    expect(correctionFixtures([doc, { ...doc, _id: id(2), input: { ...doc.input, text: '' } }], (l) => left.push(l)).map((f) => f.id)).toEqual([`correction:${id(1)}`]);
    expect(left).toEqual([expect.stringContaining(id(2))]);
  });
});
