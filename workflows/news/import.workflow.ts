/**
 * One article import (workflow id `news-import-<importId>`): applies the staged JSON lines, batch
 * by batch, resuming from the last saved batch when the activity is retried; a database or
 * storage outage is waited out. Imports run side by side: the unique index on the normalised
 * source URL decides duplicates (docs/decisions.md "Imports").
 */
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { createNewsActivities } from '../../activities/news.activities';

export const { applyImport } = proxyActivities<ReturnType<typeof createNewsActivities>>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '2 minutes',
  // A bad import (missing record or staged file) is not retried.
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: ['ImportUnusable'] },
});
export const { failImport } = proxyActivities<ReturnType<typeof createNewsActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
});

export type NewsImportResult = { state: 'completed'; inserted: number; duplicates: number; invalid: number } | { state: 'failed'; error: string };

export async function newsImportWorkflow(importId: string): Promise<NewsImportResult> {
  try {
    return { state: 'completed', ...(await applyImport(importId)) };
  } catch (err) {
    const cause = err instanceof ApplicationFailure ? err : ((err as { cause?: unknown }).cause as Error | undefined);
    const error = cause?.message ?? (err as Error).message;
    await failImport(importId, error);
    return { state: 'failed', error };
  }
}
