/**
 * The poller of one news source (`news-source-<sourceId>`), long-lived while the source is enabled
 * (docs/decisions.md "Sources and enrichment": why a workflow per source rather than a schedule).
 *
 * Each round: poll the feed (the activity records the source's health and says when to poll next,
 * backed off after failures and never sooner than a Retry-After), read the new items' pages a
 * few at a time, start the enrichment of each new story (`news-enrich-<articleId>`), then sleep.
 * A signal wakes it early (the source was changed, or an administrator asked for a poll). A
 * deleted or disabled source ends it. Its memo and current details show the source's health in
 * the Temporal UI; history is kept short by continuing as new.
 *
 * Its activities retry a bounded number of times (workflows/retry-policies.ts). A poll that still
 * fails (the database or MinIO away for long) is recorded in the status like a failed feed, and the
 * poller tries again after a pause (pauseAfterGivingUpMs); an item that cannot be read even
 * without its page is left, and counted. The poller itself never fails for them.
 */
import { condition, continueAsNew, defineQuery, defineSignal, isCancellation, log, proxyActivities, setCurrentDetails, setHandler, upsertMemo, workflowInfo } from '@temporalio/workflow';
import type { NewsActivities } from './activities';
import { startDetached } from '../detached';
import { TASK_QUEUES, workflowIds } from '../ids';
import { pauseAfterGivingUpMs, RETRY } from '../retry-policies';
import type { newsEnrichWorkflow } from './enrich.workflow';


/** Wakes the poller now: the source's settings changed, or an administrator asked for a poll. */
export const pollNowSignal = defineSignal('pollNow');

export interface SourcePollerStatus {
  polls: number;
  lastResult: 'ok' | 'not-modified' | 'failed' | null;
  consecutiveFailures: number;
  lastError: string | null;
  nextPollAt: string | null;
  itemsIngested: number;
  /** Polls whose activity gave up after its retries (absent in runs started before it was counted). */
  pollsGivenUp?: number;
  /** New items that could not be read at all (absent in runs started before it was counted). */
  itemsLeft?: number;
}
export const pollerStatusQuery = defineQuery<SourcePollerStatus>('pollerStatus');

const { pollSource } = proxyActivities<NewsActivities>({
  startToCloseTimeout: '2 minutes',
  // Feed faults are health, not failures (the activity records them); what is retried here is the
  // database or MinIO being away.
  retry: RETRY.short,
});
/** A page whose fetch keeps failing (timeouts, 5xx) is given up after a few tries: the feed's summary stands in. */
const { ingestItem } = proxyActivities<NewsActivities>({
  startToCloseTimeout: '2 minutes',
  retry: RETRY.page,
});
const { ingestItem: ingestItemWithoutPage } = proxyActivities<NewsActivities>({
  startToCloseTimeout: '1 minute',
  retry: RETRY.short,
});

/** Pages read at once by one source's poller (each host has its own limit across workers, too). */
const PAGES_AT_ONCE = 4;
/** Polls per run before continuing as new (keeps the history short). */
const POLLS_PER_RUN = 50;

