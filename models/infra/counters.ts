/**
 * Numeric ids (the support spec's ids are numbers): one counter document per sequence, advanced by
 * an atomic `$inc`, so concurrent callers always get distinct ids.
 */
import type { Connection } from 'mongoose';
import { isDuplicateKey } from './mongo';

interface CounterDoc {
  _id: string;
  seq: number;
}

/** Reserves `count` consecutive ids of `sequence` and returns the first. */
export async function reserveIds(conn: Connection, sequence: string, count = 1): Promise<number> {
  const counters = conn.db!.collection<CounterDoc>('counters');
  const inc = () => counters.findOneAndUpdate({ _id: sequence }, { $inc: { seq: count } }, { upsert: true, returnDocument: 'after' });
  // The first use of a sequence: two concurrent upserts may both insert; the loser's insert hits
  // the _id index and the increment, repeated, finds the counter.
  const res = await inc().catch((err: unknown) => {
    if (isDuplicateKey(err)) return inc();
    throw err;
  });
  return res!.seq - count + 1;
}

export const nextId = (conn: Connection, sequence: string) => reserveIds(conn, sequence, 1);
