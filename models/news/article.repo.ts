/**
 * Stored articles: read by id, and written by imports. An article's normalised source URL is
 * unique (article.model.ts), so any number of imports may run at once and a page is stored once:
 * the database, not a single writer, decides which import's copy wins.
 */
import type { Connection } from 'mongoose';
import { buildIndexesRacing, collectionOf, indexesOnce, countMatching, insertManyRacing, isDuplicateKey, READ_TIME_LIMIT_MS } from '../infra/mongo';
import type { ArticleDoc, ArticleReport } from './article.rules';
import type { ListedRow } from './editorial.rules';
import { createHiddenArticleRepo } from './hidden-article.repo';

/** Other reports kept per article. */
export const REPORTS_MAX = 50;
import { articleModel, SORTS } from './article.model';

/** What putting a hidden article back found: it is back, it was there already, or another article holds its URL now. */
export type Restored = 'restored' | 'present' | 'conflict';

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
  // Hidden articles keep their URLs: a new copy of one is a duplicate (hidden-article.repo.ts).
  const hidden = createHiddenArticleRepo(conn);
  /** insertNew's insert into the articles collection (hidden URLs already left out). */
  async function insertVisible(docs: readonly ArticleDoc[]): Promise<{ inserted: number; duplicates: number; insertedIds: string[] }> {
    if (docs.length === 0) return { inserted: 0, duplicates: 0, insertedIds: [] };
    const refused = (await insertManyRacing(articles(), docs)).map((i) => docs[i]!);
    if (refused.length === 0) return { inserted: docs.length, duplicates: 0, insertedIds: docs.map((d) => d._id) };
    // A refused article is ours when its id holds its URL (an earlier attempt wrote it).
    const owners = await articles()
      .find({ sourceKey: { $in: refused.map((d) => d.sourceKey) } }, { projection: { _id: 1, sourceKey: 1 } })
      .toArray();
    const ownerOf = new Map(owners.map((o) => [o.sourceKey, o._id]));
    const duplicate = new Set(refused.filter((d) => ownerOf.get(d.sourceKey) !== d._id).map((d) => d._id));
    return { inserted: docs.length - duplicate.size, duplicates: duplicate.size, insertedIds: docs.filter((d) => !duplicate.has(d._id)).map((d) => d._id) };
  }

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
    async insertNew(all: readonly ArticleDoc[]): Promise<{ inserted: number; duplicates: number; insertedIds: string[] }> {
      if (all.length === 0) return { inserted: 0, duplicates: 0, insertedIds: [] };
      await indexed();
      // A URL a hidden article holds is not stored again: a duplicate, unless the hidden article is
      // this very one (stored by an earlier attempt, hidden since), which counts as inserted but is
      // not among the ids stored now (nothing alerts or enriches it again).
      const hiddenBy = await hidden.holders(all.map((d) => d.sourceKey));
      const docs = all.filter((d) => !hiddenBy.has(d.sourceKey));
      const hiddenOwn = all.filter((d) => hiddenBy.get(d.sourceKey) === d._id).length;
      const hiddenDuplicates = all.length - docs.length - hiddenOwn;
      const stored = await insertVisible(docs);
      return { inserted: stored.inserted + hiddenOwn, duplicates: stored.duplicates + hiddenDuplicates, insertedIds: stored.insertedIds };
    },

    count: () => countMatching(conn, collection, {}),

    /** Ids of the articles matching a query, newest first, at most `limit` (re-enrichment resolves its filter so). */
    async idsMatching(query: Record<string, unknown>, limit: number): Promise<string[]> {
      const found = await articles().find(query, { projection: { _id: 1 } }).sort(SORTS.publishedAt).limit(limit).toArray();
      return found.map((d) => d._id);
    },

    /** The article stored for a normalised URL (ingest.rules normaliseUrl), hidden or not: both asked at once. */
    async bySourceKey(sourceKey: string) {
      const [visible, hiddenOne] = await Promise.all([articles().findOne({ sourceKey }, { projection: { _id: 1, sourceKey: 1 } }), hidden.bySourceKey(sourceKey)]);
      return visible ?? hiddenOne;
    },

    /** Records another source's report of an article's story (once per URL, at most REPORTS_MAX). */
    async addReport(id: string, report: ArticleReport): Promise<void> {
      await articles().updateOne({ _id: id, 'alsoReportedBy.url': { $ne: report.url }, [`alsoReportedBy.${REPORTS_MAX - 1}`]: { $exists: false } }, { $push: { alsoReportedBy: report } });
    },

    /**
     * Replaces what enrichment produced (fields, modules, keys derived from them) on an article.
     * With `correctionAt`, only while the article's correction is the one read (its time; null:
     * none), so that a correction made meanwhile is never overwritten: false then.
     */
    async applyEnrichment(id: string, fields: Partial<ArticleDoc>, correctionAt?: Date | null): Promise<boolean> {
      const filter = correctionAt === undefined ? { _id: id } : { _id: id, 'correction.at': correctionAt };
      return (await articles().updateOne(filter, { $set: fields })).matchedCount === 1;
    },

    /**
     * Writes an editor's correction (the corrected fields and the correction itself), only while the
     * article's last enrichment and correction are those read (their times; null: none): false when
     * either changed meanwhile, or the article is gone.
     */
    async applyCorrection(id: string, fields: Partial<ArticleDoc>, read: { enrichmentAt: Date | null; correctionAt: Date | null }): Promise<boolean> {
      const filter = { _id: id, 'enrichment.at': read.enrichmentAt, 'correction.at': read.correctionAt };
      return (await articles().updateOne(filter, { $set: fields })).matchedCount === 1;
    },

    /** The first `limit` of a query, newest first: ids and publication times only (the editors' list). */
    async newestRows(query: Record<string, unknown>, limit: number): Promise<ListedRow[]> {
      const rows = await articles().find(query, { projection: { _id: 1, publishedAt: 1 }, sort: SORTS.publishedAt, limit, maxTimeMS: READ_TIME_LIMIT_MS }).toArray();
      return rows.map((r) => ({ id: r._id, publishedAt: r.publishedAt }));
    },
    countWhere: (query: Record<string, unknown>) => countMatching(conn, collection, query),

    /** Takes an article out of the collection (hiding moved it to the hidden articles first). */
    remove: async (id: string): Promise<boolean> => (await articles().deleteOne({ _id: id })).deletedCount === 1,

    /** Puts a hidden article back. */
    async restore(doc: ArticleDoc): Promise<Restored> {
      await indexed();
      try {
        await articles().insertOne(doc);
        return 'restored';
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        return (await articles().findOne({ _id: doc._id }, { projection: { _id: 1 } })) ? 'present' : 'conflict';
      }
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
