/**
 * Breaking alerts by Web Push (issue 40), the use case of newsAlertsWorkflow's `sendPushAlerts`:
 * a batch of readers, each told on every browser they subscribed. Each push is encrypted to its
 * browser (RFC 8291, models/infra/web-push.ts), kept by the push service PUSH_ALERT_TTL_SECONDS for
 * a browser that is offline, urgency high, and under a Topic derived from the article: a push sent
 * again before the first reached the browser replaces it rather than adding a second.
 *
 * - `delivered`: the subscription's lastSuccessAt is set, and its id joins the attempt's ledger
 *   (`delivered`, kept by the activity in its heartbeat details), so a retried batch does not push
 *   it again;
 * - `gone` (404, 410): the subscription is removed (no fallback to another channel: the reader
 *   chose push, and their next alert goes wherever they can be reached then);
 * - `refused` (another 4xx, or our own checks): counted, not retried;
 * - `retry` (429, 5xx, no answer): the others go on, then the batch fails so that Temporal retries
 *   it, with only what was not delivered.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../../models/errors';
import type { WebPush } from '../../models/infra/web-push';
import type { ArticleQueries } from '../../models/news/article-query';
import type { PushSubscriptionDoc, PushSubscriptionRepo } from '../../models/news/push-subscription.repo';
import { PUSH_ALERT_TTL_SECONDS, pushAlertPayload } from '../../models/news/push-subscription.rules';
import type { PushRecipient } from './alerts';

export interface PushAlertsDeps {
  articles: Pick<ArticleQueries, 'alertArticle'>;
  pushSubscriptions: Pick<PushSubscriptionRepo, 'listForUsers' | 'removeGone' | 'markDelivered'>;
  /** Undefined when Web Push is not configured: nothing is sent. */
  webPush: Pick<WebPush, 'send'> | undefined;
  now: () => Date;
  /** Where a refused push is told (our configuration or our bug: worth an alert). */
  warn?: (message: string, meta: Record<string, unknown>) => void;
}

export interface PushAlertsAttempt {
  signal: AbortSignal;
  /** Subscriptions a previous attempt of this batch delivered to (its ledger). */
  delivered: readonly string[];
  /** Records the ledger as it grows (the activity heartbeats it). */
  progress(delivered: string[]): void;
}

export interface PushAlertsResult {
  /** Browsers that took the alert. */
  sent: number;
  /** Subscriptions the push service said are gone: removed. */
  gone: number;
  refused: number;
  /** Delivered by an earlier attempt of the batch. */
  skipped: number;
  /** Readers of the batch with no subscription left when it ran. */
  unsubscribed: number;
}

/** Pushes at once: the adapter keeps connections to each push service alive. */
const PUSH_CONCURRENCY = 8;

/** RFC 8030 §5.4's Topic for an article: 32 base64url characters of its id's SHA-256. */
export const pushTopic = (articleId: string): string => createHash('sha256').update(`article:${articleId}`).digest('base64url').slice(0, 32);

export async function sendPushAlerts(deps: PushAlertsDeps, input: { articleId: string; recipients: PushRecipient[] }, attempt: PushAlertsAttempt): Promise<PushAlertsResult> {
  const result: PushAlertsResult = { sent: 0, gone: 0, refused: 0, skipped: 0, unsubscribed: 0 };
  const article = await deps.articles.alertArticle(input.articleId);
  if (!article || !deps.webPush) {
    result.unsubscribed = input.recipients.length;
    return result;
  }
  const push = deps.webPush;
  const language = new Map(input.recipients.map((r) => [r.userId, r.language]));
  const subscriptions = await deps.pushSubscriptions.listForUsers([...language.keys()]);
  result.unsubscribed = [...language.keys()].filter((u) => !subscriptions.some((s) => s.userId === u)).length;
  const ledger = new Set(attempt.delivered);
  const payloads = new Map(
    (['pt', 'en'] as const).map((l) => [l, pushAlertPayload({ id: input.articleId, title: article.title, summary: article.summary, sourceName: article.sourceName, url: article.sourceUrl }, l)]),
  );
  const options = { ttlSeconds: PUSH_ALERT_TTL_SECONDS, urgency: 'high', topic: pushTopic(input.articleId) } as const;
  const retries: string[] = [];
  const queue = [...subscriptions];

  const pushOne = async (s: PushSubscriptionDoc): Promise<void> => {
    attempt.signal.throwIfAborted();
    if (ledger.has(s._id)) {
      result.skipped += 1;
      return;
    }
    const outcome = await push.send({ endpoint: s.endpoint, keys: s.keys }, payloads.get(language.get(s.userId) ?? 'pt')!, options);
    switch (outcome.kind) {
      case 'delivered':
        ledger.add(s._id);
        attempt.progress([...ledger]);
        await deps.pushSubscriptions.markDelivered(s._id, deps.now());
        result.sent += 1;
        return;
      case 'gone':
        await deps.pushSubscriptions.removeGone(s._id, s.keys);
        result.gone += 1;
        return;
      case 'refused':
        result.refused += 1;
        deps.warn?.('a push was refused', { articleId: input.articleId, subscriptionId: s._id, service: new URL(s.endpoint).host, status: outcome.status, reason: outcome.reason });
        return;
      case 'retry':
        retries.push(outcome.reason);
        return;
    }
  };
  await Promise.all(
    Array.from({ length: PUSH_CONCURRENCY }, async () => {
      for (let s = queue.shift(); s; s = queue.shift()) await pushOne(s);
    }),
  );
  if (retries.length > 0) {
    // Retried by Temporal (the batch's retry policy); what was delivered is in the ledger.
    throw new AppError('DEPENDENCY_UNAVAILABLE', `${retries.length} push(es) to be retried: ${retries[0]}`, { details: { dependency: 'push service' } });
  }
  return result;
}
