/**
 * A bulk ticket operation: its tickets in chunks, one activity per chunk (ids are read by the
 * activity, never carried in history). Cancelling the workflow stops it between tickets; the
 * operation is then marked cancelled with what was done kept.
 */
import { ActivityCancellationType, CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { SupportActivities } from './activities';
import { chunkRanges, type BulkWorkflowInput } from '../../models/support/bulk.rules';
import { RETRY } from '../retry-policies';

const { processBulkChunk } = proxyActivities<SupportActivities>({
  // The heartbeat (each group, each ticket, and during a draft's model call) is what notices a
  // stuck attempt; this only caps one. A chunk of AI drafts (200 calls of up to 60 s) may take
  // longer than 10 minutes, and a try cut short by this timeout counts against the bounded retries.
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '30 seconds',
  // On cancel, wait until the chunk has stopped and saved its progress before marking the operation.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  // A bounded number of attempts, each resuming where the last stopped (its heartbeat) and each
  // stopping its own database work when abandoned; then the operation is marked failed.
  retry: RETRY.chunk,
});
const { finishBulkOperation } = proxyActivities<SupportActivities>({
  startToCloseTimeout: '30 seconds',
  retry: RETRY.record,
});

export async function bulkTicketOperationWorkflow(input: BulkWorkflowInput): Promise<{ state: string }> {
  try {
    for (const [start, end] of chunkRanges(input.total, input.chunkSize)) {
      await processBulkChunk({ operationId: input.operationId, start, end });
    }
    // Inside the try: a cancellation that came as the last chunk finished stops this call, and
    // the operation is then marked cancelled rather than left running.
    await finishBulkOperation({ operationId: input.operationId, state: 'completed' });
  } catch (err) {
    const state = isCancellation(err) ? 'cancelled' : 'failed';
    await CancellationScope.nonCancellable(() => finishBulkOperation({ operationId: input.operationId, state }));
    throw err;
  }
  return { state: 'completed' };
}
