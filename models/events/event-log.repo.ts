/**
 * The news event log (`news_events`, issue 40): one document per published article, numbered by a
 * sequence (models/infra/counters.ts, `$inc`), kept 25 hours (a TTL index on `at`). Every API
 * process polls it (operations/events/stream.ts) so that an event appended once reaches the
 * streams of all of them, and a stream resumes from it by Last-Event-ID.
 *
 * Appending is idempotent without a transaction (FerretDB has none): the event is looked up by its
 * key (`article:<id>`, a unique index); if absent a seq is reserved and the event inserted; an
 * insert refused by the unique index lost a race with another writer of the same article, and its
 * seq is wasted (a hole the readers' watermark passes after GAP_WAIT_MS).
 */
import type { Connection } from 'mongoose';
import type { ArticleDoc } from '../news/article.rules';
import { reserveIds } from '../infra/counters';
import { buildIndexesRacing, collectionOf, indexesOnce, insertManyRacing, READ_TIME_LIMIT_MS } from '../infra/mongo';
import { EVENT_TTL_SECONDS, GAP_WAIT_MS, eventKeyOf, eventOf, type NewsEvent } from './event.rules';

export const NEWS_EVENTS_COLLECTION = 'news_events';
/** The counters' sequence of the log. */
export const NEWS_EVENTS_SEQUENCE = 'news_events';

/** The most events one read returns. */
export const READ_LIMIT_MAX = 1_000;

export interface EventLogOptions {
  /** The clock (tests set it). */
  now?: () => Date;
  /** A writer whose insert starts more than half this after reserving reserves again (event.rules GAP_WAIT_MS). */
  gapWaitMs?: number;
}

export function createEventLogRepo(conn: Connection, options: EventLogOptions = {}) {
  const events = () => collectionOf<NewsEvent>(conn, NEWS_EVENTS_COLLECTION);
  const clock = options.now ?? (() => new Date());
  const gapWaitMs = options.gapWaitMs ?? GAP_WAIT_MS;
  const ensureIndexes = () =>
    indexesOnce(conn, NEWS_EVENTS_COLLECTION, () =>
      buildIndexesRacing(() =>
        events().createIndexes([
          { key: { key: 1 }, name: 'key', unique: true },
          { key: { at: 1 }, name: 'expires', expireAfterSeconds: EVENT_TTL_SECONDS },
          // The webhook relay's read: events whose fan-out has not finished.
          { key: { dispatchedAt: 1, _id: 1 }, name: 'undispatched' },
        ]),
      ),
    );

  /**
   * Reserves `n` seqs; if the clock says the reservation took long (a stalled writer), reserves
   * again so that what it inserts is not below a watermark the readers already passed.
   */
  async function reserve(n: number): Promise<{ first: number; at: Date }> {
    for (let attempt = 1; ; attempt += 1) {
      const before = Date.now();
      const first = await reserveIds(conn, NEWS_EVENTS_SEQUENCE, n);
      if (Date.now() - before <= gapWaitMs / 2 || attempt >= 3) return { first, at: clock() };
    }
  }

  /**
   * Appends the events of articles just published, once each: those already in the log are left
   * as they are. Returns each article's seq (appended now or before), in the order given; an
   * article whose insert lost a race is looked up again.
   */
  async function appendArticles(articles: readonly ArticleDoc[]): Promise<{ articleId: string; seq: number; appended: boolean }[]> {
    if (articles.length === 0) return [];
    await ensureIndexes();
    const unique = [...new Map(articles.map((a) => [a._id, a])).values()];
    const keys = unique.map((a) => eventKeyOf(a._id));
    const found = new Map((await events().find({ key: { $in: keys } }, { projection: { _id: 1, key: 1 } }).toArray()).map((e) => [e.key, e._id]));
    const missing = unique.filter((a) => !found.has(eventKeyOf(a._id)));
    const appended = new Set<string>();
    if (missing.length > 0) {
      const { first, at } = await reserve(missing.length);
      const docs: NewsEvent[] = missing.map((a, i) => ({ _id: first + i, ...eventOf(a, at) }));
      const refused = new Set(await insertManyRacing(events(), docs));
      docs.forEach((d, i) => {
        if (refused.has(i)) return;
        found.set(d.key, d._id);
        appended.add(d.key);
      });
      if (refused.size > 0) {
        const lost = docs.filter((_, i) => refused.has(i)).map((d) => d.key);
        for (const e of await events().find({ key: { $in: lost } }, { projection: { _id: 1, key: 1 } }).toArray()) found.set(e.key, e._id);
      }
    }
    return unique.flatMap((a) => {
      const key = eventKeyOf(a._id);
      const seq = found.get(key);
      return seq === undefined ? [] : [{ articleId: a._id, seq, appended: appended.has(key) }];
    });
  }

  return {
    ensureIndexes,
    appendArticles,

    /** The events after `seq`, oldest first, at most `limit`; with `since`, only those appended after it. */
    readAfter: async (seq: number, limit: number, since?: Date): Promise<NewsEvent[]> =>
      events()
        .find({ _id: { $gt: seq }, ...(since ? { at: { $gt: since } } : {}) })
        .sort({ _id: 1 })
        .limit(Math.min(Math.max(1, limit), READ_LIMIT_MAX))
        .maxTimeMS(READ_TIME_LIMIT_MS)
        .toArray(),

    /** The first event of the log (appended after `since` if given), or null when there is none. */
    oldest: async (since?: Date): Promise<Pick<NewsEvent, '_id' | 'at'> | null> =>
      events().findOne(since ? { at: { $gt: since } } : {}, { sort: { _id: 1 }, projection: { _id: 1, at: 1 } }),

    /** The last seq of the log, 0 when it is empty. */
    newest: async (): Promise<number> => (await events().findOne({}, { sort: { _id: -1 }, projection: { _id: 1 } }))?._id ?? 0,

    /** The last event at or below `seq` (when was it appended), or null. */
    atOrBefore: async (seq: number): Promise<Pick<NewsEvent, '_id' | 'at'> | null> => events().findOne({ _id: { $lte: seq } }, { sort: { _id: -1 }, projection: { _id: 1, at: 1 } }),

    /** An event by its key (`article:<id>`), or null (never appended, or expired). */
    byKey: async (key: string): Promise<NewsEvent | null> => events().findOne({ key }),

    /** The event's webhook fan-out has finished: every endpoint it was for has its message. */
    markDispatched: async (key: string, at: Date): Promise<void> => {
      await events().updateOne({ key, dispatchedAt: null }, { $set: { dispatchedAt: at } });
    },

    /** Keys of events appended before `before` whose webhook fan-out has not finished, oldest first (the relay's read). */
    undispatched: async (before: Date, limit: number): Promise<string[]> => {
      await ensureIndexes();
      const found = await events()
        .find({ dispatchedAt: null, at: { $lt: before } }, { projection: { key: 1 } })
        .sort({ _id: 1 })
        .limit(Math.min(Math.max(1, limit), READ_LIMIT_MAX))
        .maxTimeMS(READ_TIME_LIMIT_MS)
        .toArray();
      return found.map((e) => e.key);
    },

    /** The event of an article, if it was appended. */
    byArticle: async (articleId: string): Promise<NewsEvent | null> => events().findOne({ key: eventKeyOf(articleId) }),
  };
}

export type EventLogRepo = ReturnType<typeof createEventLogRepo>;
