/** Dates and numbers in the reader's language, for the quiz pages. */
const locale = (lng: string) => (lng === 'pt' ? 'pt-BR' : 'en-GB');

/** A calendar day (YYYY-MM-DD) as the reader writes it, with its weekday: "Tue, 24 Nov 2026". */
export const formatDay = (day: string, lng: string): string =>
  new Intl.DateTimeFormat(locale(lng), { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));

/** A whole number with the reader's separators. */
export const formatNumber = (n: number, lng: string): string => new Intl.NumberFormat(locale(lng)).format(n);

/** A duration in milliseconds as hours (or minutes). */
export function formatWindow(ms: number, lng: string): { unit: 'hours' | 'minutes'; value: string } {
  const hours = ms / 3_600_000;
  if (hours >= 1) return { unit: 'hours', value: new Intl.NumberFormat(locale(lng), { maximumFractionDigits: 1 }).format(hours) };
  return { unit: 'minutes', value: new Intl.NumberFormat(locale(lng), { maximumFractionDigits: 0 }).format(ms / 60_000) };
}

/** Today in the reader's time zone, YYYY-MM-DD. */
export function localToday(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
