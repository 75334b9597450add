/**
 * The editors' view of articles by pipeline state (issue 38, GET /api/admin/articles). Pure: the
 * states, the query each state is on each collection, and the merge of their newest-first rows.
 *
 * An article's pipeline state is recorded in three places, none of them new:
 * - a feed item not yet published (`news_feed_items`, "hidden until enriched"): `extracted` waits
 *   for its enrichment (pending), with WAITING_NOTE while the day's token budget is spent
 *   (waiting-budget); `failed` when its enrichment failed, with the reason in `error`;
 * - a published article (`articles`): its `enrichment.state` (enriched; waiting-budget or failed
 *   when enriched again, its earlier enrichment still shown); none for an imported article the
 *   model never enriched (imported);
 * - a hidden article (`news_hidden_articles`, hidden-article.repo.ts).
 *
 * The list is all three merged, newest first (publication time, then id, as every article list).
 * Each collection answers its part in index order (article.model.ts, feed-item.repo.ts,
 * hidden-article.repo.ts), so a page reads at most offset + limit + 1 index entries of each:
 * that is why the offset is bounded (EDITORIAL_OFFSET_MAX).
 */

export const EDITORIAL_STATES = ['pending', 'waiting-budget', 'failed', 'enriched', 'imported', 'hidden'] as const;
export type EditorialState = (typeof EDITORIAL_STATES)[number];

/** A page of the editors' list starts at most this far in (each page reads offset + limit rows of each collection). */
export const EDITORIAL_OFFSET_MAX = 10_000;

/** The note an item waiting for the day's token budget carries (operations/news/enrich-article.ts markWaiting). */
export const WAITING_NOTE = 'waiting for the daily enrichment budget';

export interface EditorialFilter {
  state?: EditorialState | undefined;
  sourceId?: string | undefined;
}

type Query = Record<string, unknown>;

/** The queries a filter is on each collection; null (or no item query): that collection has none of it. */
export interface EditorialQueries {
  articles: Query | null;
  hidden: Query | null;
  /** Each item state apart, so that each is one equality-prefixed index range. */
  items: Query[];
}

/** The article `enrichment.state` of each state a published article can be in. */
const ARTICLE_STATE: Partial<Record<EditorialState, string | null>> = {
  pending: 'pending',
  'waiting-budget': 'waiting-budget',
  failed: 'failed',
  enriched: 'enriched',
  imported: null,
};

export function editorialQueries(f: EditorialFilter): EditorialQueries {
  const source: Query = f.sourceId === undefined ? {} : { sourceId: f.sourceId };
  const item = (q: Query) => ({ ...source, ...q });
  switch (f.state) {
    case undefined:
      return { articles: { ...source }, hidden: { ...source }, items: [item({ state: 'extracted' }), item({ state: 'failed' })] };
    case 'hidden':
      return { articles: null, hidden: { ...source }, items: [] };
    default: {
      const articles = { ...source, 'enrichment.state': ARTICLE_STATE[f.state] };
      const items =
        f.state === 'pending'
          ? [item({ state: 'extracted', error: { $ne: WAITING_NOTE } })]
          : f.state === 'waiting-budget'
            ? [item({ state: 'extracted', error: WAITING_NOTE })]
            : f.state === 'failed'
              ? [item({ state: 'failed' })]
              : [];
      return { articles, hidden: null, items };
    }
  }
}

/** The state of a published article. */
export function articleState(a: { enrichment?: { state: string } | undefined }): EditorialState {
  switch (a.enrichment?.state) {
    case undefined:
      return 'imported';
    case 'pending':
    case 'waiting-budget':
    case 'failed':
    case 'enriched':
      return a.enrichment.state;
    default:
      return 'imported';
  }
}

/** The state of an item not yet published (extracted or failed). */
export const itemState = (i: { state: string; error: string | null }): EditorialState => (i.state === 'failed' ? 'failed' : i.error === WAITING_NOTE ? 'waiting-budget' : 'pending');

/** One row of a collection's part of the list: the article's id and publication time. */
export interface ListedRow {
  id: string;
  publishedAt: Date | null;
}

/** Where a row was found: a published article first, then a hidden one, then an item. */
export type RowSource = 'article' | 'hidden' | 'item';
const PRECEDENCE: Record<RowSource, number> = { article: 0, hidden: 1, item: 2 };

export interface MergedRow extends ListedRow {
  source: RowSource;
}

const time = (r: ListedRow) => r.publishedAt?.getTime() ?? 0;

/**
 * The rows at [offset, offset + limit) of the parts merged newest first (then id, highest first:
 * the order of the indexes), and whether rows follow. Each part must hold its first offset + limit
 * + 1 rows in that order. An id found twice (a crash between the two writes of hiding, unhiding or
 * publishing) is listed once, where readers find it: published before hidden before an item.
 * `merged`: the rows merged in all (the list's length when every part was read to its end).
 */
export function mergeNewest(parts: { source: RowSource; rows: readonly ListedRow[] }[], offset: number, limit: number): { rows: MergedRow[]; more: boolean; merged: number } {
  const best = new Map<string, MergedRow>();
  for (const { source, rows } of parts) {
    for (const r of rows) {
      const seen = best.get(r.id);
      if (!seen || PRECEDENCE[source] < PRECEDENCE[seen.source]) best.set(r.id, { ...r, source });
    }
  }
  const merged = [...best.values()].sort((a, b) => time(b) - time(a) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return { rows: merged.slice(offset, offset + limit), more: merged.length > offset + limit, merged: merged.length };
}
