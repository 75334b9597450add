/**
 * One article import (workflow id `news-import-<importId>`): applies the staged JSON lines, batch
 * by batch, resuming from the last saved batch when the activity is retried; a database or
 * storage outage is waited out. Imports run side by side: the unique index on the normalised
 * source URL decides duplicates (docs/decisions.md "Imports"). Then, when WhatsApp is configured,
 * it starts the alerts of each breaking article it inserted (`whatsapp-alerts-<articleId>`, once
 * per article; they outlive the import), and the enrichment of each article whose line asked for
 * it (`news-enrich-<articleId>`, on the news sources queue; they outlive the import too).
 */
import { ApplicationFailure, patched, proxyActivities } from '@temporalio/workflow';
import type { NewsActivities } from './activities';
import { startDetached } from '../detached';
import { TASK_QUEUES, workflowIds } from '../ids';
import { RETRY, withNonRetryable } from '../retry-policies';
import type { whatsappAlertsWorkflow } from '../whatsapp/alerts.workflow';
import type { newsAlertsWorkflow } from './alerts.workflow';
import type { newsEnrichWorkflow } from './enrich.workflow';

export const { applyImport } = proxyActivities<NewsActivities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '2 minutes',
  // An outage is waited out for a while (each attempt resumes from the last saved batch, and an
  // abandoned attempt stops its own work); then the import is marked failed. A bad import
  // (missing record or staged file) is not retried.
  retry: withNonRetryable(RETRY.chunk, ['ImportUnusable']),
});
export const { failImport, breakingOfImport, enrichmentsOfImport } = proxyActivities<NewsActivities>({
  startToCloseTimeout: '30 seconds',
  retry: RETRY.record,
});

export type NewsImportResult = { state: 'completed'; inserted: number; duplicates: number; invalid: number; alerts?: number; enrichments?: number } | { state: 'failed'; error: string };

/** Starts the enrichment (`news-enrich-<articleId>`) of each article whose line asked for it; how many were started. */
async function startEnrichments(importId: string): Promise<number> {
  let started = 0;
  for (const articleId of await enrichmentsOfImport(importId)) {
    const o = { workflowId: workflowIds.newsEnrich(articleId), ownQueue: TASK_QUEUES.news, queue: TASK_QUEUES.newsSources, args: [{ articleId }] as [{ articleId: string }] };
    if (await startDetached<typeof newsEnrichWorkflow>('newsEnrichWorkflow', o)) started += 1;
  }
  return started;
}

/** Starts the alerts of the breaking articles an import inserted (once per article); how many were started. */
async function startAlerts(importId: string): Promise<number> {
  const { articleIds, whatsapp } = await breakingOfImport(importId);
  let started = 0;
  // Issue 40: alerts on every channel (e-mail is always there), one workflow per article.
  if (patched('news-alerts-every-channel')) {
    for (const articleId of articleIds) {
      const o = { workflowId: workflowIds.newsAlerts(articleId), ownQueue: TASK_QUEUES.news, queue: TASK_QUEUES.notify, args: [{ articleId }] as [{ articleId: string }], once: true };
      if (await startDetached<typeof newsAlertsWorkflow>('newsAlertsWorkflow', o)) started += 1;
    }
    return started;
  }
  if (!whatsapp) return 0;
  for (const articleId of articleIds) {
    const o = { workflowId: workflowIds.whatsappAlerts(articleId), ownQueue: TASK_QUEUES.news, queue: TASK_QUEUES.whatsapp, args: [{ articleId }] as [{ articleId: string }], once: true };
    if (await startDetached<typeof whatsappAlertsWorkflow>('whatsappAlertsWorkflow', o)) started += 1;
  }
  return started;
}

export async function newsImportWorkflow(importId: string): Promise<NewsImportResult> {
  let counts: Awaited<ReturnType<typeof applyImport>>;
  try {
    counts = await applyImport(importId);
  } catch (err) {
    const cause = err instanceof ApplicationFailure ? err : ((err as { cause?: unknown }).cause as Error | undefined);
    const error = cause?.message ?? (err as Error).message;
    await failImport(importId, error);
    return { state: 'failed', error };
  }
  if (!patched('whatsapp-breaking-alerts')) return { state: 'completed', ...counts };
  const alerts = await startAlerts(importId);
  if (!patched('news-import-enrichments')) return { state: 'completed', ...counts, alerts };
  return { state: 'completed', ...counts, alerts, enrichments: await startEnrichments(importId) };
}
