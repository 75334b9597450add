/**
 * The article as the News API documents it (issue 37): a closed ArticleView whose module fields are
 * typed by the module components, and what presentArticle and the feed send is valid against it,
 * checked as the integration tests check every response (tests/helpers/openapi-responses.ts).
 * The include parameter is a list of module names, sent comma-separated.
 */
import { ArticleListQuery, ArticleQuery } from '../../api/news/contracts';
import { newsService } from '../../api/news/service';
import { serviceDocument, type ServiceDefinition } from '../../api/shared/app';
import { validationError } from '../../api/shared/errors';
import { definitionFor, type DefinitionSource } from '../../api/shared/server';
import { parseConfig } from '../../models/config';
import { MODULE_FIELDS, presentArticle, type ArticleDoc } from '../../models/news/article.rules';
import { INCLUDE_MODULES, planName, plansWith } from '../../models/shared/plan.rules';
import { formatMismatch, responseChecker, type ObservedResponse } from '../helpers/openapi-responses';

// A JSON document read in a test.
type Json = Record<string, any>;

const config = parseConfig(process.env);
const document = serviceDocument(definitionFor(newsService as DefinitionSource<never>, config) as ServiceDefinition<never>, config) as Json;
const check = responseChecker(document);
const schemas = document.components.schemas as Json;

const ID = '7f9c2a4e-3b1d-4c5e-8f6a-1b2c3d4e5f60';
const article: ArticleDoc = {
  _id: ID,
  sourceName: 'Valor Econômico',
  sourceUrl: 'https://valor.example/petrobras-dividendos',
  title: 'Petrobras aprova R$ 20 bilhões em dividendos',
  subtitle: null,
  summary: 'Conselho aprovou a distribuição.',
  publishedAt: new Date('2026-11-20T13:00:00Z'),
  primarySector: 'ENE',
  primaryTopic: 'DIV',
  contentType: 'NEWS',
  urgencyLevel: 'HIGH',
  isBreaking: false,
  isExclusive: false,
  language: 'pt',
  baseScore: 81,
  entityIds: ['0b7e2a52-52a4-4d3c-9a41-6f0f1d2e3c4b'],
  tickers: ['PETR4'],
  createdAt: new Date('2026-11-20T13:01:00Z'),
  sourceKey: 'https://valor.example/petrobras-dividendos',
  urgencyRank: 3,
  relevance: 490_000,
  search: { title: '', subtitle: '', summary: '' },
  terms: [],
  alsoReportedBy: [{ sourceId: 's', sourceName: 'InfoMoney', url: 'https://infomoney.example/a', at: new Date('2026-11-20T13:05:00Z') }],
  modules: {
    sentiment: { score: 0.7, label: 'MUITO_POSITIVO', confidence: 0.9 },
    market_impact: { level: 'HIGH', horizon: 'SHORT_TERM', scope: 'COMPANY', confidence: 0.8, affectedTickers: ['PETR4'] },
    entities: [
      { entityId: '0b7e2a52-52a4-4d3c-9a41-6f0f1d2e3c4b', entityType: 'COMPANY', canonicalName: 'Petrobras', ticker: 'PETR4', mentionCount: 3, prominenceScore: 0.95, isInTitle: true, sentiment: 0.6 },
      { entityId: '1c8f3b63-63b5-4e4d-8b52-7a1a2e3f4d5c', entityType: 'PERSON', canonicalName: 'Magda Chambriard', mentionCount: 1, prominenceScore: 0.3, isInTitle: false, sentiment: 0 },
    ],
    translations: { pt: { title: 'Petrobras aprova…', subtitle: null, summary: null }, en: { title: 'Petrobras approves…', subtitle: null, summary: 'The board approved it.' } },
    scoring: { relevance: 90, credibility: 85, depth: 70, timeliness: 88, originality: 72, overall: 81 },
    classification: { secondarySectors: ['FIN'], secondaryTopics: ['EARN'], keywords: ['dividendos'] },
    meta: { sourceTier: 1, paywall: true, wordCount: 640, readingTimeMinutes: 3 },
  },
};

