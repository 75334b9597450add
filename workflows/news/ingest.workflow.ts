/**
 * Deprecated, to be removed in the release after next: the single-writer import queue that
 * earlier releases signalled. Nothing starts it any more (each import now runs its own
 * `newsImportWorkflow`); it stays registered so a run started before the upgrade drains its
 * queue and ends (after a minute without work). Its recorded history keeps replay honest.
 */
import { ApplicationFailure, condition, continueAsNew, defineQuery, defineSignal, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { createNewsActivities } from '../../activities/news.activities';

export const enqueueImportSignal = defineSignal<[string]>('enqueueImport');
export const pendingImportsQuery = defineQuery<string[]>('pendingImports');

const { applyImport } = proxyActivities<ReturnType<typeof createNewsActivities>>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '2 minutes',
  // Database or storage outages are waited out; a bad import (missing record/object) is not retried.
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: ['ImportUnusable'] },
});
const { failImport } = proxyActivities<ReturnType<typeof createNewsActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
});

export interface NewsIngestInput {
  pending: string[];
}

const IMPORTS_PER_RUN = 100;

export async function newsIngestWorkflow(input: NewsIngestInput): Promise<{ processed: number }> {
  const pending = [...input.pending];
  setHandler(enqueueImportSignal, (id) => {
    if (!pending.includes(id)) pending.push(id);
  });
  setHandler(pendingImportsQuery, () => [...pending]);
  let processed = 0;
  for (;;) {
    if (pending.length === 0 && !(await condition(() => pending.length > 0, '1 minute'))) return { processed };
    const id = pending[0]!;
    try {
      await applyImport(id);
    } catch (err) {
      const cause = err instanceof ApplicationFailure ? err : ((err as { cause?: unknown }).cause as Error | undefined);
      await failImport(id, cause?.message ?? (err as Error).message);
    }
    pending.shift();
    processed++;
    if (processed >= IMPORTS_PER_RUN || workflowInfo().continueAsNewSuggested) await continueAsNew<typeof newsIngestWorkflow>({ pending });
  }
}
