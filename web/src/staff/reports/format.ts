/**
 * How the reports' numbers read: counts, percentages, durations (the API's seconds as "3 h 20 min"),
 * periods, ISO weeks, and the series' periods filled in (the API leaves out those without tickets).
 */
import type { TFunction } from 'i18next';
import { addDays, daysBetween } from '../../../../models/shared/calendar.rules';
import { weekStartOf } from '../../../../models/support/report.rules';
import { formatDate } from '../../i18n';
import type { Grouping, Periodo } from './api';

const locale = (lng: string) => (lng === 'pt' ? 'pt-BR' : 'en-GB');

export const formatCount = (n: number, lng: string): string => new Intl.NumberFormat(locale(lng)).format(n);

/** A percentage the API gives in percent (two decimals at most): "42.5%". */
export const formatPercent = (p: number, lng: string): string => new Intl.NumberFormat(locale(lng), { maximumFractionDigits: 1 }).format(p) + '%';

/** A signed change: "+3", "−2", "0" (a true minus sign). */
export function formatSigned(n: number, lng: string, suffix = ''): string {
  const abs = new Intl.NumberFormat(locale(lng), { maximumFractionDigits: 1 }).format(Math.abs(n));
  return `${n > 0 ? '+' : n < 0 ? '−' : ''}${abs}${suffix}`;
}

/** Seconds as days, hours, minutes ("2 d 4 h", "3 h 20 min", "12 min", "45 s"); "—" when there is nothing to measure. */
export function formatDuration(seconds: number | null | undefined, t: TFunction): string {
  if (seconds === null || seconds === undefined) return '—';
  const s = Math.round(seconds);
  if (s < 60) return t('units.s', { n: s });
  const minutes = Math.round(s / 60);
  if (minutes < 60) return t('units.min', { n: minutes });
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? t('units.hMin', { h: hours, min: minutes % 60 }) : t('units.h', { n: hours });
  const days = Math.floor(hours / 24);
  return hours % 24 ? t('units.dH', { d: days, h: hours % 24 }) : t('units.d', { n: days });
}

/** Seconds as hours with one decimal (the charts' unit for durations). */
export const hours = (seconds: number | null): number | null => (seconds === null ? null : Math.round((seconds / 3600) * 10) / 10);

/** A period of days: "1 Mar 2031 – 30 Mar 2031" (one date when it is one day). */
export const formatPeriod = (p: Periodo, lng: string): string => (p.inicio === p.fim ? formatDate(p.inicio, lng) : `${formatDate(p.inicio, lng)} – ${formatDate(p.fim, lng)}`);

/** The ISO week (YYYY-Www) of a calendar date: the week-numbering year is its Thursday's. */
export function isoWeek(date: string): string {
  const thursday = addDays(weekStartOf(date), 3);
  const year = thursday.slice(0, 4);
  const week = Math.floor(daysBetween(`${year}-01-01`, thursday) / 7) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** The Monday of an ISO week written YYYY-Www. */
export function mondayOf(week: string): string | null {
  const m = /^(\d{4})-W(\d{2})$/.exec(week);
  if (!m) return null;
  // 4 January is always in week 1.
  const week1 = weekStartOf(`${m[1]}-01-04`);
  return addDays(week1, (Number(m[2]) - 1) * 7);
}

/** A week as the cohorts show it: "Week 11 · from 10 Mar 2031". */
export function formatWeek(week: string, lng: string, t: TFunction): string {
  const monday = mondayOf(week);
  return monday ? t('week', { week: Number(week.slice(6)), year: week.slice(0, 4), date: formatDate(monday, lng) }) : week;
}

/** A week in few characters, for a phone: "W11 · 10 Mar". */
export function formatWeekNarrow(week: string, lng: string, t: TFunction): string {
  const monday = mondayOf(week);
  if (!monday) return week;
  const date = new Intl.DateTimeFormat(locale(lng), { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(`${monday}T00:00:00Z`));
  return t('weekNarrow', { week: Number(week.slice(6)), date });
}

/** The most points a series is filled to (90 days by the hour is 2,160). */
const MAX_POINTS = 3000;

/**
 * Every period of a grouping from the first day to the last, in order: the series' chart draws a
 * period without tickets as zero rather than joining its neighbours over it.
 */
export function periodsOf(p: Periodo, grouping: Grouping): string[] | null {
  const days = daysBetween(p.inicio, p.fim) + 1;
  if (days <= 0 || (grouping === 'hora' ? days * 24 : days) > MAX_POINTS) return null;
  const keys: string[] = [];
  for (let i = 0; i < days; i++) {
    const day = addDays(p.inicio, i);
    if (grouping === 'hora') for (let h = 0; h < 24; h++) keys.push(`${day} ${String(h).padStart(2, '0')}:00`);
    else keys.push(grouping === 'dia' ? day : grouping === 'semana' ? isoWeek(day) : grouping === 'mes' ? day.slice(0, 7) : day.slice(0, 4));
  }
  return [...new Set(keys)];
}

/** A series' period as a chart's label, in the reader's language. */
export function formatSeriesKey(key: string, grouping: Grouping, lng: string, t: TFunction): string {
  switch (grouping) {
    case 'hora':
      return `${formatDate(key.slice(0, 10), lng)} ${key.slice(11)}`;
    case 'dia':
      return formatDate(key, lng);
    case 'semana': {
      const monday = mondayOf(key);
      return monday ? t('weekShort', { week: Number(key.slice(6)), date: formatDate(monday, lng) }) : key;
    }
    case 'mes':
      return new Intl.DateTimeFormat(locale(lng), { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${key}-01T00:00:00Z`));
    default:
      return key;
  }
}

/** An ISO weekday (1 Monday … 7 Sunday) in the reader's language. */
export function weekdayName(isoDay: number, lng: string): string {
  // 2024-01-01 was a Monday.
  return new Intl.DateTimeFormat(locale(lng), { weekday: 'long', timeZone: 'UTC' }).format(new Date(Date.UTC(2024, 0, isoDay)));
}

/** Date and time, short, in the reader's zone. */
export const formatClock = (ms: number, lng: string): string => new Intl.DateTimeFormat(locale(lng), { hour: '2-digit', minute: '2-digit' }).format(new Date(ms));
