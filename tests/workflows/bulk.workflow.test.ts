/**
 * bulkTicketOperationWorkflow on the time-skipping test server with its activities mocked: the
 * chunks it asks for, how it marks the operation (completed, failed, cancelled), retries.
 */
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { bulkTicketOperationWorkflow } from '../../workflows/support/bulk.workflow';
import { workflowIds } from '../../workflows/ids';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const suite = workflowSuite();

type Chunk = { operationId: string; start: number; end: number };
type Finish = { operationId: string; state: 'completed' | 'cancelled' | 'failed' };

function activities(processBulkChunk: (input: Chunk) => Promise<{ processed: number }> = async (c) => ({ processed: c.end - c.start })) {
  return {
    processBulkChunk: jest.fn(processBulkChunk),
    finishBulkOperation: jest.fn(async (_input: Finish) => undefined),
  };
}

async function start(taskQueue: string, total: number, chunkSize: number) {
  const operationId = randomUUID();
  const handle = await suite.client.start(bulkTicketOperationWorkflow, { taskQueue, workflowId: workflowIds.ticketBulk(operationId), args: [{ operationId, total, chunkSize }] });
  return Object.assign(handle, { operationId });
}

it('processes every chunk in order, the last one short, then marks the operation completed', async () => {
  const acts = activities();
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const handle = await start(taskQueue, 25, 10);
  const { operationId } = handle;

  expect(await run(() => handle.result())).toEqual({ state: 'completed' });
  expect(acts.processBulkChunk.mock.calls.map(([c]) => c)).toEqual([
    { operationId, start: 0, end: 10 },
    { operationId, start: 10, end: 20 },
    { operationId, start: 20, end: 25 },
  ]);
  expect(acts.finishBulkOperation.mock.calls).toEqual([[{ operationId, state: 'completed' }]]);
});

it('an operation of no tickets asks for no chunk and is completed', async () => {
  const acts = activities();
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const handle = await start(taskQueue, 0, 10);

  expect(await run(() => handle.result())).toEqual({ state: 'completed' });
  expect(acts.processBulkChunk).not.toHaveBeenCalled();
  expect(acts.finishBulkOperation).toHaveBeenCalledTimes(1);
  expect(acts.finishBulkOperation.mock.calls[0]![0].state).toBe('completed');
});

it('a chunk failing with a retryable error is retried from the same range and the operation completes', async () => {
  let failures = 0;
  const acts = activities(async (c) => {
    if (c.start === 10 && failures < 2) {
      failures += 1;
      throw new Error('MongoServerSelectionError: connection refused');
    }
    return { processed: c.end - c.start };
  });
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const handle = await start(taskQueue, 20, 10);

  expect(await run(() => handle.result())).toEqual({ state: 'completed' });
  expect(acts.processBulkChunk.mock.calls.map(([c]) => [c.start, c.end])).toEqual([
    [0, 10],
    [10, 20],
    [10, 20],
    [10, 20],
  ]);
  expect(acts.finishBulkOperation.mock.calls.map(([f]) => f.state)).toEqual(['completed']);
});

it('a chunk failing for good marks the operation failed, stops, and fails the workflow with the cause', async () => {
  const acts = activities(async (c) => {
    if (c.start === 10) throw ApplicationFailure.create({ type: 'BulkBroken', message: 'the operation record is unreadable', nonRetryable: true });
    return { processed: c.end - c.start };
  });
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const handle = await start(taskQueue, 30, 10);

  const err = await run(() => handle.result()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause?.cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect((cause as ApplicationFailure).type).toBe('BulkBroken');
  expect(acts.processBulkChunk.mock.calls.map(([c]) => c.start)).toEqual([0, 10]); // never the third chunk
  expect(acts.finishBulkOperation.mock.calls.map(([f]) => f.state)).toEqual(['failed']);
});

it('cancelling waits for the running chunk to stop, marks the operation cancelled and asks for no further chunk', async () => {
  let chunkStarted!: () => void;
  const started = new Promise<void>((resolve) => (chunkStarted = resolve));
  let stoppedByCancel = false;
  const acts = activities(async (c) => {
    if (c.start !== 10) return { processed: c.end - c.start };
    const ctx = Context.current();
    chunkStarted();
    // As the real activity: heartbeats carry the cancellation, which it honours between groups.
    while (!ctx.cancellationSignal.aborted) {
      ctx.heartbeat(c.start);
      await new Promise((r) => setTimeout(r, 50));
    }
    stoppedByCancel = true;
    throw new CancelledFailure('bulk operation cancelled');
  });
  // Heartbeats are throttled to 80% of the 30 s heartbeat timeout by default: the cancellation they carry would take 24 s.
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle, worker: { maxHeartbeatThrottleInterval: '100 ms' } });
  const handle = await start(taskQueue, 30, 10);

  const err = await run(async () => {
    await started;
    // The chunk has not stopped yet: nothing is marked.
    expect(acts.finishBulkOperation).not.toHaveBeenCalled();
    await handle.cancel();
    return await handle.result().catch((e: unknown) => e);
  });
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect(stoppedByCancel).toBe(true);
  expect(acts.processBulkChunk.mock.calls.map(([c]) => c.start)).toEqual([0, 10]);
  expect(acts.finishBulkOperation.mock.calls.map(([f]) => f.state)).toEqual(['cancelled']);
  expect((await handle.describe()).status.name).toBe('CANCELLED');
});

it('a cancellation the last chunk finished despite still marks the operation cancelled, never leaves it running', async () => {
  let chunkStarted!: () => void;
  const started = new Promise<void>((resolve) => (chunkStarted = resolve));
  const acts = activities(async (c) => {
    if (c.start !== 10) return { processed: c.end - c.start };
    const ctx = Context.current();
    chunkStarted();
    while (!ctx.cancellationSignal.aborted) {
      ctx.heartbeat(c.start);
      await new Promise((r) => setTimeout(r, 50));
    }
    return { processed: c.end - c.start }; // its last ticket was done as the cancellation came
  });
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle, worker: { maxHeartbeatThrottleInterval: '100 ms' } });
  const handle = await start(taskQueue, 20, 10);

  const err = await run(async () => {
    await started;
    await handle.cancel();
    return await handle.result().catch((e: unknown) => e);
  });
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect(acts.processBulkChunk.mock.calls.map(([c]) => c.start)).toEqual([0, 10]);
  expect(acts.finishBulkOperation.mock.calls.map(([f]) => f.state)).toEqual(['cancelled']);
  expect((await handle.describe()).status.name).toBe('CANCELLED');
});
