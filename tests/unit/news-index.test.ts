import {
  CHUNK_MAX,
  CHUNK_TARGET,
  decodeEntries,
  emptyHead,
  encodeEntries,
  locate,
  mergeEntries,
  sortKey,
  touchedChunks,
  type Entry,
  type Head,
  type Ordering,
} from '../../models/news/article-index.rules';
import { constraintLists, entryFilter, feedScore, matchQuality } from '../../models/news/article-query.rules';
import { defaultPreferences, Preferences } from '../../models/news/preferences.rules';

const HOUR = 3600;
const NOW = Date.parse('2026-11-21T12:00:00Z') / 1000;
let seq = 0;
const entry = (over: Partial<Entry> = {}): Entry => ({
  id: `00000000-0000-4000-8000-${String(seq++).padStart(12, '0')}`,
  pub: NOW,
  score: 500,
  urg: 2,
  sector: 'FIN',
  topic: 'DIV',
  lang: 'pt',
  ctype: 'NEWS',
  breaking: false,
  exclusive: false,
  mask: 0,
  ...over,
});
const order = (entries: Entry[], ordering: Ordering) => [...entries].sort((a, b) => (sortKey(a, ordering) < sortKey(b, ordering) ? -1 : 1));

/** Applies a merge to an in-memory store of chunks (what the repository does with documents). */
function apply(store: Map<string, Entry[]>, head: Head, entries: Entry[]) {
  const loaded = new Map([...touchedChunks(head, entries)].map((i) => [i, store.get(head.chunks[i]!.id)!]));
  const result = mergeEntries(head, loaded, entries);
  for (const c of result.write) store.set(c.ref.id, c.entries);
  for (const id of result.remove) store.delete(id);
  return result;
}
const all = (store: Map<string, Entry[]>, head: Head) => head.chunks.flatMap((c) => store.get(c.id)!);

describe('index entries', () => {
  it('survive packing into a chunk string', () => {
    const es = [entry({ breaking: true, exclusive: true, mask: 5, topic: 'M&A', urg: 4 }), entry({ lang: 'en', ctype: 'ANALYSIS' })];
    expect(decodeEntries(encodeEntries(es))).toEqual(es);
    expect(decodeEntries('')).toEqual([]);
  });

  it('sort newest first, by score, by urgency then newest, and by relevance', () => {
    const old95 = entry({ pub: NOW - 48 * HOUR, score: 950, urg: 1 });
    const new80 = entry({ pub: NOW, score: 800, urg: 3 });
    const recent95 = entry({ pub: NOW - 2 * HOUR, score: 950, urg: 3 });
    const critical = entry({ pub: NOW - 72 * HOUR, score: 100, urg: 4 });
    const es = [old95, new80, recent95, critical];
    expect(order(es, 'publishedAt')).toEqual([new80, recent95, old95, critical]);
    expect(order(es, 'baseScore')).toEqual([recent95, old95, new80, critical]);
    expect(order(es, 'urgencyLevel')).toEqual([critical, new80, recent95, old95]);
    // A high-score recent article beats a higher-score old one; two hours do not outweigh 15 points.
    expect(order(es, 'relevance')).toEqual([recent95, new80, old95, critical]);
  });
});

describe('merging into chunks', () => {
  it('cuts a new list into chunks in key order and counts it', () => {
    const store = new Map<string, Entry[]>();
    const es = Array.from({ length: 2_500 }, (_, i) => entry({ pub: NOW - i * 60 }));
    const { head } = apply(store, emptyHead('all', 'publishedAt'), [...es].reverse());
    expect(head.count).toBe(2_500);
    expect(head.chunks.map((c) => c.n)).toEqual([CHUNK_TARGET, CHUNK_TARGET, 500]);
    expect(all(store, head)).toEqual(es);
    expect(head.chunks[0]!.maxPub).toBe(NOW);
    expect(head.chunks[2]!.minPub).toBe(NOW - 2_499 * 60);
  });

  it('adds nothing when the same entries come again (a retried batch)', () => {
    const store = new Map<string, Entry[]>();
    const es = Array.from({ length: 300 }, (_, i) => entry({ pub: NOW - i }));
    const first = apply(store, emptyHead('all', 'baseScore'), es);
    const again = apply(store, first.head, es.slice(0, 100));
    expect(again.write).toEqual([]);
    expect(again.head.count).toBe(300);
  });

  it('replaces only the chunk an entry lands in, and splits it past CHUNK_MAX', () => {
    const store = new Map<string, Entry[]>();
    const es = Array.from({ length: 3_000 }, (_, i) => entry({ pub: NOW - i * 10 }));
    const { head } = apply(store, emptyHead('all', 'publishedAt'), es);
    // Entries between the first chunk's keys: only chunk 0 changes.
    const inside = Array.from({ length: 50 }, (_, i) => entry({ pub: NOW - i * 10 - 5 }));
    const next = apply(store, head, inside);
    expect(next.remove).toEqual([head.chunks[0]!.id]);
    expect(next.head.chunks.slice(1)).toEqual(head.chunks.slice(1));
    expect(next.head.count).toBe(3_050);
    expect(all(store, next.head)).toEqual(order([...es, ...inside], 'publishedAt'));
    // Enough new entries in one chunk to pass CHUNK_MAX: it is split, order kept.
    const many = Array.from({ length: CHUNK_MAX }, (_, i) => entry({ pub: NOW + 1 + i }));
    const split = apply(store, next.head, many);
    expect(split.head.chunks.every((c) => c.n <= CHUNK_MAX)).toBe(true);
    expect(split.head.count).toBe(5_050);
    expect(all(store, split.head)).toEqual(order([...es, ...inside, ...many], 'publishedAt'));
    expect(store.size).toBe(split.head.chunks.length); // replaced chunks are gone
  });

  it('locates a page across chunk boundaries', () => {
    const head: Head = { ...emptyHead('all', 'publishedAt'), count: 25, chunks: [10, 10, 5].map((n, i) => ({ id: `c${i}`, n, first: '', last: '', minPub: 0, maxPub: 0 })) };
    expect(locate(head, 0, 5)).toEqual({ chunks: [0], skip: 0 });
    expect(locate(head, 8, 5)).toEqual({ chunks: [0, 1], skip: 8 });
    expect(locate(head, 10, 10)).toEqual({ chunks: [1], skip: 0 });
    expect(locate(head, 19, 100)).toEqual({ chunks: [1, 2], skip: 9 });
    expect(locate(head, 25, 5)).toEqual({ chunks: [], skip: 0 });
  });
});

