/**
 * Article imports (JSON lines staged in MinIO): their state and counts, so clients and operators
 * can follow one (GET /api/admin/imports/{id}) and a retried run resumes where it stopped.
 */
import type { Connection } from 'mongoose';
import { collectionOf, writeRacingOnUniqueKey } from '../infra/mongo';
import { NOT_STARTED } from '../infra/save-then-start';

export const IMPORT_STATES = ['queued', 'running', 'completed', 'failed'] as const;
export type ImportState = (typeof IMPORT_STATES)[number];

/** At most this many invalid lines are kept with their error (all are counted). */
export const INVALID_KEPT = 100;
/** Error texts are kept at most this long (a parser's message may quote the line). */
export const IMPORT_ERROR_MAX = 1_000;
const cut = (text: string) => (text.length > IMPORT_ERROR_MAX ? `${text.slice(0, IMPORT_ERROR_MAX - 1)}…` : text);
export const IMPORT_SOURCES = ['api', 'cli', 'seed'] as const;

export interface ImportCounts {
  /** Lines read so far (a retried run starts after them). */
  linesDone: number;
  inserted: number;
  duplicates: number;
  invalid: number;
  /** Explicit entity mentions that named no known entity. */
  unlinkedMentions: number;
}

export interface ImportDoc extends ImportCounts {
  _id: string;
  state: ImportState;
  source: (typeof IMPORT_SOURCES)[number];
  requestedBy: string;
  objectKey: string;
  bytes: number;
  errors: { line: number; error: string }[];
  error: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** The breaking articles this import inserted (readers are alerted of these). */
  breakingIds?: string[];
  /** The articles this import inserted whose lines asked to be enriched (at most IMPORT_ENRICH_MAX). */
  enrichIds?: string[];
}

/** Enrichments one import may ask for (each is a workflow the import starts); more lines asking are stored unenriched. */
export const IMPORT_ENRICH_MAX = 1_000;

export const ZERO_COUNTS: ImportCounts = { linesDone: 0, inserted: 0, duplicates: 0, invalid: 0, unlinkedMentions: 0 };

export function createImportRepo(conn: Connection) {
  const imports = () => collectionOf<ImportDoc>(conn, 'news_imports');
  return {
    /** E11000 when the id is taken (one derived from a request's key, saved by an earlier attempt). */
    create: async (doc: ImportDoc) => {
      await writeRacingOnUniqueKey(() => imports().insertOne(doc));
    },
    get: (id: string) => imports().findOne({ _id: id }),
    start: async (id: string, at: Date) => {
      await imports().updateOne({ _id: id }, { $set: { state: 'running', startedAt: at } });
    },
    /** Saves counts after a batch (absolute values, so a repeated batch saves the same numbers). */
    progress: async (id: string, counts: ImportCounts, errors: ImportDoc['errors'], breakingIds: readonly string[] = [], enrichIds: readonly string[] = []) => {
      const add: Record<string, { $each: string[] }> = {};
      if (breakingIds.length) add.breakingIds = { $each: [...breakingIds] };
      if (enrichIds.length) add.enrichIds = { $each: [...enrichIds] };
      await imports().updateOne({ _id: id }, { $set: { ...counts, errors: errors.slice(0, INVALID_KEPT).map((e) => ({ line: e.line, error: cut(e.error) })) }, ...(Object.keys(add).length ? { $addToSet: add } : {}) });
    },
    /** Back to queued, an import abandoned because its workflow never started (a request repeated under its key starts it). */
    revive: async (id: string): Promise<boolean> =>
      (await imports().updateOne({ _id: id, state: 'failed', error: NOT_STARTED }, { $set: { state: 'queued', error: null, finishedAt: null } })).modifiedCount === 1,
    /** Marks a still-queued import failed, with the reason (its workflow never started). */
    abandon: async (id: string, reason: string, at: Date) => {
      await imports().updateOne({ _id: id, state: 'queued' }, { $set: { state: 'failed', finishedAt: at, error: cut(reason) } });
    },
    finish: async (id: string, state: 'completed' | 'failed', at: Date, error: string | null = null) => {
      await imports().updateOne({ _id: id }, { $set: { state, finishedAt: at, error: error === null ? null : cut(error) } });
    },
  };
}

export type ImportRepo = ReturnType<typeof createImportRepo>;
