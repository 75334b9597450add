/**
 * How article lists, search and the feed are answered from posting lists: which lists a filter
 * names, how entries are filtered, how search matches rank and how the feed scores. Pure.
 */
import { FIELD, listName, urgencyOfRank, type Entry } from './article-index.rules';
import type { Preferences } from './preferences.rules';

export interface ArticleFilters {
  sector?: string | undefined;
  topic?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** Strictly after (the breaking endpoint's `since`). */
  since?: Date | undefined;
  language?: string | undefined;
  urgencyLevel?: string | undefined;
  contentType?: string | undefined;
  isBreaking?: boolean | undefined;
  entity?: string | undefined;
  ticker?: string | undefined;
}

/** The posting lists a filter confines results to (their intersection); none means `all`. */
export function constraintLists(f: ArticleFilters): string[] {
  const lists: string[] = [];
  if (f.sector) lists.push(listName.sector(f.sector));
  if (f.topic) lists.push(listName.topic(f.topic));
  if (f.entity) lists.push(listName.entity(f.entity));
  if (f.ticker) lists.push(listName.ticker(f.ticker));
  if (f.isBreaking === true) lists.push(listName.breaking());
  return lists;
}

/** Seconds bounds of the publication filters (inclusive), for skipping chunks. */
export function pubBounds(f: ArticleFilters): { min: number; max: number } {
  let min = -Infinity;
  let max = Infinity;
  if (f.from) min = Math.max(min, Math.ceil(f.from.getTime() / 1000));
  if (f.since) min = Math.max(min, Math.floor(f.since.getTime() / 1000) + 1);
  if (f.to) max = Math.min(max, Math.floor(f.to.getTime() / 1000));
  return { min, max };
}

/** The filters an entry can answer itself (all but entity and ticker, which are list memberships). */
export function entryFilter(f: ArticleFilters): ((e: Entry) => boolean) | null {
  const { min, max } = pubBounds(f);
  const tests: ((e: Entry) => boolean)[] = [];
  if (f.sector) tests.push((e) => e.sector === f.sector);
  if (f.topic) tests.push((e) => e.topic === f.topic);
  if (f.language) tests.push((e) => e.lang === f.language);
  if (f.urgencyLevel) tests.push((e) => urgencyOfRank(e.urg) === f.urgencyLevel);
  if (f.contentType) tests.push((e) => e.ctype === f.contentType);
  if (f.isBreaking !== undefined) tests.push((e) => e.breaking === f.isBreaking);
  if (min > -Infinity || max < Infinity) tests.push((e) => e.pub >= min && e.pub <= max);
  if (tests.length === 0) return null;
  return (e) => tests.every((t) => t(e));
}

/** Weight of the best field a term was found in: title 3, subtitle 2, summary 1. */
export function fieldWeight(mask: number): number {
  if (mask & FIELD.title) return 3;
  if (mask & FIELD.subtitle) return 2;
  return mask & FIELD.summary ? 1 : 0;
}

/**
 * Match quality of an article for a query: per term the weight of its best field, summed, plus a
 * bonus when every term is in the title. Higher is better; recency breaks ties.
 */
export function matchQuality(masks: readonly number[]): number {
  const sum = masks.reduce((s, m) => s + fieldWeight(m), 0);
  return sum + (masks.length > 1 && masks.every((m) => m & FIELD.title) ? 2 : 0);
}

export type FeedReason =
  | { type: 'sector'; value: string; weight: number; multiplier: number; points: number }
  | { type: 'topic'; value: string; weight: number; multiplier: number; points: number }
  | { type: 'keyword'; value: string; weight: number; multiplier: number; points: number }
  | { type: 'watchlist_company'; value: string; multiplier: number; points: number }
  | { type: 'watchlist_ticker'; value: string; multiplier: number; points: number }
  | { type: 'quality'; value: number; points: number }
  | { type: 'breaking'; multiplier: number }
  | { type: 'exclusive'; multiplier: number }
  | { type: 'recency'; ageHours: number; halfLifeHours: number; factor: number };

/** What in the reader's preferences an article matched (found by the posting lists it came from). */
export interface FeedMatch {
  keywords: string[];
  companies: string[];
  tickers: string[];
}

/** Points one watchlisted company or ticker is worth before its multiplier (a sector of weight 2). */
export const WATCHLIST_POINTS = 2;

/**
 * Feed score of an article for a reader: points for each followed sector, topic, keyword and
 * watchlist item it matches (weight × multiplier), plus its quality (baseScore / 100); times the
 * breaking and exclusive multipliers; times 2^(−age / decay hours) when recency decay is on.
 * Returns the score rounded to 4 places and every reason that contributed.
 */
export function feedScore(e: Entry, match: FeedMatch, prefs: Preferences, now: Date): { score: number; reasons: FeedReason[] } {
  const r = prefs.relevanceSettings;
  const reasons: FeedReason[] = [];
  let points = 0;
  if (prefs.sectors.includes(e.sector as never)) {
    const weight = prefs.sectorWeights[e.sector as keyof typeof prefs.sectorWeights] ?? 1;
    const p = weight * r.sectorMultiplier;
    points += p;
    reasons.push({ type: 'sector', value: e.sector, weight, multiplier: r.sectorMultiplier, points: p });
  }
  if (prefs.topics.includes(e.topic as never)) {
    const weight = prefs.topicWeights[e.topic as keyof typeof prefs.topicWeights] ?? 1;
    const p = weight * r.topicMultiplier;
    points += p;
    reasons.push({ type: 'topic', value: e.topic, weight, multiplier: r.topicMultiplier, points: p });
  }
  for (const k of match.keywords) {
    const weight = prefs.keywordWeights[k] ?? 1;
    const p = weight * r.keywordMultiplier;
    points += p;
    reasons.push({ type: 'keyword', value: k, weight, multiplier: r.keywordMultiplier, points: p });
  }
  for (const c of match.companies) {
    const p = WATCHLIST_POINTS * r.watchlistMultiplier;
    points += p;
    reasons.push({ type: 'watchlist_company', value: c, multiplier: r.watchlistMultiplier, points: p });
  }
  for (const t of match.tickers) {
    const p = WATCHLIST_POINTS * r.watchlistMultiplier;
    points += p;
    reasons.push({ type: 'watchlist_ticker', value: t, multiplier: r.watchlistMultiplier, points: p });
  }
  const quality = e.score / 1000;
  points += quality;
  reasons.push({ type: 'quality', value: e.score / 10, points: quality });
  let score = points;
  if (e.breaking) {
    score *= r.breakingNewsMultiplier;
    reasons.push({ type: 'breaking', multiplier: r.breakingNewsMultiplier });
  }
  if (e.exclusive) {
    score *= r.exclusiveMultiplier;
    reasons.push({ type: 'exclusive', multiplier: r.exclusiveMultiplier });
  }
  if (r.recencyDecayEnabled) {
    const ageHours = Math.max(0, (now.getTime() / 1000 - e.pub) / 3600);
    const factor = 2 ** (-ageHours / r.recencyDecayHours);
    score *= factor;
    reasons.push({ type: 'recency', ageHours: Math.round(ageHours * 10) / 10, halfLifeHours: r.recencyDecayHours, factor: Math.round(factor * 10_000) / 10_000 });
  }
  return { score: Math.round(score * 10_000) / 10_000, reasons };
}
