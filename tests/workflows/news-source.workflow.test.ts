/**
 * newsSourceWorkflow and newsEnrichWorkflow on the time-skipping test server with mocked
 * activities: the poller's rhythm (interval after a success, the back-off the activity asks for
 * after failures), pages read with a fallback to the feed's summary, enrichment started once per
 * new story, a wake-up signal, the end of a disabled source; and the enrichment's budget wait,
 * its failure record, and the breaking alert started once.
 */
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { newsEnrichWorkflow } from '../../workflows/news/enrich.workflow';
import { newsSourceWorkflow, pollNowSignal, pollerStatusQuery } from '../../workflows/news/source.workflow';
import type { PollOutcome } from '../../models/news/sources/source.rules';
import { mockedActivitiesWorker, quiescent, until, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const suite = workflowSuite();
const MINUTE = 60_000;

type Poll = PollOutcome;

function sourceActivities(polls: Poll[], opts: { failPage?: Set<string> } = {}) {
  let n = 0;
  return {
    pollSource: jest.fn(async (_sourceId: string) => polls[Math.min(n++, polls.length - 1)]!),
    ingestItem: jest.fn(async (itemId: string, o: { page: boolean }) => {
      if (o.page && opts.failPage?.has(itemId)) throw ApplicationFailure.create({ message: 'page timed out' });
      return { state: 'extracted' as const, articleId: `article-${itemId}`, enrich: !itemId.startsWith('dup') };
    }),
    // The enrichment children run on the same queue: their activities answer "gone" at once.
    enrichArticle: jest.fn(async (_articleId: string) => ({ state: 'gone' as const })),
    failEnrichment: jest.fn(async () => undefined),
    alertsEnabled: jest.fn(async () => false),
  };
}

const polled = (newItemIds: string[], over: Partial<Extract<Poll, { state: 'polled' }>> = {}): Poll => ({
  state: 'polled',
  result: 'ok',
  newItemIds,
  nextPollInMs: 5 * MINUTE,
  consecutiveFailures: 0,
  error: null,
  ...over,
});

it('polls, reads new items (a failing page falls back to the summary), starts one enrichment per new story, sleeps as told, and ends when the source is disabled', async () => {
  const sourceId = randomUUID();
  const acts = sourceActivities(
    [
      polled(['i1', 'i2', 'dup3']),
      polled([], { result: 'failed', error: 'HTTP 503', consecutiveFailures: 1, nextPollInMs: 17 * MINUTE }),
      { state: 'stopped', reason: 'disabled' },
    ],
    { failPage: new Set(['i2']) },
  );
  // The deployment's news-sources queue: the enrichments it starts run there too (on this worker).
  const queue = taskQueueName(`t${randomUUID().slice(0, 6)}-`, TASK_QUEUES.newsSources);
  const worker = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle, taskQueue: queue });
  const started = Date.now();
  const result = await worker.run(async () => {
    const handle = await suite.client.start(newsSourceWorkflow, { taskQueue: worker.taskQueue, workflowId: workflowIds.newsSource(sourceId), args: [{ sourceId }] });
    return await handle.result();
  });
  expect(result).toEqual({ stopped: 'disabled' });
  expect(acts.pollSource).toHaveBeenCalledTimes(3);
  // i2's page failed 4 times, then it was taken without its page.
  expect(acts.ingestItem.mock.calls.filter(([id]) => id === 'i2').map(([, o]) => o.page)).toEqual([true, true, true, true, false]);
  const enriched = acts.enrichArticle.mock.calls.map(([id]) => id).sort();
  expect(enriched).toEqual(['article-i1', 'article-i2']);
  // Slept 5 minutes, then the 17 the back-off asked for (time-skipped: seconds of real time).
  const { events } = await suite.client.getHandle(workflowIds.newsSource(sourceId)).fetchHistory();
  const timers = (events ?? []).flatMap((e) => (e.timerStartedEventAttributes ? [Number(e.timerStartedEventAttributes.startToFireTimeout?.seconds)] : []));
  expect(timers).toEqual([300, 1_020]);
  expect(Date.now() - started).toBeLessThan(50_000);
});

it('a pollNow signal wakes a sleeping poller at once, and its status query shows the last poll', async () => {
  const sourceId = randomUUID();
  const acts = sourceActivities([polled(['a']), polled(['b']), polled([], { nextPollInMs: 60 * MINUTE })]);
  const worker = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle, taskQueue: taskQueueName(`t${randomUUID().slice(0, 6)}-`, TASK_QUEUES.newsSources) });
  await worker.run(async () => {
    const handle = await suite.env.client.workflow.start(newsSourceWorkflow, { taskQueue: worker.taskQueue, workflowId: workflowIds.newsSource(sourceId), args: [{ sourceId }] });
    await until(() => acts.pollSource.mock.calls.length, (n) => n >= 1);
    await handle.signal(pollNowSignal);
    await until(() => acts.pollSource.mock.calls.length, (n) => n >= 2);
    const status = await until(() => handle.query(pollerStatusQuery), (s) => s.polls >= 2);
    expect(status).toMatchObject({ polls: 2, lastResult: 'ok', consecutiveFailures: 0, itemsIngested: 2 });
    await quiescent(handle);
    await handle.terminate('test over');
  });
  expect(acts.pollSource.mock.calls.length).toBe(2);
});

function enrichActivities(outcomes: unknown[], alerts = true) {
  let n = 0;
  return {
    enrichArticle: jest.fn(async (_id: string) => {
      const o = outcomes[Math.min(n++, outcomes.length - 1)];
      if (o instanceof Error) throw o;
      return o;
    }),
    failEnrichment: jest.fn(async (_id: string, _error: string) => undefined),
    alertsEnabled: jest.fn(async () => alerts),
    pollSource: jest.fn(),
    ingestItem: jest.fn(),
  };
}

