/**
 * Idempotency-Key, the store (docs/decisions.md "Idempotency-Key"): one record per caller,
 * operation and key in `idempotency_keys`, claimed by inserting it (its `_id` is unique), holding
 * the request's fingerprint and, once answered, the answer. Records expire 24 hours after the
 * first request (a TTL index; a record past its time is also treated as gone before the TTL
 * monitor removes it).
 *
 * An answer of 5xx is never kept: the claim is released and the next request with the key runs
 * the operation again, which finds what the first attempt wrote under its requestKey. A claim
 * whose process died is taken over once its lease has passed, for the same reason.
 *
 * Also here: `saveThenStartOnce`, save-then-start (./save-then-start.ts) for a record whose id
 * derives from a requestKey.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Connection } from 'mongoose';
import { AppError, type ErrorCode } from '../errors';
import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_TTL_MS } from './idempotency.rules';
import { buildIndexesRacing, collectionOf, indexesOnce, isDuplicateKey, writeRacingOnUniqueKey } from './mongo';
import { NOT_STARTED, saveThenStart, type SaveThenStart } from './save-then-start';

export const IDEMPOTENCY_COLLECTION = 'idempotency_keys';

/** The answer kept for a key: a success (status, envelope, headers such as Location) or a 4xx failure. */
export type StoredAnswer =
  | { kind: 'success'; status: number; body: string; headers: Record<string, string> }
  | { kind: 'failure'; code: ErrorCode; message: string; details?: string; headers: Record<string, string> };

export interface IdempotencyRecord {
  /** idempotencyRecordId: the caller, the operation and the key, hashed. */
  _id: string;
  fingerprint: string;
  /** running: claimed by `owner` until `lockedUntil`; released: its request answered 5xx (run it again); done: `answer` holds the answer. */
  state: 'running' | 'released' | 'done';
  owner: string;
  lockedUntil: Date;
  answer?: StoredAnswer;
  createdAt: Date;
  /** The TTL index removes the record after this (24 h after the first request). */
  expiresAt: Date;
}

export type Claim =
  | { kind: 'claimed'; owner: string }
  | { kind: 'replay'; answer: StoredAnswer }
  | { kind: 'busy' }
  | { kind: 'mismatch' };

export interface IdempotencyStore {
  /** Claims the key for this request, or says what the earlier request with it left. */
  claim(id: string, fingerprint: string, now?: Date): Promise<Claim>;
  /** Keeps the answer (only the claim's owner can). */
  complete(id: string, owner: string, answer: StoredAnswer): Promise<void>;
  /** Releases the claim after a 5xx: the next request with the key (and the same body) runs again. */
  release(id: string, owner: string): Promise<void>;
  /** Frees the key after a refusal (the request as sent, or as things stand): any request may use it again. */
  forget(id: string, owner: string): Promise<void>;
}

const ATTEMPTS = 5;

export function createIdempotencyStore(conn: Connection, options: { ttlMs?: number; leaseMs?: number } = {}): IdempotencyStore {
  const ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const leaseMs = options.leaseMs ?? IDEMPOTENCY_LEASE_MS;
  const records = () => collectionOf<IdempotencyRecord>(conn, IDEMPOTENCY_COLLECTION);
  const ensureIndexes = () =>
    indexesOnce(conn, IDEMPOTENCY_COLLECTION, () => buildIndexesRacing(() => records().createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'expires' })));

  return {
    async claim(id, fingerprint, now = new Date()) {
      await ensureIndexes();
      for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
        const owner = randomUUID();
        try {
          await writeRacingOnUniqueKey(() =>
            records().insertOne({ _id: id, fingerprint, state: 'running', owner, lockedUntil: new Date(now.getTime() + leaseMs), createdAt: now, expiresAt: new Date(now.getTime() + ttlMs) }),
          );
          return { kind: 'claimed', owner };
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
        const found = await records().findOne({ _id: id });
        if (!found) continue; // removed meanwhile (expired): insert again
        if (found.expiresAt.getTime() <= now.getTime()) {
          // Expired, not yet removed by the TTL monitor: the key is free again.
          await records().deleteOne({ _id: id, owner: found.owner, expiresAt: found.expiresAt });
          continue;
        }
        if (found.fingerprint !== fingerprint) return { kind: 'mismatch' };
        if (found.state === 'done' && found.answer) return { kind: 'replay', answer: found.answer };
        if (found.state === 'running' && found.lockedUntil.getTime() > now.getTime()) return { kind: 'busy' };
        // Released after a 5xx, or a claim whose process died: take it over (one taker wins).
        const taken = await records().updateOne(
          { _id: id, owner: found.owner, state: found.state },
          { $set: { state: 'running', owner, lockedUntil: new Date(now.getTime() + leaseMs) } },
        );
        if (taken.modifiedCount === 1) return { kind: 'claimed', owner };
      }
      return { kind: 'busy' };
    },

    async complete(id, owner, answer) {
      await records().updateOne({ _id: id, owner, state: 'running' }, { $set: { state: 'done', answer } });
    },

    async release(id, owner) {
      await records().updateOne({ _id: id, owner, state: 'running' }, { $set: { state: 'released', lockedUntil: new Date() } });
    },

    async forget(id, owner) {
      await records().deleteOne({ _id: id, owner, state: 'running' });
    },
  };
}

