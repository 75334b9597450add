/**
 * Numeric ids (the support spec's ids are numbers). A counter document per sequence gives the
 * next candidate; the entity's unique _id is what actually decides. FerretDB v1 does not apply
 * concurrent `$inc`s atomically (measured: 100 concurrent increments left the counter at 7), so two
 * writers may get the same candidate: the insert then fails on _id and is retried with a new one.
 * On MongoDB the first candidate always wins.
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

const isDuplicate = (err: unknown) => (err as { code?: number }).code === 11000;

/**
 * Inserts a document under the next id of `sequence` (whose ids live in `collection`), retrying
 * with a fresh id while the id is taken; a counter left behind by lost increments is first moved
 * past the largest id in use. A duplicate on another unique index is rethrown.
 */
export async function insertWithNextId<T>(
  conn: Connection,
  sequence: string,
  collection: string,
  insert: (id: number) => Promise<T>,
  /** The field holding the number in `collection` (`_id` unless the key is derived from it). */
  idField = '_id',
): Promise<T> {
  const entities = conn.db!.collection<Record<string, number>>(collection);
  for (let attempt = 0; ; attempt += 1) {
    const id = await nextId(conn, sequence);
    try {
      return await insert(id);
    } catch (err) {
      if (!isDuplicate(err) || attempt >= 20 || !(await entities.findOne({ [idField]: id }, { projection: { [idField]: 1 } }))) throw err;
      const [last] = await entities.find({}, { projection: { [idField]: 1 } }).sort({ [idField]: -1 }).limit(1).toArray();
      if (last) await conn.db!.collection<CounterDoc>('counters').updateOne({ _id: sequence }, { $max: { seq: last[idField]! } });
    }
  }
}
