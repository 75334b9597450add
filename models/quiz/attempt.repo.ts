/**
 * Quiz attempts: one per reader and quiz, `_id` `<userId, URI-encoded>|<quizId>`, so the database
 * refuses a second one however many arrive at once. A passed attempt that recovered a day is the
 * reading of that day with source `quiz` (streaks read readings and these together): one document
 * written in one step, so a pass can never be half-recorded (docs/decisions.md "Quizzes").
 */
import type { Connection } from 'mongoose';
import { collectionOf, countMatching, isDuplicateKey, writeRacingOnUniqueKey } from '../infra/mongo';
import type { Edition } from './calendar.rules';

export interface AttemptDoc {
  _id: string;
  userId: string;
  quizId: string;
  /** The quiz as it was (the quiz may be deleted later; history keeps what was taken). */
  quizDate: string;
  date: string;
  edition: Edition;
  title: string;
  answers: number[];
  correctAnswers: number;
  totalQuestions: number;
  minCorrectAnswers: number;
  passed: boolean;
  streakRecovered: boolean;
  at: Date;
}

const attemptId = (userId: string, quizId: string) => `${encodeURIComponent(userId)}|${quizId}`;

export function createAttemptRepo(conn: Connection) {
  const attempts = () => collectionOf<AttemptDoc>(conn, 'quiz_attempts');
  let indexed: Promise<unknown> | undefined;
  const ensureIndexes = () =>
    (indexed ??= attempts().createIndexes([
      { key: { userId: 1, at: -1 }, name: 'user_at' },
      // A reader's attempts at the quizzes of some days (a quiz's state), and the days recovered (streaks).
      { key: { userId: 1, date: 1 }, name: 'user_date' },
    ]));
  return {
    ensureIndexes,
    /** Records an attempt; false when the reader attempted this quiz before (nothing is written). */
    async insert(doc: Omit<AttemptDoc, '_id'>): Promise<boolean> {
      await ensureIndexes();
      try {
        await writeRacingOnUniqueKey(() => attempts().insertOne({ _id: attemptId(doc.userId, doc.quizId), ...doc }));
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },
    /** A reader's attempts at the quizzes of the days from `from` to `to` (inclusive). */
    async between(userId: string, from: string, to: string): Promise<AttemptDoc[]> {
      await ensureIndexes();
      // At most two quizzes a day: a few days' attempts fit one batch.
      return await attempts().find({ userId, date: { $gte: from, $lte: to } }, { limit: 100, singleBatch: true }).toArray();
    },
    async history(userId: string, page: number, limit: number): Promise<{ items: AttemptDoc[]; total: number }> {
      await ensureIndexes();
      const [items, total] = await Promise.all([
        attempts().find({ userId }, { sort: { at: -1 }, skip: (page - 1) * limit, limit, singleBatch: true }).toArray(),
        countMatching(conn, 'quiz_attempts', { userId }),
      ]);
      return { items, total };
    },
    /** The days a reader recovered by passing a quiz. */
    async recoveredDays(userId: string): Promise<string[]> {
      await ensureIndexes();
      const docs = await attempts().find({ userId, streakRecovered: true }, { projection: { _id: 0, date: 1 }, batchSize: 5_000 }).toArray();
      return docs.map((d) => d.date);
    },
  };
}

export type AttemptRepo = ReturnType<typeof createAttemptRepo>;
