/**
 * Upgrades articles stored by releases before the indexed queries (issue 11): fills the fields
 * derived from each article (ingest.rules derivedKeys: normalised URL, sort keys, search copies
 * and terms), brings the collection's indexes to the schema's (dropping the old ones), and drops
 * the collections of the posting-list index and the URL register. Idempotent: a second run finds
 * nothing to fill. Run by `npm run cli -- migrate`.
 */
import type { Connection } from 'mongoose';
import { articleModel } from './article.model';
import type { ArticleDoc } from './article.rules';
import { derivedKeys } from './ingest.rules';

/** Collections of the earlier article index and URL register. */
export const LEGACY_ARTICLE_COLLECTIONS = ['article_index', 'article_index_chunks', 'article_urls'] as const;

const BATCH = 1_000;

export interface ArticleMigration {
  filled: number;
  droppedIndexes: string[];
  droppedCollections: string[];
}

export async function migrateArticles(conn: Connection, log: (line: string) => void = () => undefined): Promise<ArticleMigration> {
  const model = articleModel(conn);
  const articles = conn.db!.collection<ArticleDoc>(model.collection.collectionName);
  const fields = { sourceUrl: 1, urgencyLevel: 1, publishedAt: 1, baseScore: 1, title: 1, subtitle: 1, summary: 1 } as const;
  let filled = 0;
  for (;;) {
    // Filled ones leave the filter, so each batch is the next one.
    const batch = await articles.find({ sourceKey: { $exists: false } }, { projection: fields, limit: BATCH }).toArray();
    if (batch.length === 0) break;
    const updates = batch.map((a) => {
      try {
        return { updateOne: { filter: { _id: a._id }, update: { $set: derivedKeys(a) } } };
      } catch (err) {
        throw new Error(`article ${a._id} cannot be upgraded: ${(err as Error).message}`, { cause: err });
      }
    });
    await articles.bulkWrite(updates, { ordered: false });
    filled += batch.length;
    log(`articles: ${filled} filled`);
  }
  // Indexes as the schema declares them (the unique source key can only be built once every
  // article has one); indexes of earlier releases are dropped.
  const droppedIndexes = await model.syncIndexes();
  const existing = new Set((await conn.db!.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  const droppedCollections: string[] = [];
  for (const name of LEGACY_ARTICLE_COLLECTIONS) {
    if (!existing.has(name)) continue;
    await conn.db!.dropCollection(name);
    droppedCollections.push(name);
  }
  return { filled, droppedIndexes, droppedCollections };
}
