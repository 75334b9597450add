/**
 * Article lists, search and the feed, answered from the article index (never by querying or
 * sorting the articles collection): pick the smallest posting list the filters confine results
 * to, walk it in the requested order (or, for a small list kept newest-first only, sort its
 * compact entries), filter entries, and fetch only the page's articles by `_id`.
 */
import { listName, locate, sortKey, type Entry, type Head, type Ordering } from './article-index.rules';
import type { ArticleIndex } from './article-index.repo';
import { constraintLists, entryFilter, feedScore, matchQuality, pubBounds, type ArticleFilters, type FeedMatch, type FeedReason } from './article-query.rules';
import type { Preferences } from './preferences.rules';
import { terms } from './text.rules';

export interface Page {
  limit: number;
  offset: number;
}

export interface EntryPage {
  entries: Entry[];
  total: number;
}

/** A list kept newest-first only is sorted another way in memory when it is at most this long. */
export const SORT_IN_MEMORY_MAX = 20_000;
/** Search: at most this many distinct terms of a query are used (the rarest ones). */
export const MAX_QUERY_TERMS = 8;
/** Feed: candidates are the newest entries of each followed list, this many per list. */
export const FEED_PER_LIST = 200;

const byKey = (ordering: Ordering) => (a: Entry, b: Entry) => {
  const ka = sortKey(a, ordering);
  const kb = sortKey(b, ordering);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

export function createArticleQueries(index: ArticleIndex) {
  /** Entries of a list whose chunks may hold publications within the bounds, in list order. */
  async function entriesOf(head: Head, bounds = { min: -Infinity, max: Infinity }): Promise<Entry[]> {
    const refs = head.chunks.filter((c) => c.maxPub >= bounds.min && c.minPub <= bounds.max);
    const loaded = await Promise.all(refs.map((r) => index.loadChunk(r)));
    return loaded.flat();
  }

  async function idsOf(list: string): Promise<Set<string> | null> {
    const head = await index.readHead(list, 'publishedAt');
    return head ? new Set((await entriesOf(head)).map((e) => e.id)) : null;
  }

  async function list(filters: ArticleFilters, ordering: Ordering, page: Page): Promise<EntryPage> {
    return await index.consistent(async () => {
      const lists = constraintLists(filters);
      if (lists.length === 0) lists.push(listName.all());
      const heads = await Promise.all(lists.map((l) => index.readHead(l, 'publishedAt')));
      if (heads.some((h) => h === null)) return { entries: [], total: 0 };
      // The smallest list drives; the others are memberships (sector, topic and breaking are
      // answered by the entries themselves, entity and ticker by their lists' ids).
      const byCount = lists.map((l, i) => ({ list: l, head: heads[i]! })).sort((a, b) => a.head.count - b.head.count);
      const driver = byCount[0]!;
      const memberships = await Promise.all(
        byCount.slice(1).filter((x) => x.list.startsWith('entity:') || x.list.startsWith('ticker:')).map((x) => idsOf(x.list)),
      );
      const attr = entryFilter(filters);
      const test = memberships.length === 0 ? attr : (e: Entry) => (attr ? attr(e) : true) && memberships.every((m) => m!.has(e.id));

      const ordered = driver.list === 'all' || /^(sector|topic):/.test(driver.list) || ordering === 'publishedAt';
      if (ordered) {
        const head = ordering === 'publishedAt' ? driver.head : await index.readHead(driver.list, ordering);
        if (!head) return { entries: [], total: 0 };
        if (!test) {
          const { chunks, skip } = locate(head, page.offset, page.limit);
          const loaded = (await Promise.all(chunks.map((i) => index.loadChunk(head.chunks[i]!)))).flat();
          return { entries: loaded.slice(skip, skip + page.limit), total: head.count };
        }
        const matched = (await entriesOf(head, pubBounds(filters))).filter(test);
        return { entries: matched.slice(page.offset, page.offset + page.limit), total: matched.length };
      }
      if (driver.head.count > SORT_IN_MEMORY_MAX) {
        throw new Error(`list ${driver.list} has ${driver.head.count} entries and is kept newest first only`);
      }
      const matched = (await entriesOf(driver.head, pubBounds(filters))).filter(test ?? (() => true)).sort(byKey(ordering));
      return { entries: matched.slice(page.offset, page.offset + page.limit), total: matched.length };
    });
  }

  /**
   * Articles holding every term, with the fields each term was found in. Starts from the rarest
   * term's list and, for the others, loads only the chunks whose key range can hold a candidate.
   * `newestOnly` limits the rarest list to its newest chunk (the feed's keywords).
   */
  async function matchTerms(stems: readonly string[], bounds: { min: number; max: number }, newestOnly = false): Promise<Map<string, { entry: Entry; masks: number[] }>> {
    const heads = await Promise.all(stems.map((t) => index.readHead(listName.term(t), 'publishedAt')));
    if (heads.length === 0 || heads.some((h) => h === null)) return new Map();
    const sorted = (heads as Head[]).sort((a, b) => a.count - b.count);
    const rarest = sorted[0]!;
    const first = newestOnly ? await Promise.all(rarest.chunks.slice(0, 1).map((c) => index.loadChunk(c))).then((x) => x.flat()) : await entriesOf(rarest, bounds);
    const candidates = new Map(first.filter((e) => e.pub >= bounds.min && e.pub <= bounds.max).map((e) => [e.id, { entry: e, masks: [e.mask], key: sortKey(e, 'publishedAt') }]));
    for (const head of sorted.slice(1)) {
      if (candidates.size === 0) break;
      const keys = [...candidates.values()].map((c) => c.key).sort();
      const hasKeyIn = (lo: string, hi: string) => {
        let a = 0;
        let b = keys.length;
        while (a < b) {
          const m = (a + b) >> 1;
          if (keys[m]! < lo) a = m + 1;
          else b = m;
        }
        return a < keys.length && keys[a]! <= hi;
      };
      const refs = head.chunks.filter((c) => hasKeyIn(c.first, c.last));
      const seen = new Map<string, number>();
      for (const chunk of await Promise.all(refs.map((r) => index.loadChunk(r)))) for (const e of chunk) if (candidates.has(e.id)) seen.set(e.id, e.mask);
      for (const [id, c] of candidates) {
        const mask = seen.get(id);
        if (mask === undefined) candidates.delete(id);
        else c.masks.push(mask);
      }
    }
    return new Map([...candidates].map(([id, c]) => [id, { entry: c.entry, masks: c.masks }]));
  }

  async function search(q: string, filters: ArticleFilters, page: Page): Promise<EntryPage & { terms: string[] }> {
    const stems = terms(q).slice(0, MAX_QUERY_TERMS);
    if (stems.length === 0) return { entries: [], total: 0, terms: [] };
    return await index.consistent(async () => {
      const found = await matchTerms(stems, pubBounds(filters));
      const memberLists = constraintLists(filters).filter((l) => l.startsWith('entity:') || l.startsWith('ticker:'));
      const memberships = await Promise.all(memberLists.map(idsOf));
      const attr = entryFilter(filters);
      const ranked = [...found.values()]
        .filter(({ entry }) => (attr ? attr(entry) : true) && memberships.every((m) => m?.has(entry.id)))
        .map(({ entry, masks }) => ({ entry, quality: matchQuality(masks) }))
        .sort((a, b) => b.quality - a.quality || b.entry.pub - a.entry.pub || (a.entry.id < b.entry.id ? -1 : 1));
      return { entries: ranked.slice(page.offset, page.offset + page.limit).map((r) => r.entry), total: ranked.length, terms: stems };
    });
  }

  /** The reader's feed: candidates from every followed list, scored (article-query.rules feedScore). */
  async function feed(prefs: Preferences, page: Page, now: Date): Promise<{ items: { entry: Entry; score: number; reasons: FeedReason[] }[]; total: number }> {
    return await index.consistent(async () => {
      const candidates = new Map<string, { entry: Entry; match: FeedMatch }>();
      const add = (e: Entry, how?: (m: FeedMatch) => void) => {
        const c = candidates.get(e.id) ?? candidates.set(e.id, { entry: e, match: { keywords: [], companies: [], tickers: [] } }).get(e.id)!;
        how?.(c.match);
      };
      const newest = async (list: string) => {
        const head = await index.readHead(list, 'publishedAt');
        if (!head?.chunks.length) return [];
        return (await index.loadChunk(head.chunks[0]!)).slice(0, FEED_PER_LIST);
      };
      const follows = prefs.sectors.length + prefs.topics.length + prefs.watchlistCompanies.length + prefs.watchlistTickers.length + prefs.keywords.length;
      await Promise.all([
        ...prefs.sectors.map(async (s) => (await newest(listName.sector(s))).forEach((e) => add(e))),
        ...prefs.topics.map(async (t) => (await newest(listName.topic(t))).forEach((e) => add(e))),
        ...prefs.watchlistCompanies.map(async (id) => (await newest(listName.entity(id))).forEach((e) => add(e, (m) => m.companies.push(id)))),
        ...prefs.watchlistTickers.map(async (t) => (await newest(listName.ticker(t))).forEach((e) => add(e, (m) => m.tickers.push(t)))),
        ...prefs.keywords.map(async (k) => {
          const found = await matchTerms(terms(k).slice(0, MAX_QUERY_TERMS), { min: -Infinity, max: Infinity }, true);
          for (const { entry } of found.values()) add(entry, (m) => m.keywords.push(k));
        }),
        // Nothing followed yet: the newest articles, scored by quality and recency alone.
        ...(follows === 0 ? [newest(listName.all()).then((es) => es.forEach((e) => add(e)))] : []),
      ]);
      const scored = [...candidates.values()]
        .map(({ entry, match }) => ({ entry, ...feedScore(entry, match, prefs, now) }))
        .sort((a, b) => b.score - a.score || b.entry.pub - a.entry.pub || (a.entry.id < b.entry.id ? -1 : 1));
      return { items: scored.slice(page.offset, page.offset + page.limit), total: scored.length };
    });
  }

  return { list, search, feed };
}

export type ArticleQueries = ReturnType<typeof createArticleQueries>;
