/** Editions by day and edition: created or replaced whole (an `_id` upsert), read by id or by date range. */
import type { Connection } from 'mongoose';
import { collectionOf, isDuplicateKey } from '../infra/mongo';
import type { Edition } from './calendar.rules';
import { editionId, type EditionContent, type EditionDoc } from './edition.rules';

export function createEditionRepo(conn: Connection) {
  const editions = () => collectionOf<EditionDoc>(conn, 'editions');
  return {
    /** Creates or replaces one edition; says whether it was new. Repeating it changes nothing but `updatedAt`. */
    async put(date: string, edition: Edition, content: EditionContent, now = new Date()): Promise<{ doc: EditionDoc; created: boolean }> {
      const _id = editionId(date, edition);
      const fields = { date, edition, title: content.title, text: content.text, publishedAt: content.publishedAt ? new Date(content.publishedAt) : now, updatedAt: now };
      const upsert = () => editions().updateOne({ _id }, { $set: fields, $setOnInsert: { createdAt: now } }, { upsert: true });
      // Two first writes of one edition meet on `_id`: the loser's repeat is an update.
      const res = await upsert().catch((err: unknown) => {
        if (isDuplicateKey(err)) return upsert();
        throw err;
      });
      const doc = (await editions().findOne({ _id }))!;
      return { doc, created: res.upsertedCount === 1 };
    },
    get: (date: string, edition: Edition) => editions().findOne({ _id: editionId(date, edition) }),
    /** Editions between two days (inclusive), newest first. */
    between: (from: string, to: string) => editions().find({ date: { $gte: from, $lte: to } }, { sort: { _id: -1 } }).toArray(),
  };
}

export type EditionRepo = ReturnType<typeof createEditionRepo>;
