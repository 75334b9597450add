/**
 * The daily digest's rules (issue 40): which readers a run of the digest schedule mails, the day a
 * digest belongs to, and which articles it lists. Pure: the schedule's workflow, its activities
 * and the tests all use them.
 *
 * The schedule runs every 15 minutes (every time zone in use is a whole number of quarter hours
 * from UTC). A run's **slot** is its scheduled instant floored to the quarter hour; a reader is due
 * in the one slot of the day whose local time, in the reader's time zone, is in the first quarter of
 * their digest hour. So every reader is due once a local day, the run that mails them is the one
 * that falls at their hour, and a run finds its readers with one indexed query per time zone in use
 * (the reader's hour is stored; no per-reader "next time" has to be kept in step with settings).
 *
 * A digest is mailed at most once per reader and local day (its record `digest:<user>:<day>`), so
 * a retried run, a run taken again after an outage, or the repeated hour at the end of daylight
 * saving sends nothing twice. On the day a time zone skips the reader's hour (the start of daylight
 * saving), that reader has no digest.
 */
import { localDate, minuteOfDay } from '../shared/calendar.rules';
import type { AlertTarget } from './alert.rules';
import { feedScore, type Scored } from './article-query.rules';
import { inDigest, type Reader } from './audience.rules';
import type { Preferences } from './preferences.rules';

/** How often the schedule runs, and so the width of a slot. */
export const DIGEST_SLOT_MINUTES = 15;
const SLOT_MS = DIGEST_SLOT_MINUTES * 60_000;
/** A digest looks back this far from its slot. */
export const DIGEST_WINDOW_MS = 24 * 3_600_000;
/** At most this many articles in one digest. */
export const DIGEST_MAX_ARTICLES = 10;
/** The newest this many articles of the window are the candidates (ranked per reader). */
export const DIGEST_CANDIDATES = 2_000;

/** The slot an instant falls in: the quarter hour it starts. */
export const slotOf = (at: Date): Date => new Date(Math.floor(at.getTime() / SLOT_MS) * SLOT_MS);

/** A time zone and the digest hour due in it at a slot. */
export interface DueHour {
  timeZone: string;
  hour: number;
}

/**
 * The digest hour due at `slot` in each of `timeZones`: the local hour when the slot is its first
 * quarter, none otherwise (a zone at hh:30 or hh:45 now has no reader due in this run).
 */
export function dueHours(slot: Date, timeZones: readonly string[]): DueHour[] {
  return timeZones.flatMap((timeZone) => {
    const minute = minuteOfDay(slot, timeZone);
    return minute % 60 < DIGEST_SLOT_MINUTES ? [{ timeZone, hour: Math.floor(minute / 60) }] : [];
  });
}

/** The local day a digest of `slot` belongs to, in the reader's time zone (YYYY-MM-DD). */
export const digestDay = (slot: Date, timeZone: string): string => localDate(slot, timeZone);

/** The key of a reader's digest of a day: what makes it one mail however often it is tried. */
export const digestKey = (userId: string, day: string): string => `digest:${userId}:${day}`;

/** An article the digest may list: what the rule, the rank and the mail need. */
export type DigestCandidate = AlertTarget & Scored & { summary: string | null; sourceName: string; sourceUrl: string };

/** One line of a digest. */
export interface DigestItem {
  article: DigestCandidate;
  score: number;
}

/**
 * A reader's digest: the candidates the one rule lets in (audience.rules inDigest: followed, at or
 * above their minimum score, breaking only when they asked), ranked by the feed's relevance
 * (feedScore, with the same match the feed finds) as of the slot, the best `max`.
 */
export function digestOf(prefs: Preferences & { _id: string }, candidates: readonly DigestCandidate[], slot: Date, max = DIGEST_MAX_ARTICLES): DigestItem[] {
  const reader: Pick<Reader, 'follows' | 'settings'> = { follows: prefs, settings: prefs.notificationSettings };
  const items: DigestItem[] = [];
  for (const article of candidates) {
    const match = inDigest(reader, article);
    if (match) items.push({ article, score: feedScore(article, match, prefs, slot).score });
  }
  return items
    .sort((a, b) => b.score - a.score || b.article.publishedAt.getTime() - a.article.publishedAt.getTime() || (a.article._id < b.article._id ? -1 : 1))
    .slice(0, max);
}

/** What mailing a page of due readers came to. */
export interface DigestPageResult {
  /** Readers on the page. */
  readers: number;
  sent: number;
  /** Nothing to read, no proven address, a suppressed address: no mail. */
  empty: number;
  /** Mailed (or refused for good) before: a retried page. */
  skipped: number;
  failed: number;
  /** The last reader of a full page: where the next page starts (null: this was the last). */
  next: string | null;
}
