/**
 * Article lists, search and the feed: MongoDB queries on the articles collection, each served by
 * an index (article.model.ts). A page is read in one batch (`singleBatch`, one row more than asked
 * for) and its total comes from list-totals: exact at the list's end, else the `count` command's
 * answer shared for a bounded time (models/infra/list-totals.ts).
 */
import type { Connection } from 'mongoose';
import { canonicalKey, createListTotals, type ListTotals } from '../infra/list-totals';
import { collectionOf, countMatching } from '../infra/mongo';
import { articleModel, SORTS } from './article.model';
import { articleFilter, feedScore, matchQuality, SCORED_FIELDS, type ArticleFilters, type FeedMatch, type FeedReason, type Scored } from './article-query.rules';
import type { ArticleDoc, Ordering } from './article.rules';
import type { Preferences } from './preferences.rules';
import { terms } from './text.rules';

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
/** Feed: candidates are the newest articles of each thing followed, this many each. */
export const FEED_PER_LIST = 200;

export interface ArticleQueryOptions {
  /** SEARCH_WINDOW (tests make it small). */
  searchWindow?: number;
}

export function createArticleQueries(conn: Connection, totals: ListTotals = createListTotals({ maxAgeMs: 0 }), o: ArticleQueryOptions = {}) {
  const searchWindow = o.searchWindow ?? SEARCH_WINDOW;
  const collection = articleModel(conn).collection.collectionName;
  const articles = () => collectionOf<ArticleDoc>(conn, collection);

  async function page(query: Record<string, unknown>, sort: Record<string, unknown>, p: Page): Promise<ArticlePage> {
    const { items, total, hasMore } = await totals.page(
      canonicalKey(collection, query),
      p,
      async (limit) => (await articles().find(query, { sort: sort as never, skip: p.offset, limit, singleBatch: true }).toArray()) as ArticleDoc[],
      () => countMatching(conn, collection, query),
    );
    return { docs: items, total, hasMore };
  }

  /** The newest articles matching a query, with what feed scoring reads. */
  const newest = async (query: Record<string, unknown>): Promise<Scored[]> =>
    (await articles().find(query, { projection: SCORED_FIELDS, sort: SORTS.publishedAt, limit: FEED_PER_LIST, singleBatch: true }).toArray()) as Scored[];

  /** Every term of a text required: the feed's keywords ask the `terms` index, newest first. */
  const allTerms = (text: string) => ({ terms: { $all: terms(text).slice(0, MAX_QUERY_TERMS) } });

  return {
    list: (filters: ArticleFilters, ordering: Ordering, p: Page) => page(articleFilter(filters), SORTS[ordering], p),

    /**
     * Every term of q required, ranked by match quality (matchQuality: title 3, subtitle 2,
     * summary 1), then recency. Only the newest SEARCH_WINDOW matches are ranked, read in order from
     * the `{terms, publishedAt}` index; older matches follow them newest first. So a search never
     * scores every article holding one of its words, and its cost does not grow with the archive.
     */
    async search(q: string, filters: ArticleFilters, p: Page): Promise<ArticlePage & { terms: string[] }> {
      const stems = terms(q).slice(0, MAX_QUERY_TERMS);
      if (stems.length === 0) return { docs: [], total: 0, hasMore: false, terms: [] };
      const query = { terms: { $all: stems }, ...articleFilter(filters) };
      const read = async (limit: number): Promise<ArticleDoc[]> => {
        const end = p.offset + limit;
        let ranked: string[] = [];
        let windowFull = true;
        if (p.offset < searchWindow) {
          const window = (await articles().find(query, { projection: { _id: 1, search: 1 }, sort: SORTS.publishedAt, limit: searchWindow, singleBatch: true }).toArray()) as Pick<ArticleDoc, '_id' | 'search'>[];
          windowFull = window.length === searchWindow;
          // A stable sort of a newest-first window: equal quality stays newest first.
          ranked = window.map((a) => ({ id: a._id, quality: matchQuality(a.search, stems) })).sort((a, b) => b.quality - a.quality).slice(p.offset, end).map((r) => r.id);
        }
        const from = Math.max(p.offset, searchWindow);
        const [found, older] = await Promise.all([
          ranked.length > 0 ? articles().find({ _id: { $in: ranked } }).toArray() : Promise.resolve([]),
          windowFull && end > searchWindow ? articles().find(query, { sort: SORTS.publishedAt as never, skip: from, limit: end - from, singleBatch: true }).toArray() : Promise.resolve([]),
        ]);
        const byId = new Map((found as ArticleDoc[]).map((d) => [d._id, d]));
        // An article removed between the two reads is left out.
        return [...ranked.flatMap((id) => byId.get(id) ?? []), ...(older as ArticleDoc[])];
      };
      const { items, total, hasMore } = await totals.page(canonicalKey(collection, query), p, read, () => countMatching(conn, collection, query));
      return { docs: items, total, hasMore, terms: stems };
    },

    /** The reader's feed: the newest of everything followed, scored (article-query.rules feedScore). */
    async feed(prefs: Preferences, p: Page, now: Date): Promise<{ items: { article: Scored; score: number; reasons: FeedReason[] }[]; total: number }> {
      const candidates = new Map<string, { article: Scored; match: FeedMatch }>();
      const add = (found: Scored[], how?: (m: FeedMatch) => void) => {
        for (const a of found) {
          const c = candidates.get(a._id) ?? candidates.set(a._id, { article: a, match: { keywords: [], companies: [], tickers: [] } }).get(a._id)!;
          how?.(c.match);
        }
      };
      const follows = prefs.sectors.length + prefs.topics.length + prefs.watchlistCompanies.length + prefs.watchlistTickers.length + prefs.keywords.length;
      await Promise.all([
        ...prefs.sectors.map(async (s) => add(await newest({ primarySector: s }))),
        ...prefs.topics.map(async (t) => add(await newest({ primaryTopic: t }))),
        ...prefs.watchlistCompanies.map(async (id) => add(await newest({ entityIds: id }), (m) => m.companies.push(id))),
        ...prefs.watchlistTickers.map(async (t) => add(await newest({ tickers: t }), (m) => m.tickers.push(t))),
        ...prefs.keywords.map(async (k) => add(await newest(allTerms(k)), (m) => m.keywords.push(k))),
        // Nothing followed yet: the newest articles, scored by quality and recency alone.
        ...(follows === 0 ? [newest({}).then((found) => add(found))] : []),
      ]);
      const scored = [...candidates.values()]
        .map(({ article, match }) => ({ article, ...feedScore(article, match, prefs, now) }))
        .sort((a, b) => b.score - a.score || b.article.publishedAt.getTime() - a.article.publishedAt.getTime() || (a.article._id < b.article._id ? -1 : 1));
      return { items: scored.slice(p.offset, p.offset + p.limit), total: scored.length };
    },
  };
}

export type ArticleQueries = ReturnType<typeof createArticleQueries>;
