/**
 * Articles by id, and the source-URL register imports deduplicate by. The register is keyed by a
 * hash of the normalised URL (`_id` lookups, indexed on FerretDB too).
 */
import { createHash } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { ArticleDoc } from './article.rules';
import { articleModel } from './article.model';

interface UrlDoc {
  _id: string;
  url: string;
  articleId: string;
}

/** One spelling per page: lower-case scheme and host, no fragment, no utm_* tracking, no trailing slash. */
export function normaliseUrl(raw: string): string {
  const u = new URL(raw);
  u.hash = '';
  for (const key of [...u.searchParams.keys()]) if (key.toLowerCase().startsWith('utm_')) u.searchParams.delete(key);
  u.searchParams.sort();
  if (u.pathname.length > 1 && u.pathname.endsWith('/')) u.pathname = u.pathname.slice(0, -1);
  return u.toString();
}

export const urlKey = (url: string) => createHash('sha256').update(normaliseUrl(url)).digest('hex');

/**
 * `cacheSize` articles are kept per process (least recently used out): an imported article never
 * changes (a second import of its URL is a duplicate), so a cached copy is never stale.
 */
export function createArticleRepo(conn: Connection, options: { cacheSize?: number } = {}) {
  articleModel(conn); // declares the collection's indexes
  const articles = () => conn.db!.collection<ArticleDoc>('articles');
  const urls = () => conn.db!.collection<UrlDoc>('article_urls');
  const cacheSize = options.cacheSize ?? 0;
  const cache = new Map<string, ArticleDoc>();
  async function findById(id: string): Promise<ArticleDoc | null> {
    const hit = cache.get(id);
    if (hit) {
      cache.delete(id);
      cache.set(id, hit);
      return hit;
    }
    const doc = (await articles().findOne({ _id: id })) as ArticleDoc | null;
    if (doc && cacheSize > 0) {
      cache.set(id, doc);
      if (cache.size > cacheSize) cache.delete(cache.keys().next().value!);
    }
    return doc;
  }
  return {
    findById,
    /** In the order asked, missing ones left out (one `_id` lookup each: FerretDB scans for $in). */
    async findByIds(ids: readonly string[]): Promise<ArticleDoc[]> {
      const docs = await Promise.all(ids.map(findById));
      return docs.filter((d): d is ArticleDoc => d !== null);
    },
    /** The article ids already registered for these URL keys. */
    async registeredUrls(keys: readonly string[]): Promise<Map<string, string>> {
      const found = await Promise.all(keys.map((k) => urls().findOne({ _id: k })));
      return new Map(found.filter((d): d is UrlDoc => d !== null).map((d) => [d._id, d.articleId]));
    },
    /** Writes articles (validated by the import's schema) and registers their URLs; repeating a write is harmless. */
    async save(docs: readonly ArticleDoc[]): Promise<void> {
      if (docs.length === 0) return;
      await articles().bulkWrite(docs.map((d) => ({ replaceOne: { filter: { _id: d._id }, replacement: d, upsert: true } })), { ordered: false });
      await urls().bulkWrite(
        docs.map((d) => {
          const url = normaliseUrl(d.sourceUrl);
          const _id = createHash('sha256').update(url).digest('hex'); // urlKey, normalised once
          return { replaceOne: { filter: { _id }, replacement: { _id, url, articleId: d._id }, upsert: true } };
        }),
        { ordered: false },
      );
    },
    count: () => articles().estimatedDocumentCount(),
  };
}

export type ArticleRepo = ReturnType<typeof createArticleRepo>;