const answer = (path: string, data: unknown, paginated = false): ObservedResponse => ({
  method: 'GET',
  path,
  status: 200,
  contentType: 'application/json; charset=utf-8',
  json: { success: true, data, ...(paginated ? { pagination: { limit: 20, offset: 0, total: 1, hasMore: false } } : {}) },
  headers: {},
});
const problems = (r: ObservedResponse) => {
  const result = check(r);
  return result.problems.length ? formatMismatch(r, result) : [];
};

describe('ArticleView', () => {
  it('is closed, and every module field is typed by its component', () => {
    const view = schemas.ArticleView;
    expect(view.additionalProperties).toBe(false);
    expect(view.properties.sentimentLabel.anyOf).toEqual([{ $ref: '#/components/schemas/SentimentLabel' }, { type: 'null' }]);
    expect(view.properties.sentimentScore.anyOf[0]).toMatchObject({ type: 'number', minimum: -1, maximum: 1 });
    expect(view.properties.entities.$ref).toBe('#/components/schemas/EntitiesModule');
    for (const [field, id] of [
      ['marketImpact', 'MarketImpactModule'],
      ['translations', 'TranslationsModule'],
      ['scoring', 'ScoringModule'],
      ['classification', 'ClassificationModule'],
      ['meta', 'MetaModule'],
    ] as const) {
      expect({ field, type: view.properties[field].anyOf }).toEqual({ field, type: [{ $ref: `#/components/schemas/${id}` }, { type: 'null' }] });
    }
    const moduleFields = INCLUDE_MODULES.flatMap((m) => MODULE_FIELDS[m].fields);
    expect(Object.keys(view.properties).filter((p) => !view.required.includes(p))).toEqual(moduleFields);
  });

  it('says of each module which plans include it and that it comes only when asked for with include', () => {
    const components: Record<string, string> = {
      sentiment: 'SentimentModule',
      market_impact: 'MarketImpactModule',
      entities: 'EntitiesModule',
      translations: 'TranslationsModule',
      scoring: 'ScoringModule',
      classification: 'ClassificationModule',
      meta: 'MetaModule',
    };
    for (const m of INCLUDE_MODULES) {
      const description = schemas[components[m]!].description as string;
      const plans = plansWith(m).map(planName);
      for (const plan of ['Starter', 'Pro', 'Business']) expect({ m, plan, named: description.includes(plan) }).toEqual({ m, plan, named: plans.includes(plan as never) });
      expect(description).toContain(`include=${m}`);
      for (const field of MODULE_FIELDS[m].fields) expect(schemas.ArticleView.properties[field].description).toContain(`include=${m}`);
    }
    expect(schemas.ArticleView.description).not.toMatch(/docs\/api/);
  });

  it('accepts what presentArticle sends: base fields, every module, and modules without data (null, entities [])', () => {
    expect(problems(answer(`/api/articles/${ID}`, presentArticle(article, [])))).toEqual([]);
    expect(problems(answer(`/api/articles/${ID}`, presentArticle(article, [...INCLUDE_MODULES])))).toEqual([]);
    const bare = presentArticle({ ...article, modules: {} }, [...INCLUDE_MODULES]);
    expect(bare).toMatchObject({ sentimentLabel: null, marketImpact: null, entities: [], translations: null, meta: null });
    expect(problems(answer(`/api/articles/${ID}`, bare))).toEqual([]);
    expect(problems(answer('/api/articles', [presentArticle(article, ['translations', 'meta']), bare], true))).toEqual([]);
  });

  it('refuses a field no module has, and a module field of the wrong type', () => {
    expect(check(answer(`/api/articles/${ID}`, { ...presentArticle(article, []), emotions: 'joy' })).problems).toEqual([expect.stringMatching(/must NOT have additional properties/)]);
    expect(check(answer(`/api/articles/${ID}`, { ...presentArticle(article, ['sentiment']), sentimentLabel: 'HAPPY' })).problems.join('\n')).toMatch(/sentimentLabel/);
  });

  it('documents the feed items as FeedArticle, which accepts every kind of reason', () => {
    const feedReasons = [
      { type: 'sector', value: 'ENE', weight: 2, multiplier: 1, points: 2 },
      { type: 'topic', value: 'DIV', weight: 1, multiplier: 1, points: 1 },
      { type: 'keyword', value: 'dividendos', weight: 1, multiplier: 1, points: 1 },
      { type: 'watchlist_company', value: '0b7e2a52-52a4-4d3c-9a41-6f0f1d2e3c4b', multiplier: 1.5, points: 3 },
      { type: 'watchlist_ticker', value: 'PETR4', multiplier: 1.5, points: 3 },
      { type: 'quality', value: 81, points: 0.81 },
      { type: 'breaking', multiplier: 1.5 },
      { type: 'exclusive', multiplier: 1.2 },
      { type: 'recency', ageHours: 5.5, halfLifeHours: 24, factor: 0.8531 },
    ];
    const item = { ...presentArticle(article, ['sentiment']), feedScore: 9.1, feedReasons };
    expect(problems(answer('/api/feed', [item], true))).toEqual([]);
    expect(check(answer('/api/feed', [{ ...item, feedReasons: [{ type: 'mood', value: 1 }] }], true)).problems).not.toEqual([]);
    expect(check(answer('/api/articles', [item], true)).problems).not.toEqual([]); // not an ArticleView
  });
});

