/**
 * Articles (spec §4.1–4.3, §4.5 and the endpoints it names without showing: one article, breaking
 * news, the feed). Lists and search are indexed queries (models/news/article-query.ts).
 */
import { z } from 'zod';
import type { ArticleFilters } from '../../models/news/article-query.rules';
import { presentArticle, type ArticleDoc, type ORDERINGS } from '../../models/news/article.rules';
import * as articles from '../../operations/news/articles';
import { type PageQuery, paginate, PaginationView } from '../../models/news/pagination.rules';
import type { IncludeModule } from '../../models/shared/plan.rules';
import { reply, routeFactory } from '../shared/route';
import { apiKey, type KeyPrincipal } from './auth';
import {
  ArticleIdParams,
  ArticleListQuery,
  ArticlePageQuery,
  ArticleQuery,
  ArticleSearchQuery,
  ArticleView,
  BreakingArticlesQuery,
  EntityIdParams,
  FeedArticleView,
  type FeedReasonView,
  SectorArticlesQuery,
  SectorParams,
} from './contracts';
import type { NewsDeps } from './deps';
import {
  articleDetailExample,
  articleExample,
  breakingArticleExample,
  energyArticlesExample,
  entityArticlesExample,
  feedItemExample,
  itauArticleExample,
  PETROBRAS_ENTITY_ID,
  PETROBRAS_PLAN_ARTICLE_ID,
  searchArticlesExample,
} from './examples/articles';

const route = routeFactory<NewsDeps>();
const reader = apiKey('read:articles');
const tags = ['articles'];

const present = (docs: readonly ArticleDoc[], modules: IncludeModule[]) => docs.map((d) => presentArticle(d, modules));

/** The include modules as the operations read them (`a,b`): the query validated the names already; the plan is theirs to check. */
const includeOf = (q: { include?: IncludeModule[] | undefined }) => q.include?.join(',');

/** The reading a request asks for: its page and include modules under the key's plan. */
const reading = (auth: KeyPrincipal, q: PageQuery & { include?: IncludeModule[] | undefined }) => ({ plan: auth.plan, include: includeOf(q), page: q });

async function listReply(deps: NewsDeps, auth: KeyPrincipal, q: PageQuery & { include?: IncludeModule[] | undefined; sort: (typeof ORDERINGS)[number] } & ArticleFilters) {
  const { docs, total, hasMore, modules } = await articles.listArticles(deps, reading(auth, q), q, q.sort);
  return reply({ data: present(docs, modules), pagination: paginate(q, total, hasMore) });
}

const listDescription =
  'Sort: publishedAt (default, newest first), baseScore (highest first), urgencyLevel (CRITICAL > HIGH > MEDIUM > LOW, then newest), relevance (score and recency: a recent high-score article beats a higher-score old one). ' +
  'Filters: sector, topic, from, to (ISO 8601), language, urgencyLevel, contentType, isBreaking, entity (id), ticker. include: the modules of the plan to add to each article (see the parameter).';

