/**
 * News sources in MongoDB (`news_sources`): the settings an administrator gives and the health the
 * source's workflow records after each poll. One source per normalised feed URL (unique index).
 */
import type { Connection } from 'mongoose';
import { collectionOf, indexesOnce, isDuplicateKey } from '../../infra/mongo';
import type { SourceDoc, SourceHealth, SourcePatch } from './source.rules';
import { feedKeyOf } from './source.rules';

/** Most sources one list answers (a deployment reads hundreds, not thousands). */
export const SOURCE_LIST_MAX = 1_000;

export class DuplicateFeed extends Error {
  override name = 'DuplicateFeed';
}

export function createSourceRepo(conn: Connection) {
  const sources = () => collectionOf<SourceDoc>(conn, 'news_sources');
  const ensureIndexes = () =>
    (indexesOnce(conn, 'news_sources', () => sources().createIndexes([
      { key: { feedKey: 1 }, name: 'feed_unique', unique: true },
      { key: { name: 1, _id: 1 }, name: 'name' },
    ])));
  return {
    ensureIndexes,
    async create(doc: SourceDoc): Promise<void> {
      await ensureIndexes();
      try {
        await sources().insertOne(doc);
      } catch (err) {
        if (isDuplicateKey(err)) throw new DuplicateFeed(`a source already reads ${doc.feedUrl}`);
        throw err;
      }
    },
    get: (id: string) => sources().findOne({ _id: id }),
    byFeed: (url: string) => sources().findOne({ feedKey: feedKeyOf(url) }),
    /** Every source by name (the admin list; at most SOURCE_LIST_MAX). */
    list: (filter: { enabled?: boolean | undefined } = {}) =>
      sources()
        .find(filter.enabled === undefined ? {} : { enabled: filter.enabled }, { sort: { name: 1, _id: 1 }, limit: SOURCE_LIST_MAX, singleBatch: true })
        .toArray(),
    async update(id: string, patch: SourcePatch, now: Date): Promise<SourceDoc | null> {
      await ensureIndexes();
      const set: Record<string, unknown> = { ...patch, updatedAt: now };
      // A new feed starts over: its validators belong to the old one.
      if (patch.feedUrl) Object.assign(set, { feedKey: feedKeyOf(patch.feedUrl), http: { etag: null, lastModified: null } });
      try {
        return await sources().findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' });
      } catch (err) {
        if (isDuplicateKey(err)) throw new DuplicateFeed(`a source already reads ${patch.feedUrl}`);
        throw err;
      }
    },
    remove: async (id: string): Promise<boolean> => (await sources().deleteOne({ _id: id })).deletedCount === 1,
    /** After a poll: the feed's validators (when it answered) and the health fields. */
    async recordPoll(id: string, http: SourceDoc['http'] | undefined, health: Partial<SourceHealth>, seen: number): Promise<SourceDoc | null> {
      const set: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(health)) set[`health.${k}`] = v;
      if (http) set.http = http;
      return await sources().findOneAndUpdate({ _id: id }, { $set: set, $inc: { 'health.itemsSeen': seen } }, { returnDocument: 'after' });
    },
    countArticle: async (id: string) => {
      await sources().updateOne({ _id: id }, { $inc: { 'health.articlesCreated': 1 } });
    },
  };
}
export type SourceRepo = ReturnType<typeof createSourceRepo>;
