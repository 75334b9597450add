/**
 * Hidden articles (`news_hidden_articles`): an article an editor hid is moved here, whole, out of
 * `articles`, and moved back when unhidden (operations/news/editorial.ts). Every reader of
 * articles (lists, search, the feed, one article, an entity's articles, breaking news, WhatsApp,
 * the AI's search, quiz editions) reads `articles` alone, so none of them can show a hidden
 * article, and their queries and indexes stay as they were: the same choice as "hidden until
 * enriched" (docs/decisions.md). A hidden article keeps its URL: the article repository counts a
 * new copy of it as a duplicate (article.repo.ts insertNew, bySourceKey).
 */
import type { Connection } from 'mongoose';
import { collectionOf, countMatching, indexesOnce, READ_TIME_LIMIT_MS } from '../infra/mongo';
import type { ArticleDoc } from './article.rules';
import type { ListedRow } from './editorial.rules';

export const HIDDEN_ARTICLES = 'news_hidden_articles';

export interface HiddenMark {
  at: Date;
  /** The editor (the token's subject). */
  by: string;
  reason: string | null;
}

export interface HiddenArticleDoc extends ArticleDoc {
  hidden: HiddenMark;
}

/** Newest first, as every article list (article.model.ts SORTS.publishedAt). */
const NEWEST = { publishedAt: -1, _id: -1 } as const;

export function createHiddenArticleRepo(conn: Connection) {
  const hidden = () => collectionOf<HiddenArticleDoc>(conn, HIDDEN_ARTICLES);
  const ensureIndexes = () =>
    indexesOnce(conn, HIDDEN_ARTICLES, () =>
      hidden().createIndexes([
        { key: { sourceKey: 1 }, name: 'source_key' },
        { key: NEWEST, name: 'newest' },
        { key: { sourceId: 1, ...NEWEST }, name: 'source_newest' },
      ]),
    );
  return {
    ensureIndexes,
    get: (id: string) => hidden().findOne({ _id: id }) as Promise<HiddenArticleDoc | null>,
    /** In the order asked, missing ones left out. */
    async findByIds(ids: readonly string[]): Promise<HiddenArticleDoc[]> {
      if (ids.length === 0) return [];
      const found = new Map((await hidden().find({ _id: { $in: [...ids] } }, { projection: { search: 0, terms: 0 } }).toArray()).map((d) => [d._id, d as HiddenArticleDoc]));
      return ids.flatMap((id) => found.get(id) ?? []);
    },
    /** Stores the hidden copy (again: a repeated hide replaces it). */
    async put(doc: HiddenArticleDoc): Promise<void> {
      await ensureIndexes();
      await hidden().replaceOne({ _id: doc._id }, doc, { upsert: true });
    },
    remove: async (id: string): Promise<boolean> => (await hidden().deleteOne({ _id: id })).deletedCount === 1,
    /** The hidden article of a normalised URL. */
    bySourceKey: (sourceKey: string) => hidden().findOne({ sourceKey }, { projection: { _id: 1, sourceKey: 1 } }),
    /** Which of these normalised URLs hidden articles hold: URL → the article's id. */
    async holders(sourceKeys: readonly string[]): Promise<Map<string, string>> {
      if (sourceKeys.length === 0) return new Map();
      const found = await hidden().find({ sourceKey: { $in: [...new Set(sourceKeys)] } }, { projection: { _id: 1, sourceKey: 1 } }).toArray();
      return new Map(found.map((d) => [d.sourceKey, d._id]));
    },
    /** The first `limit` of a query, newest first: ids and publication times only (the editors' list). */
    async newestRows(query: Record<string, unknown>, limit: number): Promise<ListedRow[]> {
      await ensureIndexes();
      const rows = await hidden().find(query, { projection: { _id: 1, publishedAt: 1 }, sort: NEWEST, limit, maxTimeMS: READ_TIME_LIMIT_MS }).toArray();
      return rows.map((r) => ({ id: r._id, publishedAt: r.publishedAt }));
    },
    count: (query: Record<string, unknown>) => countMatching(conn, HIDDEN_ARTICLES, query),
  };
}

export type HiddenArticleRepo = ReturnType<typeof createHiddenArticleRepo>;
