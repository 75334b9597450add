/**
 * newsReenrichWorkflow on the time-skipping test server with its activities mocked: the chunks it
 * asks for, a spent budget (it sleeps until the budget renews, then goes on from the article it
 * stopped at), retries after a provider outage, and how it marks the operation.
 */
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { ReenrichChunkInput, ReenrichChunkResult } from '../../models/news/reenrich.rules';
import { workflowIds } from '../../workflows/ids';
import { newsReenrichWorkflow } from '../../workflows/news/reenrich.workflow';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const suite = workflowSuite();

type Finish = { operationId: string; state: 'completed' | 'cancelled' | 'failed'; error: string | null };

function activities(reenrichChunk: (input: ReenrichChunkInput) => Promise<ReenrichChunkResult> = async () => ({ state: 'finished' })) {
  return {
    reenrichChunk: jest.fn(reenrichChunk),
    finishReenrichment: jest.fn(async (_input: Finish) => undefined),
  };
}

async function start(taskQueue: string, total: number, chunkSize: number) {
  const operationId = randomUUID();
  const handle = await suite.client.start(newsReenrichWorkflow, { taskQueue, workflowId: workflowIds.newsReenrich(operationId), args: [{ operationId, total, chunkSize }] });
  return Object.assign(handle, { operationId });
}

it('enriches every chunk in order, the last one short, then marks the operation completed', async () => {
  const acts = activities();
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const handle = await start(taskQueue, 7, 3);
  const { operationId } = handle;

  expect(await run(() => handle.result())).toEqual({ state: 'completed' });
  expect(acts.reenrichChunk.mock.calls.map(([c]) => c)).toEqual([
    { operationId, start: 0, end: 3 },
    { operationId, start: 3, end: 6 },
    { operationId, start: 6, end: 7 },
  ]);
  expect(acts.finishReenrichment.mock.calls).toEqual([[{ operationId, state: 'completed', error: null }]]);
});

it('a spent budget: it sleeps until the budget renews, then goes on from the article it stopped at', async () => {
  let waited = false;
  const acts = activities(async (c) => {
    if (c.start === 3 && !waited) {
      waited = true;
      // Six hours from the server's clock (which earlier tests of the file may have moved on).
      return { state: 'waiting', waitUntil: new Date((await suite.env.currentTimeMs()) + 6 * 3_600_000).toISOString(), next: 4 };
    }
    return { state: 'finished' };
  });
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const handle = await start(taskQueue, 9, 3);

  expect(await run(() => handle.result())).toEqual({ state: 'completed' });
  expect(acts.reenrichChunk.mock.calls.map(([c]) => [c.start, c.end])).toEqual([
    [0, 3],
    [3, 6],
    [4, 6],
    [6, 9],
  ]);
  // One timer, until the renewal (the server skipped its time), fired before the call after it.
  const events = (await handle.fetchHistory()).events!;
  const timers = events.filter((e) => e.timerStartedEventAttributes);
  expect(timers).toHaveLength(1);
  const seconds = Number(timers[0]!.timerStartedEventAttributes!.startToFireTimeout!.seconds);
  expect(seconds).toBeGreaterThan(6 * 3_600 - 120);
  expect(seconds).toBeLessThanOrEqual(6 * 3_600);
  const fired = events.findIndex((e) => e.timerFiredEventAttributes);
  const scheduled = events.map((e, i) => (e.activityTaskScheduledEventAttributes?.activityType?.name === 'reenrichChunk' ? i : -1)).filter((i) => i >= 0);
  expect(fired).toBeGreaterThan(scheduled[1]!);
  expect(fired).toBeLessThan(scheduled[2]!);
  expect(acts.finishReenrichment.mock.calls.map(([f]) => f.state)).toEqual(['completed']);
});

it('a provider outage fails the chunk, which is retried from the same range until the provider is back', async () => {
  let outages = 0;
  const acts = activities(async (c) => {
    if (c.start === 2 && outages < 2) {
      outages += 1;
      throw ApplicationFailure.create({ type: 'ProviderUnavailable', message: 'the AI provider is unavailable (unavailable)' });
    }
    return { state: 'finished' };
  });
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const handle = await start(taskQueue, 4, 2);

  expect(await run(() => handle.result())).toEqual({ state: 'completed' });
  expect(acts.reenrichChunk.mock.calls.map(([c]) => c.start)).toEqual([0, 2, 2, 2]);
  expect(acts.finishReenrichment.mock.calls.map(([f]) => f.state)).toEqual(['completed']);
});

