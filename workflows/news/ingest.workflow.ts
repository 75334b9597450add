/**
 * Deprecated, to be removed in the release after next: the single-writer import queue that
 * earlier releases signalled. Nothing starts it any more (each import now runs its own
 * `newsImportWorkflow`); it stays registered so a run started before the upgrade drains its
 * queue and ends (after a minute without work). Its recorded history keeps replay honest.
 */
import { ApplicationFailure, condition, continueAsNew, defineQuery, defineSignal, setHandler, workflowInfo } from '@temporalio/workflow';
import { applyImport, failImport } from './import.workflow';

export const enqueueImportSignal = defineSignal<[string]>('enqueueImport');
export const pendingImportsQuery = defineQuery<string[]>('pendingImports');

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
