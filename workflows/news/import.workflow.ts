/**
 * One article import (workflow id `news-import-<importId>`): applies the staged JSON lines, batch
 * by batch, resuming from the last saved batch when the activity is retried; a database or
 * storage outage is waited out. Imports run side by side: the unique index on the normalised
 * source URL decides duplicates (docs/decisions.md "Imports"). Then, when WhatsApp is configured,
 * it starts the alerts of each breaking article it inserted (`whatsapp-alerts-<articleId>`, once
 * per article; they outlive the import), and the enrichment of each article whose line asked for
 * it (`news-enrich-<articleId>`, on the news sources queue; they outlive the import too).
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ApplicationFailure, ParentClosePolicy, patched, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import type { createNewsActivities } from '../../activities/news.activities';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../ids';
import type { whatsappAlertsWorkflow } from '../whatsapp/alerts.workflow';
import type { newsEnrichWorkflow } from './enrich.workflow';

export const { applyImport } = proxyActivities<ReturnType<typeof createNewsActivities>>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '2 minutes',
  // A bad import (missing record or staged file) is not retried.
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: ['ImportUnusable'] },
});
export const { failImport, breakingOfImport, enrichmentsOfImport } = proxyActivities<ReturnType<typeof createNewsActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
});

export type NewsImportResult = { state: 'completed'; inserted: number; duplicates: number; invalid: number; alerts?: number; enrichments?: number } | { state: 'failed'; error: string };

/** Starts the enrichment (`news-enrich-<articleId>`) of each article whose line asked for it; how many were started. */
async function startEnrichments(importId: string): Promise<number> {
  const articleIds = await enrichmentsOfImport(importId);
  const queue = workflowInfo().taskQueue;
  const prefix = queue.endsWith(TASK_QUEUES.news) ? queue.slice(0, -TASK_QUEUES.news.length) : '';
  let started = 0;
  for (const articleId of articleIds) {
    try {
      await startChild<typeof newsEnrichWorkflow>('newsEnrichWorkflow', {
        workflowId: workflowIds.newsEnrich(articleId),
        taskQueue: taskQueueName(prefix, TASK_QUEUES.newsSources),
        args: [{ articleId }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
      started += 1;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err; // being enriched already
    }
  }
  return started;
}

/** Starts the WhatsApp alerts of the breaking articles an import inserted; how many were started. */
async function startAlerts(importId: string): Promise<number> {
  const { articleIds, whatsapp } = await breakingOfImport(importId);
  if (!whatsapp) return 0;
  // This worker's deployment prefix: its own queue's name less the news queue's.
  const queue = workflowInfo().taskQueue;
  const prefix = queue.endsWith(TASK_QUEUES.news) ? queue.slice(0, -TASK_QUEUES.news.length) : '';
  let started = 0;
  for (const articleId of articleIds) {
    try {
      await startChild<typeof whatsappAlertsWorkflow>('whatsappAlertsWorkflow', {
        workflowId: workflowIds.whatsappAlerts(articleId),
        taskQueue: taskQueueName(prefix, TASK_QUEUES.whatsapp),
        args: [{ articleId }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
      started += 1;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err; // alerted already
    }
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
