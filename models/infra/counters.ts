/**
 * Numeric ids (the support spec's ids are numbers): one counter document per sequence, advanced
 * atomically. `reserve` takes a block at once for bulk inserts.
 */
import type { Connection } from 'mongoose';

interface CounterDoc {
  _id: string;
  seq: number;
}

export async function reserveIds(conn: Connection, sequence: string, count = 1): Promise<number> {
  const res = await conn.db!
    .collection<CounterDoc>('counters')
    .findOneAndUpdate({ _id: sequence }, { $inc: { seq: count } }, { upsert: true, returnDocument: 'after' });
  const last = res?.seq ?? count;
  return last - count + 1;
}

export const nextId = (conn: Connection, sequence: string) => reserveIds(conn, sequence, 1);
