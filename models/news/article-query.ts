/**
 * Article lists, search and the feed: MongoDB queries on the articles collection, each served by
 * an index (article.model.ts). A page is read in one batch (`singleBatch`, one row more than asked
 * for) and its total comes from list-totals: exact at the list's end, else the `count` command's
 * answer shared for a bounded time (models/infra/list-totals.ts).
 */
import type { Connection } from 'mongoose';
import { canonicalKey, createListTotals, type ListTotals } from '../infra/list-totals';
import { collectionOf, countMatching, READ_TIME_LIMIT_MS } from '../infra/mongo';
import { articleModel, SORTS } from './article.model';
import { articleFilter, feedScore, matchQuality, SCORED_FIELDS, type ArticleFilters, type FeedMatch, type FeedReason, type Scored } from './article-query.rules';
import type { ArticleDoc, Ordering } from './article.rules';
import { INCLUDE_MODULES, type IncludeModule } from '../shared/plan.rules';
import type { Preferences } from './preferences.rules';
import { terms } from './text.rules';
import type { AlertTarget } from './alert.rules';
import type { DigestCandidate } from './digest.rules';

export interface Page {
  limit: number;
  offset: number;
}

export interface ArticlePage {
  docs: ArticleDoc[];
  total: number;
  /** Rows exist beyond this page (exact, whatever the total's age). */
  hasMore: boolean;
}

/** Search: at most this many distinct terms of a query are used (the first ones). */
export const MAX_QUERY_TERMS = 8;
/**
 * Search: the newest this many articles holding every word are ranked by match quality; the older
 * ones follow, newest first.
 */
export const SEARCH_WINDOW = 500;
/**
 * Feed: candidates are the newest articles of each thing followed, this many each (a feed is read
 * from the top: 12 lists give 480 candidates, 24 pages)…
 */
export const FEED_PER_LIST = 40;
/** …or fewer when much is followed: about this many candidates in all, */
export const FEED_CANDIDATES = 500;
/** …but never fewer than this many per thing followed. */
export const FEED_MIN_PER_LIST = 10;

/** How many of each list's newest articles a feed following `lists` things reads. */
export function feedPerList(lists: number): number {
  return Math.min(FEED_PER_LIST, Math.max(FEED_MIN_PER_LIST, Math.floor(FEED_CANDIDATES / Math.max(1, lists))));
}

/**
 * What a page read leaves out when it knows the modules it presents: the search copies and terms
 * (a third of an article) and every module not asked for (most of the rest). Measured on 100,000
 * articles at 50 connections: 279 → 388 pages a second.
 */
export function presented(modules: readonly IncludeModule[] | undefined): Record<string, 0> | undefined {
  if (!modules) return undefined;
  return { search: 0, terms: 0, ...Object.fromEntries(INCLUDE_MODULES.filter((m) => !modules.includes(m)).map((m) => [`modules.${m}`, 0])) };
}

export interface ArticleQueryOptions {
  /** SEARCH_WINDOW (tests make it small). */
  searchWindow?: number;
}

