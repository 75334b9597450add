/**
 * Who is alerted of a breaking article (WhatsApp today, issue 15; every channel a reader turns on
 * next): a reader whose preferences follow it by sector, topic, watchlist company or ticker, or by
 * a keyword all of whose terms the article holds. Pure: the candidates' query
 * (preferences.repo alertCandidates) narrows by what an index can answer, and this decides.
 */
import { terms as termsOf } from './text.rules';

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

/** Whether the reader follows the article (a keyword: every one of its terms in the article). */
export function followsArticle(p: AlertFollows, article: AlertTarget): boolean {
  const terms = new Set(article.terms);
  return (
    p.sectors.includes(article.primarySector) ||
    p.topics.includes(article.primaryTopic) ||
    p.watchlistCompanies.some((c) => article.entityIds.includes(c)) ||
    p.watchlistTickers.some((t) => article.tickers.includes(t)) ||
    p.keywords.some((k) => {
      const words = termsOf(k);
      return words.length > 0 && words.every((t) => terms.has(t));
    })
  );
}

/** The hour an alert counts against (the per-phone hourly cap). */
export const alertHour = (now: Date) => new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
