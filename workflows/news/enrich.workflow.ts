/**
 * The enrichment of one article (`news-enrich-<articleId>`): the model call with its retries, the
 * day's token budget (a spent budget makes the workflow sleep until it renews: the article waits,
 * visibly, in the Temporal UI as a timer, and nothing is lost), and the WhatsApp alerts of a
 * breaking article, started once (`whatsapp-alerts-<articleId>`).
 */
import { ApplicationFailure, patched, proxyActivities, setCurrentDetails, sleep } from '@temporalio/workflow';
import type { NewsActivities } from './activities';
import { startDetached } from '../detached';
import { TASK_QUEUES, workflowIds } from '../ids';
import { RETRY, withNonRetryable } from '../retry-policies';
import type { whatsappAlertsWorkflow } from '../whatsapp/alerts.workflow';
import type { newsAlertsWorkflow } from './alerts.workflow';


const { enrichArticle } = proxyActivities<NewsActivities>({
  startToCloseTimeout: '3 minutes',
  // The provider's 429 and 5xx, timeouts and a busy concurrency limit: retried with back-off (the
  // activity passes on a Retry-After). Answers that never validated and refused requests are not.
  retry: withNonRetryable(RETRY.model, ['EnrichmentInvalid', 'ProviderRejected']),
});
const { failEnrichment, alertsEnabled } = proxyActivities<NewsActivities>({ startToCloseTimeout: '30 seconds', retry: RETRY.record });

/** Breaking news older than this when enriched alerts nobody (as for imports). */
const ALERT_MAX_AGE_MS = 24 * 3_600_000;

export type NewsEnrichResult = { state: 'enriched'; published: boolean; alerted: boolean } | { state: 'gone' } | { state: 'failed'; error: string };

export async function newsEnrichWorkflow(input: { articleId: string }): Promise<NewsEnrichResult> {
  for (;;) {
    let outcome;
    try {
      outcome = await enrichArticle(input.articleId);
    } catch (err) {
      const cause = err instanceof ApplicationFailure ? err : ((err as { cause?: unknown }).cause as Error | undefined);
      const error = cause?.message ?? (err as Error).message;
      await failEnrichment(input.articleId, error);
      return { state: 'failed', error };
    }
    if (outcome.state === 'gone') return { state: 'gone' };
    if (outcome.state === 'waiting') {
      setCurrentDetails(`Waiting for the daily enrichment budget: resumes at ${outcome.resumeAt}`);
      await sleep(Math.max(1_000, new Date(outcome.resumeAt).getTime() - Date.now()));
      setCurrentDetails('');
      continue;
    }
    const fresh = Date.now() - new Date(outcome.publishedAt).getTime() <= ALERT_MAX_AGE_MS;
    const alerted = outcome.isBreaking && fresh ? await startAlerts(input.articleId, 'alertsEnabled' in outcome ? outcome.alertsEnabled : undefined) : false;
    return { state: 'enriched', published: outcome.published, alerted };
  }
}

/**
 * Starts the breaking article's WhatsApp alerts once (its id refuses a second start). Whether this
 * deployment sends alerts comes with the enrichment's answer; runs started before it did (their
 * histories have no marker of this patch), or whose answer came from an older worker, ask with
 * the `alertsEnabled` activity.
 */
async function startAlerts(articleId: string, enabled: boolean | undefined): Promise<boolean> {
  // Issue 40: alerts on every channel (e-mail is always there), one workflow per article.
  if (patched('news-alerts-every-channel')) {
    const every = { workflowId: workflowIds.newsAlerts(articleId), ownQueue: TASK_QUEUES.newsSources, queue: TASK_QUEUES.notify, args: [{ articleId }] as [{ articleId: string }], once: true };
    return await startDetached<typeof newsAlertsWorkflow>('newsAlertsWorkflow', every);
  }
  const known = patched('news-enrich-alerts-in-answer') && enabled !== undefined;
  if (!(known ? enabled : await alertsEnabled())) return false;
  const o = { workflowId: workflowIds.whatsappAlerts(articleId), ownQueue: TASK_QUEUES.newsSources, queue: TASK_QUEUES.whatsapp, args: [{ articleId }] as [{ articleId: string }], once: true };
  return await startDetached<typeof whatsappAlertsWorkflow>('whatsappAlertsWorkflow', o);
}
