/**
 * A bulk ticket operation: its tickets in chunks, one activity per chunk (ids are read by the
 * activity, never carried in history). Cancelling the workflow stops it between tickets; the
 * operation is then marked cancelled with what was done kept.
 */
import { ActivityCancellationType, CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { createSupportActivities } from '../../activities/support.activities';
import { chunkRanges, type BulkWorkflowInput } from '../../models/support/bulk.rules';

const { processBulkChunk } = proxyActivities<ReturnType<typeof createSupportActivities>>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  // On cancel, wait until the chunk has stopped and saved its progress before marking the operation.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
const { finishBulkOperation } = proxyActivities<ReturnType<typeof createSupportActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
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