export function createArticleQueries(conn: Connection, totals: ListTotals = createListTotals({ maxAgeMs: 0 }), o: ArticleQueryOptions = {}) {
  const searchWindow = o.searchWindow ?? SEARCH_WINDOW;
  const collection = articleModel(conn).collection.collectionName;
  const articles = () => collectionOf<ArticleDoc>(conn, collection);

  /** A page of `query` read by `read(limit)`, with its total (list-totals) and hasMore. */
  async function counted(query: Record<string, unknown>, p: Page, read: (limit: number) => Promise<ArticleDoc[]>): Promise<ArticlePage> {
    const { items, total, hasMore } = await totals.page(canonicalKey(collection, query), p, read, () => countMatching(conn, collection, query));
    return { docs: items, total, hasMore };
  }

  const page = (query: Record<string, unknown>, sort: Record<string, unknown>, p: Page, modules?: readonly IncludeModule[]): Promise<ArticlePage> =>
    counted(query, p, async (limit) => (await articles().find(query, { sort: sort as never, skip: p.offset, limit, singleBatch: true, projection: presented(modules), maxTimeMS: READ_TIME_LIMIT_MS }).toArray()) as ArticleDoc[]);

  /** Every term of a text required: the feed's keywords ask the `terms` index, newest first. */
  const allTerms = (text: string) => ({ terms: { $all: terms(text).slice(0, MAX_QUERY_TERMS) } });

  return {
    /** A page of a list; with `modules`, its documents hold what presenting them with those needs. */
    list: (filters: ArticleFilters, ordering: Ordering, p: Page, modules?: readonly IncludeModule[]) => page(articleFilter(filters), SORTS[ordering], p, modules),

    /**
     * Every term of q required, ranked by match quality (matchQuality: title 3, subtitle 2,
     * summary 1), then recency. Only the newest SEARCH_WINDOW matches are ranked, read in order from
     * the `{terms, publishedAt}` index; older matches follow them newest first. So a search never
     * scores every article holding one of its words, and its cost does not grow with the archive.
     */
    async search(q: string, filters: ArticleFilters, p: Page, modules?: readonly IncludeModule[]): Promise<ArticlePage & { terms: string[] }> {
      const stems = terms(q).slice(0, MAX_QUERY_TERMS);
      if (stems.length === 0) return { docs: [], total: 0, hasMore: false, terms: [] };
      const query = { terms: { $all: stems }, ...articleFilter(filters) };
      const projection = presented(modules);
      const read = async (limit: number): Promise<ArticleDoc[]> => {
        const end = p.offset + limit;
        let ranked: string[] = [];
        let windowFull = true;
        if (p.offset < searchWindow) {
          const window = (await articles().find(query, { projection: { _id: 1, search: 1 }, sort: SORTS.publishedAt, limit: searchWindow, singleBatch: true, maxTimeMS: READ_TIME_LIMIT_MS }).toArray()) as Pick<ArticleDoc, '_id' | 'search'>[];
          windowFull = window.length === searchWindow;
          // A stable sort of a newest-first window: equal quality stays newest first.
          ranked = window.map((a) => ({ id: a._id, quality: matchQuality(a.search, stems) })).sort((a, b) => b.quality - a.quality).slice(p.offset, end).map((r) => r.id);
        }
        const from = Math.max(p.offset, searchWindow);
        const [found, older] = await Promise.all([
          ranked.length > 0 ? articles().find({ _id: { $in: ranked } }, { projection, maxTimeMS: READ_TIME_LIMIT_MS }).toArray() : Promise.resolve([]),
          windowFull && end > searchWindow ? articles().find(query, { sort: SORTS.publishedAt as never, skip: from, limit: end - from, singleBatch: true, projection, maxTimeMS: READ_TIME_LIMIT_MS }).toArray() : Promise.resolve([]),
        ]);
        const byId = new Map((found as ArticleDoc[]).map((d) => [d._id, d]));
        // An article removed between the two reads is left out.
        return [...ranked.flatMap((id) => byId.get(id) ?? []), ...(older as ArticleDoc[])];
      };
      return { ...(await counted(query, p, read)), terms: stems };
    },

    /**
     * The reader's feed: the newest articles of each thing followed, scored (article-query.rules
     * feedScore). One aggregation reads every list (`$unionWith`, each branch its own index read
     * newest first), so a feed costs the database one command however much is followed.
     */
    async feed(prefs: Preferences, p: Page, now: Date): Promise<{ items: { article: Scored; score: number; reasons: FeedReason[] }[]; total: number }> {
      const lists: { query: Record<string, unknown>; how?: (m: FeedMatch) => void }[] = [
        ...prefs.sectors.map((s) => ({ query: { primarySector: s } })),
        ...prefs.topics.map((t) => ({ query: { primaryTopic: t } })),
        ...prefs.watchlistCompanies.map((id) => ({ query: { entityIds: id }, how: (m: FeedMatch) => void m.companies.push(id) })),
        ...prefs.watchlistTickers.map((t) => ({ query: { tickers: t }, how: (m: FeedMatch) => void m.tickers.push(t) })),
        ...prefs.keywords.map((k) => ({ query: allTerms(k), how: (m: FeedMatch) => void m.keywords.push(k) })),
      ];
      // Nothing followed yet: the newest articles, scored by quality and recency alone.
      if (lists.length === 0) lists.push({ query: {} });
      const perList = feedPerList(lists.length);
      const branch = (query: Record<string, unknown>, list: number) => [
        { $match: query },
        { $sort: SORTS.publishedAt },
        { $limit: perList },
        { $project: SCORED_FIELDS },
        { $set: { _list: list } },
      ];
      const [first, ...rest] = lists;
      const found = (await articles()
        .aggregate([...branch(first!.query, 0), ...rest.map((l, i) => ({ $unionWith: { coll: collection, pipeline: branch(l.query, i + 1) } }))], { batchSize: lists.length * perList + 1, maxTimeMS: READ_TIME_LIMIT_MS })
        .toArray()) as (Scored & { _list: number })[];

      const candidates = new Map<string, { article: Scored; match: FeedMatch }>();
      for (const { _list, ...article } of found) {
        const c = candidates.get(article._id) ?? candidates.set(article._id, { article, match: { keywords: [], companies: [], tickers: [] } }).get(article._id)!;
        lists[_list]?.how?.(c.match);
      }
      const scored = [...candidates.values()]
        .map(({ article, match }) => ({ article, ...feedScore(article, match, prefs, now) }))
        .sort((a, b) => b.score - a.score || b.article.publishedAt.getTime() - a.article.publishedAt.getTime() || (a.article._id < b.article._id ? -1 : 1));
      return { items: scored.slice(p.offset, p.offset + p.limit), total: scored.length };
    },

    /** The ids of the newest `limit` articles. */
    newestIds: async (limit: number): Promise<string[]> =>
      (await articles().find({}, { projection: { _id: 1 }, sort: SORTS.publishedAt as never, limit, maxTimeMS: READ_TIME_LIMIT_MS }).toArray()).map((a) => a._id),

    /** The headlines of these articles, in the order of `ids` (an id no longer there is left out). */
    async headlines(ids: string[]): Promise<Headline[]> {
      const found = (await articles().find({ _id: { $in: ids } }, { projection: HEADLINE, maxTimeMS: READ_TIME_LIMIT_MS }).toArray()) as Headline[];
      const byId = new Map(found.map((a) => [a._id, a]));
      return ids.flatMap((id) => byId.get(id) ?? []);
    },

    /** The newest `limit` breaking articles' headlines. */
    breaking: async (limit: number): Promise<Headline[]> =>
      (await articles().find({ isBreaking: true }, { projection: HEADLINE, sort: SORTS.publishedAt as never, limit, maxTimeMS: READ_TIME_LIMIT_MS }).toArray()) as Headline[],

    /**
     * The daily digest's candidates: the newest `limit` articles published in [since, until), with
     * what the one rule, the feed's rank and the mail need (digest.rules).
     */
    digestCandidates: async (since: Date, until: Date, limit: number): Promise<DigestCandidate[]> =>
      (await articles()
        .find(
          { publishedAt: { $gte: since, $lt: until } },
          {
            projection: { ...SCORED_FIELDS, title: 1, summary: 1, sourceName: 1, sourceUrl: 1, entityIds: 1, tickers: 1, terms: 1 },
            sort: SORTS.publishedAt as never,
            limit,
            maxTimeMS: READ_TIME_LIMIT_MS,
          },
        )
        .toArray()) as DigestCandidate[],

    /** What an alert of this article needs (null: no such article). */
    /** What a reader's alert mail says of an article. */
    alertArticle: async (id: string): Promise<{ title: string; summary: string | null; sourceName: string; sourceUrl: string; publishedAt: Date } | null> =>
      await articles().findOne({ _id: id }, { projection: { title: 1, summary: 1, sourceName: 1, sourceUrl: 1, publishedAt: 1 }, maxTimeMS: READ_TIME_LIMIT_MS }),
    alertTarget: async (id: string): Promise<AlertTarget | null> =>
      (await articles().findOne({ _id: id }, { projection: { title: 1, isBreaking: 1, primarySector: 1, primaryTopic: 1, entityIds: 1, tickers: 1, terms: 1, baseScore: 1 }, maxTimeMS: READ_TIME_LIMIT_MS })) as AlertTarget | null,
  };
}

/** An article as a one-line message names it. */
export interface Headline {
  _id: string;
  title: string;
  sourceName: string;
  publishedAt: Date;
  isBreaking: boolean;
}
const HEADLINE = { title: 1, sourceName: 1, publishedAt: 1, isBreaking: 1 };

export type ArticleQueries = ReturnType<typeof createArticleQueries>;