it('a chunk failing for good marks the operation failed with why, and fails the workflow', async () => {
  const acts = activities(async (c) => {
    if (c.start === 2) throw ApplicationFailure.create({ type: 'WorkerMisconfigured', message: 'this worker has no AI provider', nonRetryable: true });
    return { state: 'finished' };
  });
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const handle = await start(taskQueue, 6, 2);

  const err = await run(() => handle.result()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect(acts.reenrichChunk.mock.calls.map(([c]) => c.start)).toEqual([0, 2]);
  expect(acts.finishReenrichment.mock.calls.map(([f]) => [f.state, f.error])).toEqual([['failed', 'this worker has no AI provider']]);
});

it('cancelling waits for the running chunk to stop between articles, marks the operation cancelled and asks for no further chunk', async () => {
  let chunkStarted!: () => void;
  const started = new Promise<void>((resolve) => (chunkStarted = resolve));
  let stoppedByCancel = false;
  const acts = activities(async (c) => {
    if (c.start !== 2) return { state: 'finished' };
    const ctx = Context.current();
    chunkStarted();
    // As the real activity: heartbeats carry the cancellation, honoured between articles.
    while (!ctx.cancellationSignal.aborted) {
      ctx.heartbeat(c.start);
      await new Promise((r) => setTimeout(r, 50));
    }
    stoppedByCancel = true;
    throw new CancelledFailure('re-enrichment cancelled');
  });
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle, worker: { maxHeartbeatThrottleInterval: '100 ms' } });
  const handle = await start(taskQueue, 6, 2);

  const err = await run(async () => {
    await started;
    expect(acts.finishReenrichment).not.toHaveBeenCalled();
    await handle.cancel();
    return await handle.result().catch((e: unknown) => e);
  });
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect(stoppedByCancel).toBe(true);
  expect(acts.reenrichChunk.mock.calls.map(([c]) => c.start)).toEqual([0, 2]);
  expect(acts.finishReenrichment.mock.calls.map(([f]) => [f.state, f.error])).toEqual([['cancelled', null]]);
  expect((await handle.describe()).status.name).toBe('CANCELLED');
});

it('cancelling while it waits for the budget ends the wait and marks the operation cancelled', async () => {
  const acts = activities(async () => ({ state: 'waiting', waitUntil: new Date((await suite.env.currentTimeMs()) + 86_400_000).toISOString(), next: 1 }));
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const handle = await start(taskQueue, 4, 2);

  const err = await run(async () => {
    // Waits in real time (the server's clock stands still) until the workflow sleeps on its timer.
    for (let i = 0; i < 200 && !(await handle.fetchHistory()).events!.some((e) => e.timerStartedEventAttributes); i += 1) await new Promise((r) => setTimeout(r, 50));
    await handle.cancel();
    return await handle.result().catch((e: unknown) => e);
  });
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect(acts.reenrichChunk).toHaveBeenCalledTimes(1);
  expect(acts.finishReenrichment.mock.calls.map(([f]) => f.state)).toEqual(['cancelled']);
});

it('a cancellation the last chunk finished despite still marks the operation cancelled, never leaves it running', async () => {
  let chunkStarted!: () => void;
  const started = new Promise<void>((resolve) => (chunkStarted = resolve));
  const acts = activities(async (c) => {
    if (c.start !== 2) return { state: 'finished' };
    const ctx = Context.current();
    chunkStarted();
    while (!ctx.cancellationSignal.aborted) {
      ctx.heartbeat(c.start);
      await new Promise((r) => setTimeout(r, 50));
    }
    return { state: 'finished' }; // its last article was done as the cancellation came
  });
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle, worker: { maxHeartbeatThrottleInterval: '100 ms' } });
  const handle = await start(taskQueue, 4, 2);

  const err = await run(async () => {
    await started;
    await handle.cancel();
    return await handle.result().catch((e: unknown) => e);
  });
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect(acts.finishReenrichment.mock.calls.map(([f]) => f.state)).toEqual(['cancelled']);
});
