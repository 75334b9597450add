/**
 * streakOf walks day numbers; this checks it against the reference written with the calendar's
 * string helpers (its first version) over random histories, todays on every weekday included.
 */
import { hasEditions, MAX_DAYS_RECOVERY, previousEditionDay } from '../../models/quiz/calendar.rules';
import { addDays } from '../../models/shared/calendar.rules';
import { streakOf, type Streak } from '../../models/quiz/streak.rules';

/** The run of read edition days ending on `day` (0 when `day` was not read). */
function runEndingOn(read: ReadonlySet<string>, day: string): number {
  let n = 0;
  for (let d = day; read.has(d); d = previousEditionDay(d)) n++;
  return n;
}

/** A reader's streak on `today`, from the days they read (any order, repeats and Sundays ignored). */
function referenceStreakOf(readDays: Iterable<string>, today: string): Streak {
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

/** A deterministic pseudo-random sequence (the same cases on every run). */
function random(seed: number): () => number {
  let x = seed;
  return () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
}

it('agrees with the reference on 300 random histories', () => {
  const next = random(42);
  for (let c = 0; c < 300; c++) {
    const today = addDays('2026-11-24', -Math.floor(next() * 60));
    const density = next();
    const days: string[] = [];
    for (let back = 0; back < 120; back++) if (next() < density) days.push(addDays(today, -back));
    expect(streakOf(days, today)).toEqual(referenceStreakOf(days, today));
  }
});
