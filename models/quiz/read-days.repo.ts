/**
 * The days each reader read an edition or recovered one by passing its quiz, one document per
 * reader (`_id` the user id): `{months: {'YYYY-MM': mask}, complete}` (read-days.rules). Readings
 * and attempts stay the record of what happened; this is what streaks read, kept by the writes
 * that add a day. `complete` says the document holds the reader's whole history: a reader whose
 * days predate it has them gathered once, on the first streak read (QuizServices.readDays).
 */
import type { Connection } from 'mongoose';
import { collectionOf } from '../infra/mongo';
import { daysOf, masksOf } from './read-days.rules';

interface ReadDaysDoc {
  _id: string;
  months?: Record<string, number>;
  complete?: boolean;
}

export const READ_DAYS_COLLECTION = 'read_days';

export function createReadDaysRepo(conn: Connection) {
  const days = () => collectionOf<ReadDaysDoc>(conn, READ_DAYS_COLLECTION);
  return {
    /** Adds days to the reader's (one update, idempotent); `complete` marks the history gathered. */
    async mark(userId: string, dates: Iterable<string>, options: { complete?: boolean } = {}): Promise<void> {
      const bits = Object.fromEntries(Object.entries(masksOf(dates)).map(([month, mask]) => [`months.${month}`, { or: mask }]));
      await days().updateOne(
        { _id: userId },
        { ...(Object.keys(bits).length > 0 ? { $bit: bits } : {}), ...(options.complete ? { $set: { complete: true } } : { $setOnInsert: { complete: false } }) },
        { upsert: true },
      );
    },
    /** The reader's days (oldest first) and whether they are the whole history; null when none were marked. */
    async of(userId: string): Promise<{ days: string[]; complete: boolean } | null> {
      const doc = await days().findOne({ _id: userId });
      return doc ? { days: daysOf(doc.months ?? {}), complete: doc.complete === true } : null;
    },
  };
}

export type ReadDaysRepo = ReturnType<typeof createReadDaysRepo>;
