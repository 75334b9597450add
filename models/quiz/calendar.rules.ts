/**
 * The newsletter's calendar, as quizzes and streaks see it (docs/decisions.md "Quiz calendar").
 * Pure functions over calendar dates written `YYYY-MM-DD`; "today" is the calendar day of an
 * instant in the newsletter's time zone (America/Sao_Paulo unless configured).
 *
 * - Editions: a morning and a night edition every day but Sunday.
 * - A quiz belongs to one edition: it is dated with the edition's day (`YYYY-MM-DD`, or
 *   `YYYY-MM-DD-night` for the night edition), is made from that edition's text, and passing it
 *   recovers that day. So no quiz is dated Sunday (nothing to recover: Sundays never break a
 *   streak), and none is dated Sunday night.
 * - Generation runs daily and makes the quizzes of the last edition day before the run's day:
 *   Tuesday to Saturday the day before, Sunday and Monday both Saturday (Monday's morning run
 *   finds Saturday's quizzes done unless Sunday's run failed: generation is idempotent).
 * - A quiz can be taken on the three calendar days after its date (Sundays count as days).
 */

import { isDate, addDays, weekday, daysBetween } from '../shared/calendar.rules';

export const EDITIONS = ['morning', 'night'] as const;
export type Edition = (typeof EDITIONS)[number];

/** How many calendar days after its date a quiz can be taken (spec §2.2 maxDaysRecovery). */
export const MAX_DAYS_RECOVERY = 3;

/** Whether a day has editions (every day but Sunday). */
export const hasEditions = (date: string): boolean => weekday(date) !== 0;

/** The last day with editions strictly before `date`. */
export function previousEditionDay(date: string): string {
  let d = addDays(date, -1);
  while (!hasEditions(d)) d = addDays(d, -1);
  return d;
}

/** A quiz's date as the spec writes it: `YYYY-MM-DD` (morning) or `YYYY-MM-DD-night`. */
export const quizDateOf = (date: string, edition: Edition): string => (edition === 'night' ? `${date}-night` : date);

/** The day and edition of a quiz date, or null when it is not one (a Sunday has no quiz). */
export function parseQuizDate(quizDate: string): { date: string; edition: Edition } | null {
  const night = quizDate.endsWith('-night');
  const date = night ? quizDate.slice(0, -'-night'.length) : quizDate;
  if (!isDate(date) || !hasEditions(date)) return null;
  return { date, edition: night ? 'night' : 'morning' };
}

/** The quizzes a generation run on `runDay` makes: both editions of the last edition day before it. */
export function dueQuizzes(runDay: string): { date: string; edition: Edition; quizDate: string }[] {
  const date = previousEditionDay(runDay);
  return EDITIONS.map((edition) => ({ date, edition, quizDate: quizDateOf(date, edition) }));
}

/** Whether a quiz dated `date` can still be taken on `today`: on the three days after its date. */
export function withinRecovery(date: string, today: string): boolean {
  const age = daysBetween(date, today);
  return age >= 1 && age <= MAX_DAYS_RECOVERY;
}
