/**
 * Calendar dates, written `YYYY-MM-DD`, as every domain counts them: pure functions (no clock).
 * "Today" is the calendar day of an instant in a time zone (`localDate`). Quizzes and streaks
 * (models/quiz/calendar.rules.ts) and support's reports both count days with these.
 */

export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

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

/**
 * Whether `tz` is a time zone this runtime knows by its IANA name ("America/Sao_Paulo", "UTC").
 * Bounded first: the name reaches Intl only when it could be one.
 */
export function isTimeZone(tz: string): boolean {
  if (tz.length === 0 || tz.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** One formatter per time zone for the time of day (h23: midnight is 00, never 24). */
const timeFormats = new Map<string, Intl.DateTimeFormat>();

/** Minutes since local midnight (0–1439) of an instant in a time zone. */
export function minuteOfDay(at: Date, timeZone: string): number {
  let format = timeFormats.get(timeZone);
  if (!format) timeFormats.set(timeZone, (format = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })));
  const parts = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
  return Number(parts.hour) * 60 + Number(parts.minute);
}
