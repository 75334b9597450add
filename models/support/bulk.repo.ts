/**
 * Bulk operations: the operation (its ticket ids, parameters, state) and one item per processed
 * ticket, whose unique id `<operationId>:<ticketId>` makes every ticket count exactly once.
 */
import type { Connection } from 'mongoose';
import { bulkKey, type BulkParams, type BulkState, type BulkType } from './bulk.rules';
import { collectionOf, insertManyRacing, writeRacingOnUniqueKey } from '../infra/mongo';
import { NOT_STARTED } from '../infra/save-then-start';
import type { MessageChannel } from './ticket.rules';

/** Error texts are kept at most this long (an exception's message may quote anything). */
export const BULK_ERROR_MAX = 1_000;
const cut = (text: string) => (text.length > BULK_ERROR_MAX ? `${text.slice(0, BULK_ERROR_MAX - 1)}…` : text);

export interface ChunkSummary {
  processed: number;
  succeeded: number;
  failed: number;
  errors: { ticketId: number; error: string }[];
}

export interface BulkOperationDoc {
  _id: string;
  /** Per chunk (by start position): what it has done. Kept in the operation so progress is one read. */
  chunks?: Record<string, ChunkSummary>;
  type: BulkType;
  params: BulkParams;
  ticketIds: number[];
  total: number;
  state: BulkState;
  createdBy: string;
  createdByEmail: string | null;
  /** Where it was asked for: the staff console or the API (its messages carry it; absent on operations stored before). */
  canal?: MessageChannel;
  createdAt: Date;
  finishedAt: Date | null;
  /** Why a failed operation failed (it could not be started). */
  error?: string | null;
}

/**
 * What a read made inside a chunk's attempt may carry: the attempt's signal (the driver stops the
 * read when the attempt is cancelled or abandoned) and a server-side time limit.
 */
export interface ReadBounds {
  signal?: AbortSignal;
  maxTimeMS?: number;
}

export interface BulkItemDoc {
  _id: string;
  operationId: string;
  ticketId: number;
  ok: boolean;
  error: string | null;
  at: Date;
}

export function createBulkRepo(conn: Connection) {
  const ops = () => collectionOf<BulkOperationDoc>(conn, 'bulk_operations');
  const items = () => collectionOf<BulkItemDoc>(conn, 'bulk_operation_items');
  let indexed: Promise<unknown> | undefined;
  const ensureIndexes = () => (indexed ??= items().createIndex({ operationId: 1, ok: 1 }).catch(() => undefined));

  return {
    /** Saves a new operation (E11000 when its id is taken: one derived from a request's key, saved by an earlier attempt). */
    async create(doc: BulkOperationDoc): Promise<void> {
      await ensureIndexes();
      await writeRacingOnUniqueKey(() => ops().insertOne(doc));
    },
    find: (id: string, bounds: ReadBounds = {}) => ops().findOne({ _id: id }, bounds),
    /** Which of these tickets the operation already processed (one read). */
    async processedOf(operationId: string, ticketIds: readonly number[], bounds: ReadBounds = {}): Promise<Set<number>> {
      const found = await items()
        .find({ _id: { $in: ticketIds.map((t) => bulkKey(operationId, t)) } }, { projection: { ticketId: 1 }, ...bounds })
        .toArray();
      return new Set(found.map((f) => f.ticketId));
    },
    /** Records tickets' outcomes (one unordered insert); a ticket recorded before keeps its first record. */
    async recordMany(operationId: string, outcomes: readonly { ticketId: number; error: string | null }[]): Promise<void> {
      if (outcomes.length === 0) return;
      const at = new Date();
      await insertManyRacing(
        items(),
        outcomes.map((o) => ({ _id: bulkKey(operationId, o.ticketId), operationId, ticketId: o.ticketId, ok: o.error === null, error: o.error === null ? null : cut(o.error), at })),
      );
    },
    /** Outcome of the given tickets of an operation, from their items. */
    async summarize(operationId: string, ticketIds: number[], bounds: ReadBounds = {}): Promise<ChunkSummary> {
      const done = await items()
        .find({ _id: { $in: ticketIds.map((t) => bulkKey(operationId, t)) } }, bounds)
        .toArray();
      const failed = done.filter((d) => !d.ok).sort((a, b) => a.ticketId - b.ticketId);
      return { processed: done.length, succeeded: done.length - failed.length, failed: failed.length, errors: failed.map((f) => ({ ticketId: f.ticketId, error: f.error ?? 'failed' })) };
    },
    /** Records a chunk's progress in the operation (idempotent: a chunk's entry is replaced). */
    async saveChunk(id: string, start: number, summary: ChunkSummary): Promise<void> {
      await ops().updateOne({ _id: id }, { $set: { [`chunks.${start}`]: summary } });
    },
    progress(op: BulkOperationDoc): ChunkSummary {
      const chunks = Object.values(op.chunks ?? {});
      return {
        processed: chunks.reduce((n, c) => n + c.processed, 0),
        succeeded: chunks.reduce((n, c) => n + c.succeeded, 0),
        failed: chunks.reduce((n, c) => n + c.failed, 0),
        errors: chunks.flatMap((c) => c.errors).sort((a, b) => a.ticketId - b.ticketId).slice(0, 100),
      };
    },
    async finish(id: string, state: BulkState): Promise<void> {
      await ops().updateOne({ _id: id, state: 'running' }, { $set: { state, finishedAt: new Date() } });
    },
    /** Back to running, an operation abandoned because its workflow never started (a request repeated under its key starts it). */
    async revive(id: string): Promise<boolean> {
      return (await ops().updateOne({ _id: id, state: 'failed', error: NOT_STARTED }, { $set: { state: 'running', error: null, finishedAt: null } })).modifiedCount === 1;
    },
    /** Marks a still-running operation failed, with the reason (its workflow never started). */
    async abandon(id: string, reason: string, at: Date): Promise<boolean> {
      return (await ops().updateOne({ _id: id, state: 'running' }, { $set: { state: 'failed', error: cut(reason), finishedAt: at } })).modifiedCount === 1;
    },
  };
}

export type BulkRepo = ReturnType<typeof createBulkRepo>;
