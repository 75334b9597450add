/** Dates and numbers in the reader's language, for the AI pages. */
const locale = (lng: string) => (lng === 'pt' ? 'pt-BR' : 'en-GB');

/** A whole number with the reader's separators. */
export const formatNumber = (n: number, lng: string): string => new Intl.NumberFormat(locale(lng)).format(n);

/** A calendar day (YYYY-MM-DD) as the reader writes it: "24 Nov 2026". */
export const formatDay = (day: string, lng: string): string => new Intl.DateTimeFormat(locale(lng), { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));

/** A UTC day `days` before today (YYYY-MM-DD), as the API counts usage days. */
export const utcDaysAgo = (days: number, now: Date = new Date()): string => new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);
