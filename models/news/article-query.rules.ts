/**
 * How article lists and the feed are asked of the database and scored: the filter of a list's
 * parameters, and the feed's score of an article for a reader. Pure.
 */
import type { ArticleDoc } from './article.rules';
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

/** The MongoDB filter of a list's filters (each served by an index prefix: article.model.ts). */
export function articleFilter(f: ArticleFilters): Record<string, unknown> {
  const q: Record<string, unknown> = {};
  if (f.sector) q.primarySector = f.sector;
  if (f.topic) q.primaryTopic = f.topic;
  if (f.entity) q.entityIds = f.entity;
  if (f.ticker) q.tickers = f.ticker;
  if (f.isBreaking !== undefined) q.isBreaking = f.isBreaking;
  if (f.language) q.language = f.language;
  if (f.urgencyLevel) q.urgencyLevel = f.urgencyLevel;
  if (f.contentType) q.contentType = f.contentType;
  const published: Record<string, Date> = {};
  if (f.from) published.$gte = f.from;
  if (f.since) published.$gt = f.since;
  if (f.to) published.$lte = f.to;
  if (Object.keys(published).length) q.publishedAt = published;
  return q;
}

/** What feed scoring reads of an article (and the projection that fetches just that). */
export type Scored = Pick<ArticleDoc, '_id' | 'publishedAt' | 'baseScore' | 'primarySector' | 'primaryTopic' | 'isBreaking' | 'isExclusive'>;
/** Search: what a query term found in each field of an article is worth. */
export const SEARCH_WEIGHTS = { title: 3, subtitle: 2, summary: 1 } as const;

/**
 * How well an article matches a search: each query term found in its title counts 3, in its
 * subtitle 2, in its summary 1 (on the folded, stemmed copies the terms are compared with).
 */
export function matchQuality(search: Record<keyof typeof SEARCH_WEIGHTS, string>, stems: readonly string[]): number {
  let quality = 0;
  for (const field of Object.keys(SEARCH_WEIGHTS) as (keyof typeof SEARCH_WEIGHTS)[]) {
    const words = new Set(search[field].split(' '));
    for (const s of stems) if (words.has(s)) quality += SEARCH_WEIGHTS[field];
  }
  return quality;
}

export const SCORED_FIELDS = { _id: 1, publishedAt: 1, baseScore: 1, primarySector: 1, primaryTopic: 1, isBreaking: 1, isExclusive: 1 } as const;

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

/** What in the reader's preferences an article matched (found by the queries it came from). */
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
export function feedScore(a: Scored, match: FeedMatch, prefs: Preferences, now: Date): { score: number; reasons: FeedReason[] } {
  const r = prefs.relevanceSettings;
  const reasons: FeedReason[] = [];
  let points = 0;
  if (prefs.sectors.includes(a.primarySector as never)) {
    const weight = prefs.sectorWeights[a.primarySector as keyof typeof prefs.sectorWeights] ?? 1;
    const p = weight * r.sectorMultiplier;
    points += p;
    reasons.push({ type: 'sector', value: a.primarySector, weight, multiplier: r.sectorMultiplier, points: p });
  }
  if (prefs.topics.includes(a.primaryTopic as never)) {
    const weight = prefs.topicWeights[a.primaryTopic as keyof typeof prefs.topicWeights] ?? 1;
    const p = weight * r.topicMultiplier;
    points += p;
    reasons.push({ type: 'topic', value: a.primaryTopic, weight, multiplier: r.topicMultiplier, points: p });
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
  const quality = a.baseScore / 100;
  points += quality;
  reasons.push({ type: 'quality', value: a.baseScore, points: quality });
  let score = points;
  if (a.isBreaking) {
    score *= r.breakingNewsMultiplier;
    reasons.push({ type: 'breaking', multiplier: r.breakingNewsMultiplier });
  }
  if (a.isExclusive) {
    score *= r.exclusiveMultiplier;
    reasons.push({ type: 'exclusive', multiplier: r.exclusiveMultiplier });
  }
  if (r.recencyDecayEnabled) {
    const ageHours = Math.max(0, (now.getTime() - a.publishedAt.getTime()) / 3_600_000);
    const factor = 2 ** (-ageHours / r.recencyDecayHours);
    score *= factor;
    reasons.push({ type: 'recency', ageHours: Math.round(ageHours * 10) / 10, halfLifeHours: r.recencyDecayHours, factor: Math.round(factor * 10_000) / 10_000 });
  }
  return { score: Math.round(score * 10_000) / 10_000, reasons };
}
