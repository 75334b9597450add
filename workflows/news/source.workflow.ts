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
 */
import { condition, continueAsNew, defineQuery, defineSignal, proxyActivities, setCurrentDetails, setHandler, upsertMemo, workflowInfo } from '@temporalio/workflow';
import type { createNewsActivities } from '../../activities/news.activities';
import { startDetached } from '../detached';
import { TASK_QUEUES, workflowIds } from '../ids';
import type { newsEnrichWorkflow } from './enrich.workflow';

type NewsActivities = ReturnType<typeof createNewsActivities>;

/** Wakes the poller now: the source's settings changed, or an administrator asked for a poll. */
export const pollNowSignal = defineSignal('pollNow');

export interface SourcePollerStatus {
  polls: number;
  lastResult: 'ok' | 'not-modified' | 'failed' | null;
  consecutiveFailures: number;
  lastError: string | null;
  nextPollAt: string | null;
  itemsIngested: number;
}
export const pollerStatusQuery = defineQuery<SourcePollerStatus>('pollerStatus');

const { pollSource } = proxyActivities<NewsActivities>({
  startToCloseTimeout: '2 minutes',
  // Feed faults are health, not failures (the activity records them); what is retried here is the
  // database or MinIO being away.
  retry: { initialInterval: '5 seconds', maximumInterval: '2 minutes' },
});
/** A page whose fetch keeps failing (timeouts, 5xx) is given up after a few tries: the feed's summary stands in. */
const { ingestItem } = proxyActivities<NewsActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 3, maximumInterval: '5 minutes', maximumAttempts: 4 },
});
const { ingestItem: ingestItemWithoutPage } = proxyActivities<NewsActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumInterval: '2 minutes' },
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
  for (let round = 0; ; round++) {
    wake = false;
    const poll = await pollSource(input.sourceId);
    if (poll.state === 'stopped') {
      setCurrentDetails(`Stopped: the source was ${poll.reason}`);
      return { stopped: poll.reason };
    }
    const articleIds = await ingestAll(poll.newItemIds);
    for (const articleId of articleIds) await startEnrichment(articleId);
    Object.assign(status, {
      polls: status.polls + 1,
      lastResult: poll.result,
      consecutiveFailures: poll.consecutiveFailures,
      lastError: poll.error,
      nextPollAt: new Date(Date.now() + poll.nextPollInMs).toISOString(),
      itemsIngested: status.itemsIngested + poll.newItemIds.length,
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

/** Reads the new items, PAGES_AT_ONCE at a time, in feed order; the articles that wait for enrichment. */
async function ingestAll(itemIds: string[]): Promise<string[]> {
  const toEnrich: string[] = [];
  let next = 0;
  const lane = async () => {
    while (next < itemIds.length) {
      const itemId = itemIds[next++]!;
      let outcome;
      try {
        outcome = await ingestItem(itemId, { page: true });
      } catch {
        outcome = await ingestItemWithoutPage(itemId, { page: false });
      }
      if (outcome.enrich) toEnrich.push(outcome.articleId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PAGES_AT_ONCE, itemIds.length) }, lane));
  return toEnrich;
}

/** Starts an article's enrichment unless it runs already (a later re-enrichment may reuse the id). */
async function startEnrichment(articleId: string): Promise<void> {
  const o = { workflowId: workflowIds.newsEnrich(articleId), ownQueue: TASK_QUEUES.newsSources, queue: TASK_QUEUES.newsSources, args: [{ articleId }] as [{ articleId: string }] };
  await startDetached<typeof newsEnrichWorkflow>('newsEnrichWorkflow', o);
}
