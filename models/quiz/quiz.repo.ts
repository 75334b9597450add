/**
 * Quizzes: one per day and edition, guaranteed by a unique index on `{date, edition}` (a re-run,
 * a retry, the schedule and an admin racing each other meet there). Ids are UUIDs, so a quiz
 * deleted and made again is a new quiz (docs/decisions.md "Quizzes").
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { collectionOf, countMatching, isDuplicateKey, writeRacingOnUniqueKey } from '../infra/mongo';
import type { Edition } from './calendar.rules';
import type { QuizDoc } from './quiz.rules';

export interface QuizListQuery {
  from?: string | undefined;
  to?: string | undefined;
  edition?: Edition | undefined;
  page: number;
  limit: number;
}

export function createQuizRepo(conn: Connection) {
  const quizzes = () => collectionOf<QuizDoc>(conn, 'quizzes');
  let indexed: Promise<unknown> | undefined;
  const ensureIndexes = () =>
    (indexed ??= quizzes().createIndexes([
      { key: { date: 1, edition: 1 }, name: 'date_edition_unique', unique: true },
      // Admin lists, newest first: all of them, and filtered by edition. (The unique index above
      // cannot serve the first: unique indexes cannot return rows in order on the development database.)
      { key: { date: -1, edition: 1 }, name: 'date_desc_edition' },
      { key: { edition: 1, date: -1 }, name: 'edition_date' },
    ]));
  return {
    ensureIndexes,
    /** Stores a quiz unless its day and edition has one; `created` false gives the existing quiz. */
    async insert(fields: Omit<QuizDoc, '_id' | 'createdAt'>, now = new Date()): Promise<{ doc: QuizDoc; created: boolean }> {
      await ensureIndexes();
      const doc: QuizDoc = { _id: randomUUID(), ...fields, createdAt: now };
      try {
        await writeRacingOnUniqueKey(() => quizzes().insertOne(doc));
        return { doc, created: true };
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const existing = await quizzes().findOne({ date: fields.date, edition: fields.edition });
        // Deleted between the refusal and the read: the caller may try again.
        if (!existing) throw err;
        return { doc: existing, created: false };
      }
    },
    get: (id: string) => quizzes().findOne({ _id: id }),
    find: (date: string, edition: Edition) => quizzes().findOne({ date, edition }),
    /** Quizzes dated between two days (inclusive), newest first, at most 100 (a few days' worth); without their questions. */
    between: (from: string, to: string) =>
      quizzes()
        .find({ date: { $gte: from, $lte: to } }, { sort: { date: -1, edition: 1 }, projection: { questions: 0 }, limit: 100, singleBatch: true })
        .toArray() as Promise<Omit<QuizDoc, 'questions'>[]>,
    async list(q: QuizListQuery): Promise<{ items: Omit<QuizDoc, 'questions'>[]; total: number }> {
      await ensureIndexes();
      const filter: Record<string, unknown> = {};
      if (q.edition) filter.edition = q.edition;
      if (q.from || q.to) filter.date = { ...(q.from ? { $gte: q.from } : {}), ...(q.to ? { $lte: q.to } : {}) };
      const [items, total] = await Promise.all([
        quizzes()
          // Within one edition the date alone orders them (and its index can give that order).
          .find(filter, { sort: q.edition ? { date: -1 } : { date: -1, edition: 1 }, skip: (q.page - 1) * q.limit, limit: q.limit, projection: { questions: 0 }, singleBatch: true })
          .toArray(),
        countMatching(conn, 'quizzes', filter),
      ]);
      return { items: items as Omit<QuizDoc, 'questions'>[], total };
    },
    /** Deletes a quiz; false when there was none. Its attempts stay (docs/decisions.md "Quizzes"). */
    delete: async (id: string) => (await quizzes().deleteOne({ _id: id })).deletedCount === 1,
  };
}

export type QuizRepo = ReturnType<typeof createQuizRepo>;
