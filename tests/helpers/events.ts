/** Articles and news events for the event log's tests (unit and integration). */
import { randomUUID } from 'node:crypto';
import type { ArticleDoc } from '../../models/news/article.rules';
import { derivedKeys } from '../../models/news/ingest.rules';
import { eventOf, type NewsEvent } from '../../models/events/event.rules';

/** An enriched article with sentiment, scoring and classification data, published `now`. */
export function eventArticle(over: Partial<ArticleDoc> = {}, now = new Date()): ArticleDoc {
  const n = randomUUID();
  const base = {
    _id: randomUUID(),
    sourceName: 'Valor',
    sourceUrl: `https://events.example/${n}`,
    title: `Petrobras anuncia dividendos ${n.slice(0, 6)}`,
    subtitle: null,
    summary: 'Resumo.',
    publishedAt: now,
    primarySector: 'ENE' as const,
    primaryTopic: 'DIV' as const,
    contentType: 'NEWS' as const,
    urgencyLevel: 'MEDIUM' as const,
    isBreaking: false,
    isExclusive: false,
    language: 'pt',
    baseScore: 60,
    modules: {
      sentiment: { score: 0.5, label: 'POSITIVO' as const, confidence: 0.9 },
      scoring: { relevance: 60, credibility: 60, depth: 60, timeliness: 60, originality: 60, overall: 60 },
      classification: { secondarySectors: [], secondaryTopics: [], keywords: ['petrobras'] },
    },
    entityIds: [] as string[],
    tickers: [] as string[],
    createdAt: now,
    ...over,
  };
  return { ...base, ...derivedKeys(base) } as ArticleDoc;
}

/** The event numbered `seq` of an article. */
export const eventAt = (seq: number, over: Partial<ArticleDoc> = {}, at = new Date()): NewsEvent => ({ _id: seq, ...eventOf(eventArticle(over, at), at) });
