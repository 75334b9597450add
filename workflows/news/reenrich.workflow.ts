/**
 * Re-enriching the articles a filter matched (`news-reenrich-<operationId>`), after a prompt or
 * model change. The articles go in chunks, one activity call per chunk (their ids are read by the
 * activity from the operation's record, never carried in history), each article enriched in turn.
 *
 * - The day's token budget spent: the chunk stops and says from which article and until when; the
 *   workflow sleeps until then (a timer in the Temporal UI) and goes on from that article.
 * - A provider outage fails the chunk call, which Temporal retries with back-off; the retry resumes
 *   at the article it stopped at.
 * - Cancelling stops between articles; the operation is then marked cancelled, with what was done kept.
 * - No WhatsApp alerts: these are corrections of articles readers already had, often days old,
 *   and a breaking article was alerted (or not) when it was first enriched.
 */
import { ActivityCancellationType, ActivityFailure, CancellationScope, isCancellation, proxyActivities, setCurrentDetails, sleep } from '@temporalio/workflow';
import type { NewsActivities } from './activities';
import { chunkRanges, type ReenrichWorkflowInput } from '../../models/news/reenrich.rules';
import { RETRY } from '../retry-policies';


const { reenrichChunk } = proxyActivities<NewsActivities>({
  // A chunk is REENRICH_CHUNK_SIZE model calls of up to a few minutes each; the heartbeat, sent
  // while each call runs, is what notices a worker that died.
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '1 minute',
  // On cancel, wait until the chunk has stopped (between articles) before marking the operation.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  // The provider's 429, 5xx and timeouts, a busy concurrency limit, the database away: retried,
  // after the provider's Retry-After when it gave one, a bounded number of times; then the
  // operation is marked failed.
  retry: RETRY.model,
});
const { finishReenrichment } = proxyActivities<NewsActivities>({ startToCloseTimeout: '30 seconds', retry: RETRY.record });

export async function newsReenrichWorkflow(input: ReenrichWorkflowInput): Promise<{ state: 'completed' }> {
  const { operationId } = input;
  try {
    for (const [start, end] of chunkRanges(input.total, input.chunkSize)) {
      let from = start;
      for (;;) {
        const outcome = await reenrichChunk({ operationId, start: from, end });
        if (outcome.state === 'finished') break;
        setCurrentDetails(`Waiting for the daily enrichment budget: resumes at ${outcome.waitUntil} with article ${outcome.next + 1} of ${input.total}`);
        await sleep(Math.max(1_000, new Date(outcome.waitUntil).getTime() - Date.now()));
        setCurrentDetails('');
        from = outcome.next;
      }
    }
    // Inside the try: a cancellation that came as the last chunk finished stops this call, and
    // the operation is then marked cancelled rather than left running.
    await finishReenrichment({ operationId, state: 'completed', error: null });
  } catch (err) {
    const state = isCancellation(err) ? 'cancelled' : 'failed';
    const error = state === 'failed' ? ((err instanceof ActivityFailure ? err.cause?.message : undefined) ?? (err as Error).message) : null;
    await CancellationScope.nonCancellable(() => finishReenrichment({ operationId, state, error }));
    throw err;
  }
  return { state: 'completed' };
}