describe('query rules', () => {
  it('names the lists a filter confines results to', () => {
    expect(constraintLists({})).toEqual([]);
    expect(constraintLists({ sector: 'FIN', topic: 'M&A', entity: 'e1', ticker: 'PETR4', isBreaking: true })).toEqual(['sector:FIN', 'topic:M&A', 'entity:e1', 'ticker:PETR4', 'breaking']);
    expect(constraintLists({ isBreaking: false })).toEqual([]);
  });

  it('filters entries by every attribute and by publication bounds', () => {
    const e = entry({ pub: NOW, urg: 4, ctype: 'ANALYSIS', lang: 'en', breaking: true });
    expect(entryFilter({})).toBeNull();
    expect(entryFilter({ urgencyLevel: 'CRITICAL', contentType: 'ANALYSIS', language: 'en', isBreaking: true })!(e)).toBe(true);
    expect(entryFilter({ urgencyLevel: 'HIGH' })!(e)).toBe(false);
    expect(entryFilter({ isBreaking: false })!(e)).toBe(false);
    expect(entryFilter({ from: new Date(NOW * 1000), to: new Date(NOW * 1000) })!(e)).toBe(true);
    expect(entryFilter({ from: new Date((NOW + 1) * 1000) })!(e)).toBe(false);
    expect(entryFilter({ since: new Date(NOW * 1000) })!(e)).toBe(false); // since is strictly after
  });

  it('ranks title matches above subtitle and summary matches, all-in-title highest', () => {
    expect(matchQuality([4])).toBeGreaterThan(matchQuality([2]));
    expect(matchQuality([2])).toBeGreaterThan(matchQuality([1]));
    expect(matchQuality([4, 4])).toBeGreaterThan(matchQuality([4, 2]) + 1);
    expect(matchQuality([1 | 4])).toBe(3);
  });

  it('scores the feed from weights and multipliers, with every reason', () => {
    const prefs = Preferences.parse({
      sectors: ['FIN'],
      sectorWeights: { FIN: 3 },
      keywords: ['dividendos'],
      relevanceSettings: { sectorMultiplier: 2, keywordMultiplier: 1, watchlistMultiplier: 1.5, breakingNewsMultiplier: 2, recencyDecayEnabled: false },
    });
    const e = entry({ sector: 'FIN', score: 800, breaking: true });
    const { score, reasons } = feedScore(e, { keywords: ['dividendos'], companies: [], tickers: ['PETR4'] }, prefs, new Date(NOW * 1000));
    // (3×2 + 1×1 + 2×1.5 + 0.8) × 2
    expect(score).toBeCloseTo((6 + 1 + 3 + 0.8) * 2, 6);
    expect(reasons.map((r) => r.type)).toEqual(['sector', 'keyword', 'watchlist_ticker', 'quality', 'breaking']);
  });

  it('halves the feed score every recencyDecayHours when decay is on', () => {
    const prefs = { ...defaultPreferences(), relevanceSettings: { ...defaultPreferences().relevanceSettings, recencyDecayEnabled: true, recencyDecayHours: 10 } };
    const match = { keywords: [], companies: [], tickers: [] };
    const fresh = feedScore(entry({ pub: NOW }), match, prefs, new Date(NOW * 1000));
    const older = feedScore(entry({ pub: NOW - 10 * HOUR }), match, prefs, new Date(NOW * 1000));
    expect(older.score).toBeCloseTo(fresh.score / 2, 3);
    expect(older.reasons.at(-1)).toEqual({ type: 'recency', ageHours: 10, halfLifeHours: 10, factor: 0.5 });
  });
});
