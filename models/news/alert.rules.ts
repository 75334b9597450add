/**
 * What an alert needs of its article and of a reader's preferences (issues 15 and 40), and the
 * hour an alert counts against. Who is told, and how, is audience.rules.
 */

/** What an alert needs of its article. */
export interface AlertTarget {
  _id: string;
  title: string;
  isBreaking: boolean;
  primarySector: string;
  primaryTopic: string;
  entityIds: string[];
  tickers: string[];
  terms: string[];
  baseScore: number;
}

/** What an alert needs of a reader's preferences. */
export interface AlertFollows {
  _id: string;
  sectors: string[];
  topics: string[];
  watchlistCompanies: string[];
  watchlistTickers: string[];
  keywords: string[];
}

/** The hour an alert counts against (the per-phone hourly cap). */
export const alertHour = (now: Date) => new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
