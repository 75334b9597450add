/**
 * Reading streaks (issue 12): a streak is a run of consecutive edition days (Monday to Saturday)
 * on which the reader read at least one edition, by reading it or by passing its quiz. Sundays
 * neither break nor lengthen a streak. Today does not break it before it is over: a reader who
 * has not read yet today keeps yesterday's streak. Pure.
 */
import { addDays, hasEditions, MAX_DAYS_RECOVERY, previousEditionDay } from './calendar.rules';

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

/** The run of read edition days ending on `day` (0 when `day` was not read). */
function runEndingOn(read: ReadonlySet<string>, day: string): number {
  let n = 0;
  for (let d = day; read.has(d); d = previousEditionDay(d)) n++;
  return n;
}

/** A reader's streak on `today`, from the days they read (any order, repeats and Sundays ignored). */
export function streakOf(readDays: Iterable<string>, today: string): Streak {
  const read = new Set([...readDays].filter(hasEditions));
  const sorted = [...read].sort();
  // Longest: walk the days in order, extending a run while each follows the last edition day before it.
  let longest = 0;
  let run = 0;
  let prev: string | null = null;
  for (const d of sorted) {
    run = prev !== null && previousEditionDay(d) === prev ? run + 1 : 1;
    longest = Math.max(longest, run);
    prev = d;
  }
  // Today, while unread, is not over: the streak ends on the edition day before it. A Sunday's
  // streak ends on Saturday, read or not.
  const end = !hasEditions(today) || !read.has(today) ? previousEditionDay(today) : today;
  const current = runEndingOn(read, end);
  const missedRecoverable: string[] = [];
  for (let back = 1; back <= MAX_DAYS_RECOVERY; back++) {
    const d = addDays(today, -back);
    if (hasEditions(d) && !read.has(d)) missedRecoverable.push(d);
  }
  return { current, longest, lastReadDate: sorted.at(-1) ?? null, missedRecoverable };
}
