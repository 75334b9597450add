/**
 * Articles (spec §4.1–4.3, §4.5 and the endpoints it names without showing: one article, breaking
 * news, the feed). Lists and search are indexed queries (models/news/article-query.ts).
 */
import { z } from 'zod';
import type { ArticleFilters } from '../../models/news/article-query.rules';
import { CONTENT_TYPES, LANGUAGES, ORDERINGS, presentArticle, SECTORS, TOPICS, URGENCY_LEVELS, type ArticleDoc } from '../../models/news/article.rules';
import * as articles from '../../operations/news/articles';
import { PageQuery, paginate, PaginationView } from '../../models/news/pagination.rules';
import type { IncludeModule } from '../../models/shared/plan.rules';
import { TICKER } from '../../models/news/preferences.rules';
import { reply, routeFactory } from '../shared/route';
import { IsoDateTime, Text, Uuid } from '../shared/views';
import { apiKey, type KeyPrincipal } from './auth';
import type { NewsDeps } from './deps';

const route = routeFactory<NewsDeps>();
const reader = apiKey('read:articles');
const tags = ['articles'];

const isoDate = (name: string) =>
  z.iso
    .datetime({ offset: true, message: `${name} must be an ISO 8601 date-time such as 2026-11-21T09:00:00Z` })
    .max(64)
    .transform((s) => new Date(s))
    .optional();
const bool = z.enum(['true', 'false']).transform((v) => v === 'true');

const Include = z.object({ include: z.string().max(200).optional() });
/** Filters every list takes (spec §4.1, named as users expect: issue 5). */
const Filters = z.object({
  sector: z.enum(SECTORS).optional(),
  topic: z.enum(TOPICS).optional(),
  from: isoDate('from'),
  to: isoDate('to'),
  language: z.enum(LANGUAGES).optional(),
  urgencyLevel: z.enum(URGENCY_LEVELS).optional(),
  contentType: z.enum(CONTENT_TYPES).optional(),
  isBreaking: bool.optional(),
  entity: z.uuid().optional(),
  ticker: TICKER.optional(),
});
const Sort = z.object({ sort: z.enum(ORDERINGS).default('publishedAt') });

/** Bounds: those of an imported line (models/news/ingest.rules.ts ImportLine), which every article passed. */
const ArticleView = z
  .object({
    id: Uuid,
    sourceName: Text(200),
    title: Text(500),
    subtitle: Text(1_000).nullable(),
    summary: Text(5_000).nullable(),
    publishedAt: IsoDateTime,
    primarySector: z.enum(SECTORS),
    primaryTopic: z.enum(TOPICS),
    contentType: z.enum(CONTENT_TYPES),
    urgencyLevel: z.enum(URGENCY_LEVELS),
    isBreaking: z.boolean(),
    language: Text(8).describe('ISO 639-1 code (pt, en, es)'),
    alsoReportedBy: z
      .array(z.object({ sourceName: Text(200), url: Text(2_048) }))
      .max(50)
      .describe('Other sources that published the same story (a syndicated copy, or the same page)'),
  })
  .catchall(z.unknown())
  .meta({ id: 'ArticleView', description: 'Base fields always; each requested include module adds its fields (docs/api/news.md)' });

const present = (docs: readonly ArticleDoc[], modules: IncludeModule[]) => docs.map((d) => presentArticle(d, modules));

/** The reading a request asks for: its page and include modules under the key's plan. */
const reading = (auth: KeyPrincipal, q: PageQuery & { include?: string | undefined }) => ({ plan: auth.plan, include: q.include, page: q });

async function listReply(deps: NewsDeps, auth: KeyPrincipal, q: PageQuery & { include?: string | undefined; sort: (typeof ORDERINGS)[number] } & ArticleFilters) {
  const { docs, total, hasMore, modules } = await articles.listArticles(deps, reading(auth, q), q, q.sort);
  return reply({ data: present(docs, modules), pagination: paginate(q, total, hasMore) });
}

const listDescription =
  'Sort: publishedAt (default, newest first), baseScore (highest first), urgencyLevel (CRITICAL > HIGH > MEDIUM > LOW, then newest), relevance (score and recency: a recent high-score article beats a higher-score old one). ' +
  'Filters: sector, topic, from, to (ISO 8601), language, urgencyLevel, contentType, isBreaking, entity (id), ticker. include: comma-separated modules of the plan.';

export const articleRoutes = [
  route({
    method: 'get',
    path: '/api/articles',
    summary: 'List articles',
    description: listDescription,
    tags,
    auth: reader,
    query: PageQuery.extend(Include.shape).extend(Sort.shape).extend(Filters.shape),
    response: z.array(ArticleView).max(100),
    pagination: PaginationView,
    errors: [403],
    handler: ({ query, auth, deps }) => listReply(deps, auth, query),
  }),

  route({
    method: 'get',
    path: '/api/articles/by-sector/:sector',
    summary: 'Articles of one sector',
    description: `The list of GET /api/articles confined to a sector. ${listDescription}`,
    tags,
    auth: reader,
    params: z.object({ sector: z.enum(SECTORS) }),
    query: PageQuery.extend(Include.shape).extend(Sort.shape).extend(Filters.omit({ sector: true }).shape),
    response: z.array(ArticleView).max(100),
    pagination: PaginationView,
    errors: [403],
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
    query: PageQuery.extend(Include.shape)
      .extend(Filters.shape)
      .extend({ q: z.string().max(200).trim().min(2, 'q must have at least 2 characters') }),
    response: z.array(ArticleView).max(100),
    pagination: PaginationView,
    errors: [403],
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
    query: PageQuery.extend(Include.shape).extend({ since: isoDate('since') }),
    response: z.array(ArticleView).max(100),
    pagination: PaginationView,
    errors: [403],
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
    params: z.object({ id: z.uuid() }),
    query: Include,
    response: ArticleView,
    errors: [403, 404],
    handler: async ({ params, query, auth, deps }) => {
      const { doc, modules } = await articles.oneArticle(deps, auth.plan, query.include, params.id);
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
    params: z.object({ id: z.uuid() }),
    query: PageQuery.extend(Include.shape),
    response: z.array(ArticleView).max(100),
    pagination: PaginationView,
    errors: [403, 404],
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
    query: PageQuery.extend(Include.shape),
    response: z.array(ArticleView).max(100),
    pagination: PaginationView,
    errors: [403],
    handler: async ({ query, auth, deps }) => {
      const { items, total, modules } = await articles.personalFeed(deps, auth.sub, reading(auth, query));
      const data = items.map((i) => ({ ...presentArticle(i.doc, modules), feedScore: i.score, feedReasons: i.reasons }));
      return reply({ data, pagination: paginate(query, total) });
    },
  }),
];
