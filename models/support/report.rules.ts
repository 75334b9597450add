/**
 * Support reports (issue 14; spec §2.6, §4.11, §4.12): periods, comparisons and percentage changes.
 * Pure. Days are calendar days of the reports' time zone (America/Sao_Paulo by default); a period
 * runs from its first day's midnight to the midnight after its last day.
 */
import { addDays, daysBetween, isDate, localDate } from '../shared/calendar.rules';

export const COMPARISONS = ['periodo_anterior', 'mesmo_periodo_ano_anterior'] as const;
export type Comparison = (typeof COMPARISONS)[number];
export const GROUPINGS = ['hora', 'dia', 'semana', 'mes', 'ano'] as const;

/** A period of whole days, inclusive, as the reports show it. */
export interface Period {
  inicio: string;
  fim: string;
}

/** The default period (spec §4.12): from 30 days ago to today, both included. */
export function defaultPeriod(now: Date, timeZone: string): Period {
  const today = localDate(now, timeZone);
  return { inicio: addDays(today, -30), fim: today };
}

/** Where the period compared with `current` lies. */
export function comparedPeriod(current: Period, mode: Comparison): Period {
  if (mode === 'periodo_anterior') {
    const length = daysBetween(current.inicio, current.fim) + 1;
    return { inicio: addDays(current.inicio, -length), fim: addDays(current.inicio, -1) };
  }
  return { inicio: yearEarlier(current.inicio), fim: yearEarlier(current.fim) };
}

/** The same day a year earlier; 29 February becomes 28 February. */
export function yearEarlier(date: string): string {
  const year = String(Number(date.slice(0, 4)) - 1).padStart(4, '0');
  const candidate = `${year}${date.slice(4)}`;
  return isDate(candidate) ? candidate : `${year}-02-28`;
}

/** Offset of a time zone from UTC at an instant, in ms (positive east of Greenwich). */
function offsetMs(at: number, timeZone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(new Date(at))
      .map((p) => [p.type, p.value]),
  );
  const asUtc = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return asUtc - (at - (at % 1000));
}

/** The instant a calendar day starts in a time zone. */
export function startOfDay(date: string, timeZone: string): Date {
  const guess = Date.parse(`${date}T00:00:00Z`);
  const first = guess - offsetMs(guess, timeZone);
  // Once more with the offset at the instant found (a change of offset between the two).
  return new Date(guess - offsetMs(first, timeZone));
}

/** The instants a period covers: [start of its first day, start of the day after its last). */
export function periodRange(period: Period, timeZone: string): { from: Date; to: Date } {
  return { from: startOfDay(period.inicio, timeZone), to: startOfDay(addDays(period.fim, 1), timeZone) };
}

/**
 * Percentage change from `before` to `after`, two decimals. From zero: 0 when both are zero, and
 * 100 when something appeared where there was nothing (docs/decisions.md "Reports").
 */
export function percentChange(before: number, after: number): number {
  if (before === 0) return after === 0 ? 0 : 100;
  return Math.round(((after - before) / before) * 10_000) / 100;
}

/** A rate in percent, two decimals (0 of nothing). */
export const percent = (part: number, whole: number): number => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100);

/** The Monday (weeks start on Monday, ISO 8601) of the week of a calendar date. */
export function weekStartOf(date: string): string {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return addDays(date, weekday === 0 ? -6 : 1 - weekday);
}
