/**
 * Reading streaks (issue 12): a streak is a run of consecutive edition days (Monday to Saturday)
 * on which the reader read at least one edition, by reading it or by passing its quiz. Sundays
 * neither break nor lengthen a streak. Today does not break it before it is over: a reader who
 * has not read yet today keeps yesterday's streak. Pure.
 */
import { MAX_DAYS_RECOVERY } from './calendar.rules';

export interface Streak {
  /** Consecutive edition days read, ending today (if read) or on the last edition day before. */
  current: number;
  /** The longest such run ever. */
  longest: number;
  /** The last day read, or null. */
  lastReadDate: string | null;
  /** Edition days of the recovery window not read yet (a passed quiz of one recovers it), newest first. */
  missedRecoverable: string[];
}

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 (a Thursday): streaks walk integers, not date strings. */
const dayNumber = (date: string): number => Math.round(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
const dateOf = (n: number): string => new Date(n * DAY_MS).toISOString().slice(0, 10);
const isSunday = (n: number): boolean => (((n + 4) % 7) + 7) % 7 === 0;
/** The last edition day strictly before day `n`. */
const previousEditionDayN = (n: number): number => (isSunday(n - 1) ? n - 2 : n - 1);

/** A reader's streak on `today`, from the days they read (any order, repeats and Sundays ignored). */
export function streakOf(readDays: Iterable<string>, today: string): Streak {
  // Each day is parsed once (a year of history is ~230 days; the string helpers of calendar.rules
  // validate on every step, which made this most of a streak request's CPU).
  const read = new Set<number>();
  for (const d of readDays) {
    const n = dayNumber(d);
    if (Number.isFinite(n)) read.add(n);
  }
  for (const n of read) if (isSunday(n)) read.delete(n);
  const sorted = [...read].sort((a, b) => a - b);
  // Longest: walk the days in order, extending a run while each follows the last edition day before it.
  let longest = 0;
  let run = 0;
  let prev: number | null = null;
  for (const d of sorted) {
    run = prev !== null && previousEditionDayN(d) === prev ? run + 1 : 1;
    longest = Math.max(longest, run);
    prev = d;
  }
  // Today, while unread, is not over: the streak ends on the edition day before it. A Sunday's
  // streak ends on Saturday, read or not.
  const todayN = dayNumber(today);
  let current = 0;
  for (let d = isSunday(todayN) || !read.has(todayN) ? previousEditionDayN(todayN) : todayN; read.has(d); d = previousEditionDayN(d)) current++;
  const missedRecoverable: string[] = [];
  for (let back = 1; back <= MAX_DAYS_RECOVERY; back++) {
    const d = todayN - back;
    if (!isSunday(d) && !read.has(d)) missedRecoverable.push(dateOf(d));
  }
  return { current, longest, lastReadDate: sorted.length > 0 ? dateOf(sorted.at(-1)!) : null, missedRecoverable };
}
