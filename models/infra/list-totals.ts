/**
 * Totals of paginated lists without an exact count on every page (docs/decisions.md, "List
 * totals"). An exact count over 100,000 index entries costs more than the page it comes with
 * (measured: 90 % of a ticket list's time), on MongoDB too (a count reads every matching index
 * entry). So a page is read with one row more than asked for, and:
 * - when that reaches the list's end (no extra row), the total is the offset plus the rows found:
 *   exact, and no count is made (every short list, every last page);
 * - otherwise the total is the exact count of the list's filter made at most `maxAgeMs` ago, shared
 *   by every request of this process that asks the same filter (one count at a time per filter),
 *   and never less than what this page proves exists. `hasMore` is always exact (the extra row).
 */
import { LRUCache } from 'lru-cache';

export interface ListTotalsOptions {
  /** How old a shared count may be (the documented staleness of a long list's total). */
  maxAgeMs: number;
  /** Distinct filters remembered (least recently used forgotten first). */
  maxFilters?: number;
  /** Milliseconds clock (tests move it). */
  now?: () => number;
}

export interface CountedPage<T> {
  items: T[];
  total: number;
  hasMore: boolean;
}

export interface ListTotals {
  /**
   * A page of a list: `read(limit)` reads `limit` rows from `offset`; `count()` counts the whole
   * filter; `key` names the filter canonically (collection and filter: canonicalKey).
   */
  page<T>(key: string, at: { offset: number; limit: number }, read: (limit: number) => Promise<T[]>, count: () => Promise<number>): Promise<CountedPage<T>>;
}

/** A stable key for a collection and filter: object keys sorted, dates and nested values kept. */
export function canonicalKey(collection: string, filter: unknown): string {
  const canon = (v: unknown): unknown => {
    if (v instanceof Date) return { $date: v.toISOString() };
    if (Array.isArray(v)) return v.map(canon);
    if (v && typeof v === 'object' && !(v instanceof RegExp)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => [k, canon(x)]));
    }
    return v instanceof RegExp ? { $regex: v.source, $options: v.flags } : v;
  };
  return `${collection} ${JSON.stringify(canon(filter))}`;
}

export function createListTotals(o: ListTotalsOptions): ListTotals {
  const counts =
    o.maxAgeMs > 0
      ? new LRUCache<string, number, () => Promise<number>>({
          max: o.maxFilters ?? 10_000,
          ttl: o.maxAgeMs,
          // A failed count is not remembered (the next request counts again).
          noDeleteOnFetchRejection: false,
          // Age from the clock on every read (lru-cache otherwise reuses a reading for 1 ms).
          ttlResolution: 0,
          ...(o.now ? { perf: { now: o.now } } : {}),
          fetchMethod: async (_key, _stale, { context }) => await context(),
        })
      : undefined;
  const shared = async (key: string, count: () => Promise<number>): Promise<number> => {
    if (!counts) return await count();
    const n = await counts.fetch(key, { context: count });
    return n ?? (await count());
  };
  return {
    async page(key, at, read, count) {
      const rows = await read(at.limit + 1);
      const hasMore = rows.length > at.limit;
      const items = hasMore ? rows.slice(0, at.limit) : rows;
      // The end of the list is on this page: its total is known exactly.
      if (!hasMore && (items.length > 0 || at.offset === 0)) return { items, total: at.offset + items.length, hasMore };
      // What this page proves exists (nothing, for a page past the end).
      const proven = items.length > 0 ? at.offset + items.length + (hasMore ? 1 : 0) : 0;
      const total = Math.max(await shared(key, count), proven);
      return { items, total, hasMore };
    },
  };
}