export const articleRoutes = [
  route({
    method: 'get',
    path: '/api/articles',
    summary: 'List articles',
    description: listDescription,
    tags,
    auth: reader,
    query: ArticleListQuery,
    response: z.array(ArticleView).max(100),
    pagination: PaginationView,
    errors: [403],
    example: {
      query: { include: ['sentiment', 'market_impact', 'entities'], limit: 2 },
      response: [articleExample, itauArticleExample],
      pagination: { limit: 2, offset: 0, total: 48_312, hasMore: true },
    },
    handler: ({ query, auth, deps }) => listReply(deps, auth, query),
  }),

  route({
    method: 'get',
    path: '/api/articles/by-sector/:sector',
    summary: 'Articles of one sector',
    description: `The list of GET /api/articles confined to a sector. ${listDescription}`,
    tags,
    auth: reader,
    params: SectorParams,
    query: SectorArticlesQuery,
    response: z.array(ArticleView).max(100),
    pagination: PaginationView,
    errors: [403],
    example: {
      params: { sector: 'ENE' },
      query: { include: ['sentiment'], limit: 2 },
      response: energyArticlesExample,
      pagination: { limit: 2, offset: 0, total: 3_874, hasMore: true },
    },
    handler: ({ params, query, auth, deps }) => listReply(deps, auth, { ...query, sector: params.sector }),
  }),

  route({
    method: 'get',
    path: '/api/articles/search',
    summary: 'Search articles',
    description:
      'Portuguese full text over title, subtitle and summary, accent- and case-insensitive, singular and plural alike; every word of q must match (common words are ignored). ' +
      'The newest 500 matches are ranked by match quality (title > subtitle > summary) and then recency; older matches follow, newest first. Filters as on the list.',
    tags,
    auth: reader,
    query: ArticleSearchQuery,
    response: z.array(ArticleView).max(100),
    pagination: PaginationView,
    errors: [403],
    example: {
      query: { q: 'petrobras dividendos', limit: 2 },
      response: searchArticlesExample,
      pagination: { limit: 2, offset: 0, total: 143, hasMore: true },
    },
    handler: async ({ query, auth, deps }) => {
      const { docs, total, hasMore, modules } = await articles.searchArticles(deps, reading(auth, query), query.q, query);
      return reply({ data: present(docs, modules), pagination: paginate(query, total, hasMore) });
    },
  }),

  route({
    method: 'get',
    path: '/api/articles/breaking',
    summary: 'Breaking news',
    description: 'Breaking articles, newest first; since (ISO 8601) keeps those published after it. Needs the read:breaking scope.',
    tags,
    auth: apiKey('read:breaking'),
    query: BreakingArticlesQuery,
    response: z.array(ArticleView).max(100),
    pagination: PaginationView,
    errors: [403],
    example: {
      query: { since: '2026-11-24T12:00:00Z', include: ['sentiment', 'market_impact'] },
      response: [breakingArticleExample],
      pagination: { limit: 20, offset: 0, total: 1, hasMore: false },
    },
    handler: async ({ query, auth, deps }) => {
      const { docs, total, hasMore, modules } = await articles.breakingArticles(deps, reading(auth, query), query.since);
      return reply({ data: present(docs, modules), pagination: paginate(query, total, hasMore) });
    },
  }),

  route({
    method: 'get',
    path: '/api/articles/:id',
    summary: 'One article',
    tags,
    auth: reader,
    params: ArticleIdParams,
    query: ArticleQuery,
    response: ArticleView,
    errors: [403, 404],
    example: {
      params: { id: PETROBRAS_PLAN_ARTICLE_ID },
      query: { include: ['sentiment', 'entities', 'translations', 'scoring'] },
      response: articleDetailExample,
    },
    handler: async ({ params, query, auth, deps }) => {
      const { doc, modules } = await articles.oneArticle(deps, auth.plan, includeOf(query), params.id);
      return presentArticle(doc, modules);
    },
  }),

  route({
    method: 'get',
    path: '/api/entities/:id/articles',
    summary: 'Articles mentioning an entity',
    description: 'Newest first. Needs read:articles (the entity itself needs read:entities).',
    tags: ['entities'],
    auth: reader,
    params: EntityIdParams,
    query: ArticlePageQuery,
    response: z.array(ArticleView).max(100),
    pagination: PaginationView,
    errors: [403, 404],
    example: {
      params: { id: PETROBRAS_ENTITY_ID },
      query: { include: ['entities'], limit: 2 },
      response: entityArticlesExample,
      pagination: { limit: 2, offset: 0, total: 612, hasMore: true },
    },
    handler: async ({ params, query, auth, deps }) => {
      const { docs, total, hasMore, modules } = await articles.entityArticles(deps, reading(auth, query), params.id);
      return reply({ data: present(docs, modules), pagination: paginate(query, total, hasMore) });
    },
  }),

  route({
    method: 'get',
    path: '/api/feed',
    summary: 'Your personalised feed',
    description:
      "Articles from what the key's account follows (sectors, topics, watchlist companies and tickers, keywords: the newest 40 of each, fewer when more than 12 are followed), scored by the preferences: " +
      'weight × multiplier per match (a watchlist item counts 2), plus baseScore/100; times the breaking and exclusive multipliers; halved every recencyDecayHours when recency decay is on. ' +
      'Each item carries feedScore and feedReasons. With nothing followed, the newest articles by quality and recency.',
    tags,
    auth: reader,
    query: ArticlePageQuery,
    response: z.array(FeedArticleView).max(100),
    pagination: PaginationView,
    errors: [403],
    example: {
      query: { include: ['sentiment'], limit: 1 },
      response: [feedItemExample],
      pagination: { limit: 1, offset: 0, total: 96, hasMore: true },
    },
    handler: async ({ query, auth, deps }) => {
      const { items, total, modules } = await articles.personalFeed(deps, auth.sub, reading(auth, query));
      // A sector or topic reason holds the article's own code (FeedReason types it string).
      const data = items.map((i) => ({ ...presentArticle(i.doc, modules), feedScore: i.score, feedReasons: i.reasons as FeedReasonView[] }));
      return reply({ data, pagination: paginate(query, total) });
    },
  }),
];
