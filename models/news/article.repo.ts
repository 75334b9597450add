/**
 * Stored articles: read by id, and written by imports. An article's normalised source URL is
 * unique (article.model.ts), so any number of imports may run at once and a page is stored once:
 * the database, not a single writer, decides which import's copy wins.
 */
import type { Connection } from 'mongoose';
import { buildIndexesRacing, collectionOf, indexesOnce, countMatching, insertManyRacing } from '../infra/mongo';
import type { ArticleDoc, ArticleReport } from './article.rules';

/** Other reports kept per article. */
export const REPORTS_MAX = 50;
import { articleModel, SORTS } from './article.model';

export function createArticleRepo(conn: Connection) {
  const model = articleModel(conn);
  const collection = model.collection.collectionName;
  const articles = () => collectionOf<ArticleDoc>(conn, collection);
  /**
   * The collection's indexes exist: inserts rely on the unique one. Built once per connection; a failure (articles
   * of an earlier release without their key) is said plainly and tried again on the next call, so
   * a retried import succeeds once an operator has run the migration.
   */
  const indexed = () =>
    indexesOnce(conn, collection, () =>
      buildIndexesRacing(() => model.createIndexes()).catch((err: Error) => {
        throw new Error(`the articles collection's indexes cannot be built (articles stored by an earlier release? run \`npm run cli -- migrate\`): ${err.message}`, { cause: err });
      }),
    );
  return {
    findById: (id: string) => articles().findOne({ _id: id }) as Promise<ArticleDoc | null>,

    /** In the order asked, missing ones left out. */
    async findByIds(ids: readonly string[]): Promise<ArticleDoc[]> {
      if (ids.length === 0) return [];
      const found = new Map((await articles().find({ _id: { $in: [...ids] } }).toArray()).map((d) => [d._id, d as ArticleDoc]));
      return ids.flatMap((id) => found.get(id) ?? []);
    },

    /**
     * Inserts articles whose source URLs are not stored yet. Counts as inserted every article now
     * stored under its own id (by this call or an earlier attempt of it: ids derive from import and
     * line), the others as duplicates of another article. Repeating a call changes nothing.
     */
    async insertNew(docs: readonly ArticleDoc[]): Promise<{ inserted: number; duplicates: number; insertedIds: string[] }> {
      if (docs.length === 0) return { inserted: 0, duplicates: 0, insertedIds: [] };
      await indexed();
      const refused = (await insertManyRacing(articles(), docs)).map((i) => docs[i]!);
      if (refused.length === 0) return { inserted: docs.length, duplicates: 0, insertedIds: docs.map((d) => d._id) };
      // A refused article is ours when its id holds its URL (an earlier attempt wrote it).
      const owners = await articles()
        .find({ sourceKey: { $in: refused.map((d) => d.sourceKey) } }, { projection: { _id: 1, sourceKey: 1 } })
        .toArray();
      const ownerOf = new Map(owners.map((o) => [o.sourceKey, o._id]));
      const duplicate = new Set(refused.filter((d) => ownerOf.get(d.sourceKey) !== d._id).map((d) => d._id));
      return { inserted: docs.length - duplicate.size, duplicates: duplicate.size, insertedIds: docs.filter((d) => !duplicate.has(d._id)).map((d) => d._id) };
    },

    count: () => countMatching(conn, collection, {}),

    /** Ids of the articles matching a query, newest first, at most `limit` (re-enrichment resolves its filter so). */
    async idsMatching(query: Record<string, unknown>, limit: number): Promise<string[]> {
      const found = await articles().find(query, { projection: { _id: 1 } }).sort(SORTS.publishedAt).limit(limit).toArray();
      return found.map((d) => d._id);
    },

    /** The article stored for a normalised URL (ingest.rules normaliseUrl). */
    bySourceKey: (sourceKey: string) => articles().findOne({ sourceKey }, { projection: { _id: 1, sourceKey: 1 } }),

    /** Records another source's report of an article's story (once per URL, at most REPORTS_MAX). */
    async addReport(id: string, report: ArticleReport): Promise<void> {
      await articles().updateOne({ _id: id, 'alsoReportedBy.url': { $ne: report.url }, [`alsoReportedBy.${REPORTS_MAX - 1}`]: { $exists: false } }, { $push: { alsoReportedBy: report } });
    },

    /** Replaces what enrichment produced (fields, modules, keys derived from them) on an article. */
    async applyEnrichment(id: string, fields: Partial<ArticleDoc>): Promise<boolean> {
      return (await articles().updateOne({ _id: id }, { $set: fields })).matchedCount === 1;
    },

    /** Marks the state of an article's enrichment (waiting for the budget, failed). */
    async markEnrichment(id: string, enrichment: Partial<NonNullable<ArticleDoc['enrichment']>>): Promise<void> {
      const set: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(enrichment)) set[`enrichment.${k}`] = v;
      await articles().updateOne({ _id: id }, { $set: set });
    },
  };
}

export type ArticleRepo = ReturnType<typeof createArticleRepo>;
