/**
 * Appending the news events of published articles (issue 40): called where an article is published,
 * by the source pipeline (operations/news/enrich-article.ts, including a retried publish that finds
 * the article already inserted) and by imports (operations/news/ingest.ts, fresh articles only).
 * Idempotent: an article already in the log is not appended again (event-log.repo.ts).
 */
import type { EventLogRepo } from '../../models/events/event-log.repo';
import { eventKeyOf } from '../../models/events/event.rules';
import type { ArticleDoc } from '../../models/news/article.rules';

/** Articles published longer ago than this are archive: an import of them emits no event. */
export const EVENT_MAX_AGE_MS = 24 * 3_600_000;

export interface PublishDeps {
  events: Pick<EventLogRepo, 'appendArticles'>;
  /**
   * Starts the webhook fan-out of the events (operations/events/webhook-fanout.ts), once per
   * event: right after the append, for low latency. Absent where no Temporal client is at hand.
   */
  webhookFanOut?: ((eventKeys: readonly string[]) => Promise<void>) | undefined;
}

/**
 * Appends the event of each article (published now, or published before and not yet appended),
 * then starts their webhook fan-outs. A start that fails is left to the relay (every minute, for
 * events not dispatched): the publication stands, and is not repeated for it.
 */
export async function publishEvents(deps: PublishDeps, articles: readonly ArticleDoc[]): Promise<{ articleId: string; seq: number; appended: boolean }[]> {
  if (articles.length === 0) return [];
  const appended = await deps.events.appendArticles(articles);
  await deps.webhookFanOut?.(appended.map((e) => eventKeyOf(e.articleId))).catch(() => undefined);
  return appended;
}

/** An imported article is news, not archive: published within EVENT_MAX_AGE_MS of `now`. */
export const isFresh = (a: Pick<ArticleDoc, 'publishedAt'>, now: Date): boolean => now.getTime() - a.publishedAt.getTime() <= EVENT_MAX_AGE_MS;
