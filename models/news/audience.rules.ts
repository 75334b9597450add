/**
 * Who is told about which article, and how (issue 40): the one rule every channel follows
 * (WhatsApp, e-mail, Web Push alerts, and the digest). Pure. The candidates' query
 * (preferences.repo alertCandidates) narrows readers by what an index can answer; this decides.
 *
 * - **What they follow** (`matchOf`): the article's sector or topic, a watchlisted company or
 *   ticker, or a keyword all of whose terms the article holds: what the feed scores (its
 *   FeedMatch), so an alert and the feed never disagree about following.
 * - **Instant alerts are for breaking articles** at or above the reader's `minScore` (the article's
 *   baseScore), outside the reader's quiet hours.
 * - **The digest** takes followed articles at or above `minScore`; `breakingOnly` keeps only the
 *   breaking ones (decisions.md "Readers' notifications").
 * - **One alert per reader and article across channels**: the first channel the reader has on and
 *   can be reached by, in `ALERT_CHANNELS` order; the claim (alert-claim.repo) holds it once.
 */
import { minuteOfDay } from '../shared/calendar.rules';
import type { AlertFollows, AlertTarget } from './alert.rules';
import type { FeedMatch } from './article-query.rules';
import type { NotificationSettings } from './preferences.rules';
import { terms as termsOf } from './text.rules';

/** Alert channels, the preferred first: a browser notification, then WhatsApp, then e-mail. */
export const ALERT_CHANNELS = ['push', 'whatsapp', 'email'] as const;
export type AlertChannel = (typeof ALERT_CHANNELS)[number];

/** What of the article a reader follows: the feed's FeedMatch, and whether its sector and topic. */
export interface ArticleMatch extends FeedMatch {
  sector: boolean;
  topic: boolean;
}

/** What a reader follows in an article, or null when nothing (a keyword: every one of its terms in the article). */
export function matchOf(p: AlertFollows, article: Pick<AlertTarget, 'primarySector' | 'primaryTopic' | 'entityIds' | 'tickers' | 'terms'>): ArticleMatch | null {
  const terms = new Set(article.terms);
  const match: ArticleMatch = {
    sector: p.sectors.includes(article.primarySector),
    topic: p.topics.includes(article.primaryTopic),
    keywords: p.keywords.filter((k) => {
      const words = termsOf(k);
      return words.length > 0 && words.every((t) => terms.has(t));
    }),
    companies: p.watchlistCompanies.filter((c) => article.entityIds.includes(c)),
    tickers: p.watchlistTickers.filter((t) => article.tickers.includes(t)),
  };
  const follows = match.sector || match.topic || match.keywords.length > 0 || match.companies.length > 0 || match.tickers.length > 0;
  return follows ? match : null;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Whether `now` falls in the reader's quiet hours (start included, end excluded; may span midnight). */
export function inQuietHours(settings: Pick<NotificationSettings, 'quietHours' | 'timeZone'>, now: Date): boolean {
  const q = settings.quietHours;
  if (!q) return false;
  const at = minuteOfDay(now, settings.timeZone);
  const start = minutesOf(q.start);
  const end = minutesOf(q.end);
  return start < end ? at >= start && at < end : at >= start || at < end;
}

/** A reader as the rule sees them: what they follow, their settings, and which channels can reach them now. */
export interface Reader {
  follows: AlertFollows;
  settings: NotificationSettings;
  /** A channel reaches the reader: a push subscription, a linked phone, a verified and unsuppressed address. */
  reachable: Partial<Record<AlertChannel, boolean>>;
}

export type NotToldReason = 'not-breaking' | 'below-min-score' | 'not-followed' | 'quiet-hours' | 'no-channel';

export type Told = { told: true; channel: AlertChannel; match: ArticleMatch } | { told: false; reason: NotToldReason };

/**
 * Whether a reader is told of an article now by an instant alert, and on which channel. `among`
 * limits the channels considered (an alert on one channel falls back to the next after a
 * permanent failure: the caller passes the channels after it).
 */
export function whoIsTold(reader: Reader, article: AlertTarget, now: Date, among: readonly AlertChannel[] = ALERT_CHANNELS): Told {
  if (!article.isBreaking) return { told: false, reason: 'not-breaking' };
  if (article.baseScore < reader.settings.minScore) return { told: false, reason: 'below-min-score' };
  const match = matchOf(reader.follows, article);
  if (!match) return { told: false, reason: 'not-followed' };
  if (inQuietHours(reader.settings, now)) return { told: false, reason: 'quiet-hours' };
  const channel = among.find((c) => reader.settings[c] && reader.reachable[c] === true);
  return channel ? { told: true, channel, match } : { told: false, reason: 'no-channel' };
}

/** Whether an article may be in a reader's digest (its rank is the feed's relevance: feedScore with this match). */
export function inDigest(reader: Pick<Reader, 'follows' | 'settings'>, article: AlertTarget): ArticleMatch | null {
  if (article.baseScore < reader.settings.minScore) return null;
  if (reader.settings.breakingOnly && !article.isBreaking) return null;
  return matchOf(reader.follows, article);
}
