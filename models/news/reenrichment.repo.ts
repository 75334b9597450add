/**
 * Re-enrichment operations (`news_reenrichments`): the articles an operation re-enriches (resolved
 * from its filter when it was created), its state and its counts, so progress is one read.
 *
 * Counting each article once: every activity call keeps its position on the record (the next
 * article it will enrich, under `positions.c<start>`). An article's outcome is counted by one
 * update that also moves the position on, and only if the position is still that article's. A
 * retried call resumes from the position, so no article is counted twice, even when a worker dies
 * between enriching an article and counting it (that article is then enriched again, once more).
 */
import type { Connection } from 'mongoose';
import { collectionOf, writeRacingOnUniqueKey } from '../infra/mongo';
import { NOT_STARTED } from '../infra/save-then-start';
import { positionKey, type ReenrichFilter, type ReenrichState } from './reenrich.rules';

/** Error texts are kept at most this long (an exception's message may quote anything). */
export const REENRICH_ERROR_MAX = 1_000;
/** Failed articles listed with their error (all are counted). */
export const REENRICH_ERRORS_KEPT = 100;
const cut = (text: string) => (text.length > REENRICH_ERROR_MAX ? `${text.slice(0, REENRICH_ERROR_MAX - 1)}…` : text);

/** What happened to one article: enriched again, failed (the model's answers or a refusal), or deleted meanwhile. */
export type ArticleOutcome = 'done' | 'failed' | 'gone';

export interface ReenrichmentDoc {
  _id: string;
  filter: ReenrichFilter;
  /** The prompt version current when the operation was created: the one it brings articles to. */
  promptVersion: string;
  /** The matching articles, newest first, resolved once when the operation was created. */
  articleIds: string[];
  total: number;
  done: number;
  failed: number;
  gone: number;
  /** Articles left that wait for the day's token budget to renew (0 unless the operation waits). */
  waiting: number;
  /** When a waiting operation goes on. */
  resumeAt: Date | null;
  /** The first REENRICH_ERRORS_KEPT failed articles and why. */
  errors: { articleId: string; error: string }[];
  /** Each activity call's next position, by `c<start>`. */
  positions: Record<string, number>;
  state: ReenrichState;
  createdBy: string;
  createdAt: Date;
  finishedAt: Date | null;
  /** Why a failed operation failed as a whole (its workflow could not start, or a chunk failed for good). */
  error: string | null;
}

export function createReenrichmentRepo(conn: Connection) {
  const ops = () => collectionOf<ReenrichmentDoc>(conn, 'news_reenrichments');
  return {
    /** E11000 when the id is taken (one derived from a request's key, saved by an earlier attempt). */
    async create(doc: ReenrichmentDoc): Promise<void> {
      await writeRacingOnUniqueKey(() => ops().insertOne(doc));
    },
    /** Back to running, an operation abandoned because its workflow never started (a request repeated under its key starts it). */
    async revive(id: string): Promise<boolean> {
      return (await ops().updateOne({ _id: id, state: 'failed', error: NOT_STARTED }, { $set: { state: 'running', error: null, finishedAt: null } })).modifiedCount === 1;
    },
    /** The operation without its list of article ids (what progress shows). */
    find: (id: string) => ops().findOne({ _id: id }, { projection: { articleIds: 0, positions: 0 } }) as Promise<Omit<ReenrichmentDoc, 'articleIds' | 'positions'> | null>,
    /** The whole operation (the activity reads its articles). */
    get: (id: string) => ops().findOne({ _id: id }),

    /** Where the call starting at `start` stands: its saved position, or `start` (saved) on its first attempt. */
    async positionOf(doc: ReenrichmentDoc, start: number): Promise<number> {
      const key = `positions.${positionKey(start)}`;
      const saved = doc.positions?.[positionKey(start)];
      if (saved !== undefined) return saved;
      await ops().updateOne({ _id: doc._id, [key]: { $exists: false } }, { $set: { [key]: start } });
      return (await ops().findOne({ _id: doc._id }, { projection: { positions: 1 } }))?.positions?.[positionKey(start)] ?? start;
    },

    /**
     * Counts the outcome of the article at `at` for the call starting at `start` and moves its
     * position on; does nothing when the position has moved already (the article was counted).
     */
    async record(id: string, start: number, at: number, outcome: ArticleOutcome, failure?: { articleId: string; error: string }): Promise<boolean> {
      const key = `positions.${positionKey(start)}`;
      const counted = (await ops().updateOne({ _id: id, [key]: at }, { $set: { [key]: at + 1 }, $inc: { [outcome]: 1 } })).modifiedCount === 1;
      if (counted && failure) {
        await ops().updateOne({ _id: id, [`errors.${REENRICH_ERRORS_KEPT - 1}`]: { $exists: false } }, { $push: { errors: { articleId: failure.articleId, error: cut(failure.error) } } });
      }
      return counted;
    },

    /** Marks a running operation waiting for the budget until `resumeAt`, with how many articles are left. */
    async wait(id: string, resumeAt: Date): Promise<void> {
      const doc = await ops().findOne({ _id: id }, { projection: { total: 1, done: 1, failed: 1, gone: 1 } });
      if (!doc) return;
      await ops().updateOne({ _id: id, state: 'running' }, { $set: { waiting: Math.max(0, doc.total - doc.done - doc.failed - doc.gone), resumeAt } });
    },
    /** The operation goes on after a wait. */
    async resume(id: string): Promise<void> {
      await ops().updateOne({ _id: id, waiting: { $ne: 0 } }, { $set: { waiting: 0, resumeAt: null } });
    },

    /** Ends a running operation (an ended one stays as it is). */
    async finish(id: string, state: Exclude<ReenrichState, 'running'>, at: Date, error: string | null = null): Promise<void> {
      await ops().updateOne({ _id: id, state: 'running' }, { $set: { state, finishedAt: at, waiting: 0, resumeAt: null, error: error === null ? null : cut(error) } });
    },
    /** Marks a still-running operation failed, with the reason (its workflow never started). */
    async abandon(id: string, reason: string, at: Date): Promise<boolean> {
      return (await ops().updateOne({ _id: id, state: 'running' }, { $set: { state: 'failed', error: cut(reason), finishedAt: at } })).modifiedCount === 1;
    },
  };
}

export type ReenrichmentRepo = ReturnType<typeof createReenrichmentRepo>;