const stores = new WeakMap<Connection, IdempotencyStore>();

/** The store of a connection, made once. */
export function idempotencyStore(conn: Connection): IdempotencyStore {
  let store = stores.get(conn);
  if (!store) stores.set(conn, (store = createIdempotencyStore(conn)));
  return store;
}

/** The steps of save-then-start for a record whose id derives from a requestKey. */
export interface SaveThenStartOnce<T, R> extends SaveThenStart<R>, StartFound<T, R> {}

export interface StartFound<T, R> {
  /** The record under its id, as it is now. */
  find(): Promise<T | null>;
  /** The record failed because its workflow was never started (save-then-start's abandon). */
  abandoned(record: T): boolean;
  /** Back to its starting state, conditionally on still being abandoned; false when it was not. */
  revive(): Promise<boolean>;
  start(): Promise<R>;
  abandon(reason: string): Promise<void>;
  /** The record's workflow id, to ask Temporal whether a run of it is still going. */
  workflowId: string;
  temporal: { workflow: { getHandle(workflowId: string): { describe(): Promise<{ status: { name: string } }> } } };
}

/**
 * Save, then start (./save-then-start.ts), for a record whose id derives from a requestKey (a bulk
 * operation, an import, a re-enrichment created under an Idempotency-Key), so that a request
 * repeated after any fault makes one record and one workflow: with no record yet, save, then
 * start; a record found (saved by an earlier attempt, or by one racing this) is settled by
 * `startFound`. Returns the record found, or undefined when this call saved it.
 */
export async function saveThenStartOnce<T, R>(steps: SaveThenStartOnce<T, R>): Promise<T | undefined> {
  const found = await steps.find();
  if (found) return await startFound(found, steps);
  try {
    await saveThenStart(steps);
    return undefined;
  } catch (err) {
    const raced = isDuplicateKey(err) ? await steps.find() : null;
    if (!raced) throw err;
    return await startFound(raced, steps);
  }
}

/**
 * A record an earlier attempt saved: its work, returned as it is now. One that was saved but never
 * started (its start failed, it was abandoned and that attempt answered 503) is revived and started
 * now, once Temporal says no run of its workflow is going: a start reported failed may have reached
 * Temporal after all, and that run finds its record failed and does nothing; while it runs, 409
 * (retry shortly). Temporal unreachable: 503, and the record stays as it was.
 */
export async function startFound<T, R>(found: T, steps: StartFound<T, R>): Promise<T> {
  if (!steps.abandoned(found)) return found;
  if (await workflowRunning(steps)) {
    throw new AppError('CONFLICT', 'An earlier request with this Idempotency-Key is still being settled; retry in a few seconds');
  }
  if (await steps.revive()) {
    try {
      await steps.start();
    } catch (err) {
      await steps.abandon(NOT_STARTED).catch(() => undefined);
      throw err;
    }
  }
  return (await steps.find()) ?? found;
}

async function workflowRunning(steps: Pick<StartFound<unknown, unknown>, 'temporal' | 'workflowId'>): Promise<boolean> {
  try {
    const described = await steps.temporal.workflow.getHandle(steps.workflowId).describe();
    return described.status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err; // Temporal cannot say (unreachable): 503, retry later
  }
}
