/**
 * Feed items (`news_feed_items`): every item a source's feed listed, once (its id derives from the
 * source and the item's guid, so a feed read twice stores nothing twice). An item carries what
 * the pipeline learnt of it: its page (extracted text, canonical URL, raw page in MinIO), its
 * similarity signature, and what it became: an article of its own (published after enrichment),
 * one more report of an earlier article (syndicated or the same URL), or a failure.
 *
 * Articles are listed only once enriched (docs/decisions.md "Sources and enrichment"), so an item
 * waiting for enrichment is here, not in `articles`.
 */
import { v5 as uuidv5 } from 'uuid';
import type { Connection } from 'mongoose';
import { collectionOf, countMatching, indexesOnce, READ_TIME_LIMIT_MS } from '../../infra/mongo';
import type { ListedRow } from '../editorial.rules';
import type { FeedItem } from './feed.rules';

const ITEM_NAMESPACE = '0b9f4f0e-6a55-4c1e-9a0f-5d3b8f7c2e41';
const ARTICLE_NAMESPACE = 'c8e1f7a2-3b4d-4e5f-8a9b-0c1d2e3f4a5b';
export const feedItemIdFor = (sourceId: string, guid: string) => uuidv5(`${sourceId}\n${guid}`, ITEM_NAMESPACE);
/** The id of the article an item becomes: fixed before it exists, so its enrichment workflow has a business id. */
export const articleIdForItem = (itemId: string) => uuidv5(itemId, ARTICLE_NAMESPACE);

export const ITEM_STATES = ['new', 'extracted', 'published', 'syndicated', 'duplicate', 'failed'] as const;
export type ItemState = (typeof ITEM_STATES)[number];

/** Main text kept per item for enrichment (the raw page in MinIO keeps the rest). */
export const ITEM_TEXT_MAX = 60_000;

export interface ItemPage {
  /** Whether the page was read; false when robots.txt, a refusal or a failure left the feed's summary. */
  fetched: boolean;
  canonicalUrl: string | null;
  subtitle: string | null;
  text: string | null;
  wordCount: number;
  readingTimeMinutes: number;
  paywalled: boolean;
  publishedAt: Date | null;
  /** The raw page in MinIO (kept for NEWS_RAW_PAGE_RETENTION_DAYS), so extraction can run again. */
  rawObjectKey: string | null;
  /** Why the page was not used, when it was not. */
  note: string | null;
}

export interface ReportedBy {
  sourceId: string;
  sourceName: string;
  url: string;
  at: Date;
}

export interface FeedItemDoc {
  _id: string;
  sourceId: string;
  guid: string;
  url: string;
  title: string;
  summary: string | null;
  feedPublishedAt: Date | null;
  seenAt: Date;
  /**
   * The publication time its article will have (the page's, else the feed's, else when it was
   * seen): the editors' list sorts items with articles by it. Absent on items stored before it was
   * kept (they are listed last).
   */
  publishedAt?: Date;
  articleId: string;
  state: ItemState;
  page: ItemPage | null;
  /** normaliseUrl(canonical URL or item URL): the key articles are unique by. */
  urlKey: string | null;
  /** Bands of the text's SimHash (similarity.rules): candidates for syndication share one. */
  simBands: string[];
  /** The stored signature the decision compares (similarity.rules TextSignature). */
  signature: unknown;
  /** For a syndicated or duplicate item: the article it reported again. */
  sameAs: string | null;
  /** Other sources that reported this item's story (copied to its article when published). */
  alsoReportedBy: ReportedBy[];
  error: string | null;
  updatedAt: Date;
}

/** How far back a syndicated copy is looked for: wire stories are republished within days. */
export const SYNDICATION_WINDOW_MS = 3 * 24 * 3_600_000;
/** At most this many other reports are kept per story. */
export const REPORTED_BY_MAX = 50;

/** What the editors' list reads of an item: not its text, bands or signature. */
const LISTED = { 'page.text': 0, simBands: 0, signature: 0 } as const;