export async function newsSourceWorkflow(input: { sourceId: string; status?: SourcePollerStatus }): Promise<{ stopped: 'deleted' | 'disabled' }> {
  let wake = false;
  const status: SourcePollerStatus = input.status ?? { polls: 0, lastResult: null, consecutiveFailures: 0, lastError: null, nextPollAt: null, itemsIngested: 0 };
  setHandler(pollNowSignal, () => {
    wake = true;
  });
  setHandler(pollerStatusQuery, () => ({ ...status }));
  // Polls in a row whose activity gave up (not carried by continue-as-new: a new run starts afresh).
  let givenUp = 0;
  for (let round = 0; ; round++) {
    wake = false;
    let poll: Awaited<ReturnType<NewsActivities['pollSource']>>;
    try {
      poll = await pollSource(input.sourceId);
    } catch (err) {
      if (isCancellation(err)) throw err;
      givenUp += 1;
      const pause = pauseAfterGivingUpMs(givenUp);
      const error = `the poll failed after its retries: ${failureMessage(err)}`;
      log.warn('source poll given up', { sourceId: input.sourceId, error, pauseMs: pause });
      Object.assign(status, {
        lastResult: 'failed',
        consecutiveFailures: status.consecutiveFailures + 1,
        lastError: error,
        nextPollAt: new Date(Date.now() + pause).toISOString(),
        pollsGivenUp: (status.pollsGivenUp ?? 0) + 1,
      });
      upsertMemo({ health: { ...status } });
      setCurrentDetails(`Last poll failed after its retries (${error}); next poll at ${status.nextPollAt}`);
      await condition(() => wake, pause);
      if (round + 1 >= POLLS_PER_RUN || workflowInfo().continueAsNewSuggested) await continueAsNew<typeof newsSourceWorkflow>({ sourceId: input.sourceId, status });
      continue;
    }
    givenUp = 0;
    if (poll.state === 'stopped') {
      setCurrentDetails(`Stopped: the source was ${poll.reason}`);
      return { stopped: poll.reason };
    }
    const { toEnrich: articleIds, left } = await ingestAll(poll.newItemIds);
    for (const articleId of articleIds) await startEnrichment(articleId);
    Object.assign(status, {
      polls: status.polls + 1,
      lastResult: poll.result,
      consecutiveFailures: poll.consecutiveFailures,
      lastError: poll.error,
      nextPollAt: new Date(Date.now() + poll.nextPollInMs).toISOString(),
      itemsIngested: status.itemsIngested + poll.newItemIds.length,
      ...(left > 0 ? { itemsLeft: (status.itemsLeft ?? 0) + left } : {}),
    });
    upsertMemo({ health: { ...status } });
    setCurrentDetails(
      `Last poll: ${poll.result}${poll.error ? ` (${poll.error})` : ''}; ${poll.newItemIds.length} new items; ` +
        `${poll.consecutiveFailures} failures in a row; next poll at ${status.nextPollAt}`,
    );
    await condition(() => wake, poll.nextPollInMs);
    if (round + 1 >= POLLS_PER_RUN || workflowInfo().continueAsNewSuggested) await continueAsNew<typeof newsSourceWorkflow>({ sourceId: input.sourceId, status });
  }
}

/** An activity failure's own message (its cause's), not the wrapper's "Activity task failed". */
function failureMessage(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause;
  return (cause instanceof Error ? cause.message : undefined) ?? (err as Error).message;
}

/**
 * Reads the new items, PAGES_AT_ONCE at a time, in feed order; the articles that wait for
 * enrichment, and how many items could not be read even without their page (left as they are).
 */
async function ingestAll(itemIds: string[]): Promise<{ toEnrich: string[]; left: number }> {
  const toEnrich: string[] = [];
  let left = 0;
  let next = 0;
  const lane = async () => {
    while (next < itemIds.length) {
      const itemId = itemIds[next++]!;
      let outcome;
      try {
        outcome = await ingestItem(itemId, { page: true });
      } catch (err) {
        if (isCancellation(err)) throw err;
        try {
          outcome = await ingestItemWithoutPage(itemId, { page: false });
        } catch (again) {
          if (isCancellation(again)) throw again;
          left += 1;
          log.warn('news item left unread after its retries', { itemId, error: failureMessage(again) });
          continue;
        }
      }
      if (outcome.enrich) toEnrich.push(outcome.articleId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PAGES_AT_ONCE, itemIds.length) }, lane));
  return { toEnrich, left };
}

/** Starts an article's enrichment unless it runs already (a later re-enrichment may reuse the id). */
async function startEnrichment(articleId: string): Promise<void> {
  const o = { workflowId: workflowIds.newsEnrich(articleId), ownQueue: TASK_QUEUES.newsSources, queue: TASK_QUEUES.newsSources, args: [{ articleId }] as [{ articleId: string }] };
  await startDetached<typeof newsEnrichWorkflow>('newsEnrichWorkflow', o);
}
