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

export const EDITIONS = ['morning', 'night'] as const;
export type Edition = (typeof EDITIONS)[number];

export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** How many calendar days after its date a quiz can be taken (spec §2.2 maxDaysRecovery). */
export const MAX_DAYS_RECOVERY = 3;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `s` is a real calendar date written YYYY-MM-DD (years 0000–9999). */
export function isDate(s: string): boolean {
  if (!DATE.test(s)) return false;
  // Parsed as an ISO date-time (Date.UTC would read years 0–99 as 1900–1999); an impossible day
  // rolls over into the next month and no longer prints the same.
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

function utc(date: string): Date {
  if (!isDate(date)) throw new RangeError(`not a calendar date: ${date}`);
  return new Date(`${date}T00:00:00Z`);
}

/** The date `days` calendar days after `date` (before, when negative). */
export function addDays(date: string, days: number): string {
  return new Date(utc(date).getTime() + days * 86_400_000).toISOString().slice(0, 10);
}

/** Day of the week of a calendar date: 0 Sunday … 6 Saturday. */
export const weekday = (date: string): number => utc(date).getUTCDay();

/** Calendar days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number => Math.round((utc(to).getTime() - utc(from).getTime()) / 86_400_000);

/** One formatter per time zone (building one costs more than formatting with it). en-CA writes YYYY-MM-DD. */
const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar day of an instant in a time zone (an IANA name such as America/Sao_Paulo). */
export function localDate(at: Date, timeZone: string): string {
  let format = dayFormats.get(timeZone);
  if (!format) dayFormats.set(timeZone, (format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })));
  return format.format(at);
}

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