describe('the include parameter', () => {
  it('is documented as a list of module names, sent comma-separated', () => {
    for (const path of ['/api/articles', '/api/articles/search', '/api/articles/breaking', '/api/articles/{id}', '/api/feed', '/api/entities/{id}/articles', '/api/articles/by-sector/{sector}']) {
      const include = (document.paths[path].get.parameters as Json[]).find((p) => p.name === 'include')!;
      expect({ path, style: include.style, explode: include.explode, required: include.required, items: include.schema.items.enum }).toEqual({
        path,
        style: 'form',
        explode: false,
        required: false,
        items: [...INCLUDE_MODULES],
      });
      expect(include.description).toMatch(/sentiment \(Pro and Business\) adds sentimentScore/);
      expect(include.description).not.toMatch(/docs\/api/);
    }
  });

  it('reads include=sentiment,entities as before: each module once', () => {
    expect(ArticleListQuery.parse({ include: 'sentiment,entities' }).include).toEqual(['sentiment', 'entities']);
    expect(ArticleQuery.parse({ include: 'translations,meta,meta' }).include).toEqual(['translations', 'meta']);
    expect(ArticleQuery.parse({}).include).toBeUndefined();
    expect(ArticleQuery.parse({ include: ['sentiment', 'scoring,meta'] }).include).toEqual(['sentiment', 'scoring', 'meta']);
  });

  it('refuses an unknown module with a 400 that names it', () => {
    const result = ArticleListQuery.safeParse({ include: 'sentiment,emotions,x' });
    expect(result.success).toBe(false);
    const err = validationError(result.error!, 'query');
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.message).toBe('Invalid request: query.include: Unknown include modules: emotions, x');
    expect(err.details).toEqual([{ path: 'query.include', message: 'Unknown include modules: emotions, x' }]);
  });

  it('refuses an empty name among others, which the document\'s enum does not hold (found by the fuzzer: include= and include=, were answered 200)', () => {
    for (const include of ['', ',', 'sentiment,', 'sentiment,,meta', '\n', ' meta']) expect({ include, ok: ArticleQuery.safeParse({ include }).success }).toEqual({ include, ok: false });
  });

  it('refuses more names than there are modules, repeats included, as the document\'s maxItems says (found by the fuzzer)', () => {
    const seven = INCLUDE_MODULES.join(',');
    expect(ArticleQuery.parse({ include: seven }).include).toEqual([...INCLUDE_MODULES]);
    const result = ArticleListQuery.safeParse({ include: `${seven},sentiment` });
    expect(result.success).toBe(false);
    expect(validationError(result.error!, 'query').details).toEqual([{ path: 'query.include', message: `At most ${INCLUDE_MODULES.length} include modules` }]);
  });
});