export function createFeedItemRepo(conn: Connection) {
  const items = () => collectionOf<FeedItemDoc>(conn, 'news_feed_items');
  const ensureIndexes = () =>
    (indexesOnce(conn, 'news_feed_items', () => items().createIndexes([
      { key: { sourceId: 1, seenAt: -1 }, name: 'source_seen' },
      { key: { simBands: 1, seenAt: -1 }, name: 'bands_seen' },
      { key: { urlKey: 1 }, name: 'url_key' },
      { key: { articleId: 1 }, name: 'article' },
      // The editors' list (editorial.rules): items waiting for or failed at enrichment, newest first,
      // across sources and within one.
      { key: { state: 1, publishedAt: -1, articleId: -1 }, name: 'state_newest' },
      { key: { sourceId: 1, state: 1, publishedAt: -1, articleId: -1 }, name: 'source_state_newest' },
    ])));
  return {
    ensureIndexes,
    /**
     * Stores the items not seen before (ids derive from source and guid); returns the new ones' ids
     * in feed order. A repeated call stores nothing twice.
     */
    async addNew(sourceId: string, feedItems: readonly FeedItem[], now: Date): Promise<string[]> {
      await ensureIndexes();
      const docs: FeedItemDoc[] = feedItems.map((i) => {
        const id = feedItemIdFor(sourceId, i.guid);
        return {
          _id: id,
          sourceId,
          guid: i.guid,
          url: i.url,
          title: i.title,
          summary: i.summary,
          feedPublishedAt: i.publishedAt,
          seenAt: now,
          publishedAt: i.publishedAt ?? now,
          articleId: articleIdForItem(id),
          state: 'new',
          page: null,
          urlKey: null,
          simBands: [],
          signature: null,
          sameAs: null,
          alsoReportedBy: [],
          error: null,
          updatedAt: now,
        };
      });
      if (!docs.length) return [];
      const known = new Set((await items().find({ _id: { $in: docs.map((d) => d._id) } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
      const fresh = docs.filter((d) => !known.has(d._id));
      if (!fresh.length) return [];
      // Another poll of the same source cannot run at once (one workflow per source), but a
      // retried activity may have stored some: duplicates are skipped, not errors.
      await items()
        .insertMany(fresh, { ordered: false })
        .catch((err: { code?: number; writeErrors?: { code: number }[] }) => {
          const errors = err.writeErrors ?? [err];
          if (!errors.every((e) => e.code === 11000)) throw err;
        });
      return fresh.map((d) => d._id);
    },
    get: (id: string) => items().findOne({ _id: id }),
    byArticle: (articleId: string) => items().findOne({ articleId }),
    async set(id: string, fields: Partial<FeedItemDoc>, now: Date): Promise<void> {
      await items().updateOne({ _id: id }, { $set: { ...fields, updatedAt: now } });
    },
    /** Another item (not `exceptId`) with this URL key that is or will be an article. */
    sameUrl: (urlKey: string, exceptId: string) => items().findOne({ urlKey, _id: { $ne: exceptId }, state: { $in: ['extracted', 'published'] } }),
    /** Items sharing a band with these, seen since `since`, that are or will be articles. */
    candidates: (bands: readonly string[], exceptId: string, since: Date) =>
      items()
        .find({ simBands: { $in: [...bands] }, seenAt: { $gte: since }, _id: { $ne: exceptId }, state: { $in: ['extracted', 'published'] } }, { limit: 50, singleBatch: true })
        .toArray(),
    /** Records another source's report of an item's story. */
    async addReport(id: string, report: ReportedBy): Promise<void> {
      await items().updateOne({ _id: id, 'alsoReportedBy.url': { $ne: report.url }, [`alsoReportedBy.${REPORTED_BY_MAX - 1}`]: { $exists: false } }, { $push: { alsoReportedBy: report } });
    },
    /** The items of these articles (an item is one article's), without their text and signature. */
    byArticleIds: async (articleIds: readonly string[]): Promise<FeedItemDoc[]> =>
      articleIds.length === 0 ? [] : await items().find({ articleId: { $in: [...articleIds] } }, { projection: LISTED }).toArray(),
    /** The first `limit` items of a query, newest first: their article ids and publication times (the editors' list). */
    async newestRows(query: Record<string, unknown>, limit: number): Promise<ListedRow[]> {
      await ensureIndexes();
      const rows = await items().find(query, { projection: { articleId: 1, publishedAt: 1 }, sort: { publishedAt: -1, articleId: -1 }, limit, maxTimeMS: READ_TIME_LIMIT_MS }).toArray();
      return rows.map((r) => ({ id: r.articleId, publishedAt: r.publishedAt ?? null }));
    },
    countWhere: (query: Record<string, unknown>) => countMatching(conn, 'news_feed_items', query),
    /** The newest items of a source (admin view of a source's pipeline). */
    recent: (sourceId: string, limit: number) => items().find({ sourceId }, { sort: { seenAt: -1 }, limit, singleBatch: true, projection: { 'page.text': 0, signature: 0 } }).toArray(),
  };
}
export type FeedItemRepo = ReturnType<typeof createFeedItemRepo>;