/*
 * On a test server of its own: it waits on a 7-hour timer, which a time-skipping server whose
 * clock an earlier test left locked (Temporal's Java test server leaks a lock when work is cut
 * off in flight: temporalio/sdk-java#1138, #3088) waits in real time (seen in CI: a timeout).
 */
describe('the budget wait', () => {
  const budget = workflowSuite();

  it("enrichment waits for the budget to renew (a timer until then), then enriches; a fresh breaking article starts its alerts on the deployment's notify queue", async () => {
    const articleId = randomUUID();
    const prefix = `t${randomUUID().slice(0, 6)}-`;
    const now = await budget.env.currentTimeMs(); // the server's clock
    const resumeAt = new Date(now + 7 * 3_600_000).toISOString();
    const acts = enrichActivities([
      { state: 'waiting', resumeAt },
      { state: 'enriched', published: true, isBreaking: true, publishedAt: new Date(now).toISOString() },
    ]);
    const worker = await mockedActivitiesWorker(budget.env, acts, { bundle: budget.bundle, taskQueue: taskQueueName(prefix, TASK_QUEUES.newsSources) });
    const result = await worker.run(() => budget.client.execute(newsEnrichWorkflow, { taskQueue: worker.taskQueue, workflowId: workflowIds.newsEnrich(articleId), args: [{ articleId }] }));
    expect(result).toEqual({ state: 'enriched', published: true, alerted: true });
    const child = budget.client.getHandle(workflowIds.newsAlerts(articleId));
    const described = await child.describe();
    expect([described.type, described.taskQueue, described.status.name]).toEqual(['newsAlertsWorkflow', taskQueueName(prefix, TASK_QUEUES.notify), 'RUNNING']);
    await child.terminate('test over');
    expect(result).toEqual({ state: 'enriched', published: true, alerted: true });
    expect(acts.enrichArticle).toHaveBeenCalledTimes(2);
    const { events } = await budget.client.getHandle(workflowIds.newsEnrich(articleId)).fetchHistory();
    const timer = (events ?? []).find((e) => e.timerStartedEventAttributes)?.timerStartedEventAttributes;
    expect(Number(timer?.startToFireTimeout?.seconds)).toBeGreaterThan(6.9 * 3_600);
  });
});

it('an answer that never validated is not retried: the failure is recorded and the run says so; a provider outage is retried', async () => {
  const articleId = randomUUID();
  const invalid = enrichActivities([ApplicationFailure.create({ type: 'EnrichmentInvalid', message: 'the model answered 3 times with invalid data' })]);
  const w1 = await mockedActivitiesWorker(suite.env, invalid, { bundle: suite.bundle });
  const failed = await w1.run(() => suite.client.execute(newsEnrichWorkflow, { taskQueue: w1.taskQueue, workflowId: workflowIds.newsEnrich(articleId), args: [{ articleId }] }));
  expect(failed).toEqual({ state: 'failed', error: 'the model answered 3 times with invalid data' });
  expect(invalid.enrichArticle).toHaveBeenCalledTimes(1);
  expect(invalid.failEnrichment.mock.calls).toEqual([[articleId, 'the model answered 3 times with invalid data']]);

  const other = randomUUID();
  const flaky = enrichActivities([
    ApplicationFailure.create({ type: 'ProviderUnavailable', message: 'the AI provider is unavailable (rate_limited)' }),
    ApplicationFailure.create({ type: 'ProviderUnavailable', message: 'the AI provider is unavailable (unavailable)' }),
    { state: 'enriched', published: false, isBreaking: true, publishedAt: new Date(Date.now() - 3 * 86_400_000).toISOString() },
  ]);
  const w2 = await mockedActivitiesWorker(suite.env, flaky, { bundle: suite.bundle });
  const ok = await w2.run(() => suite.client.execute(newsEnrichWorkflow, { taskQueue: w2.taskQueue, workflowId: workflowIds.newsEnrich(other), args: [{ articleId: other }] }));
  // Three days old: breaking, but archive; nobody is alerted.
  expect(ok).toEqual({ state: 'enriched', published: false, alerted: false });
  expect(flaky.enrichArticle).toHaveBeenCalledTimes(3);
  expect(flaky.alertsEnabled).not.toHaveBeenCalled();
});

it("a breaking article's alerts start whether or not this deployment has WhatsApp (e-mail is always there), with no activity to ask", async () => {
  const now = await suite.env.currentTimeMs();
  for (const enabled of [true, false]) {
    const articleId = randomUUID();
    const prefix = `t${randomUUID().slice(0, 6)}-`;
    const acts = enrichActivities([{ state: 'enriched', published: true, isBreaking: true, publishedAt: new Date(now).toISOString(), alertsEnabled: enabled }], !enabled);
    const worker = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle, taskQueue: taskQueueName(prefix, TASK_QUEUES.newsSources) });
    const handle = await suite.client.start(newsEnrichWorkflow, { taskQueue: worker.taskQueue, workflowId: workflowIds.newsEnrich(articleId), args: [{ articleId }] });
    const result = await worker.run(() => handle.result());
    expect(result).toEqual({ state: 'enriched', published: true, alerted: true });
    expect(acts.alertsEnabled).not.toHaveBeenCalled();
    const scheduled = ((await handle.fetchHistory()).events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(scheduled).toEqual(['enrichArticle']);
    const child = suite.client.getHandle(workflowIds.newsAlerts(articleId));
    expect((await child.describe()).taskQueue).toBe(taskQueueName(prefix, TASK_QUEUES.notify));
    await child.terminate('test over');
  }
});
