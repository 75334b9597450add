/**
 * The deprecated import queue, newsIngestWorkflow, on the time-skipping test server with its
 * activities mocked: it drains what it was started with and what is signalled (once per id, in
 * order), fails an import that fails and goes on, ends after a minute without work, and continues
 * as new with what is left after 100 imports.
 */
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { enqueueImportSignal, newsIngestWorkflow, pendingImportsQuery } from '../../workflows/news/ingest.workflow';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const suite = workflowSuite();

function activities(applyImport: (id: string) => Promise<{ inserted: number; duplicates: number; invalid: number }> = async () => ({ inserted: 1, duplicates: 0, invalid: 0 })) {
  return {
    applyImport: jest.fn(applyImport),
    failImport: jest.fn(async (_id: string, _message: string) => undefined),
  };
}

it('drains signalled imports once each, in order, answers the pending query, and ends after a minute without work', async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let holding!: () => void;
  const inFirst = new Promise<void>((resolve) => (holding = resolve));
  const acts = activities(async (id) => {
    if (id === 'imp-1') {
      holding();
      await held;
    }
    return { inserted: 1, duplicates: 0, invalid: 0 };
  });
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });

  const result = await run(async () => {
    const handle = await suite.client.start(newsIngestWorkflow, { taskQueue, workflowId: `news-ingest-${randomUUID()}`, args: [{ pending: [] }] });
    await handle.signal(enqueueImportSignal, 'imp-1');
    await inFirst;
    await handle.signal(enqueueImportSignal, 'imp-2');
    await handle.signal(enqueueImportSignal, 'imp-1'); // still queued: not queued twice
    await handle.signal(enqueueImportSignal, 'imp-2');
    expect(await handle.query(pendingImportsQuery)).toEqual(['imp-1', 'imp-2']);
    release();
    const started = await suite.env.currentTimeMs();
    const done = await handle.result();
    // Nothing more came: it waited its minute (skipped), then ended.
    expect((await suite.env.currentTimeMs()) - started).toBeGreaterThanOrEqual(60_000);
    return done;
  });

  expect(result).toEqual({ processed: 2 });
  expect(acts.applyImport.mock.calls).toEqual([['imp-1'], ['imp-2']]);
  expect(acts.failImport).not.toHaveBeenCalled();
});

it('an import that fails is marked failed with its reason and the queue goes on', async () => {
  const acts = activities(async (id) => {
    if (id === 'bad') throw ApplicationFailure.create({ type: 'ImportUnusable', message: 'import bad does not exist' });
    return { inserted: 1, duplicates: 0, invalid: 0 };
  });
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const result = await run(() => suite.client.execute(newsIngestWorkflow, { taskQueue, workflowId: `news-ingest-${randomUUID()}`, args: [{ pending: ['good-1', 'bad', 'good-2'] }] }));

  expect(result).toEqual({ processed: 3 });
  expect(acts.applyImport.mock.calls.map(([id]) => id)).toEqual(['good-1', 'bad', 'good-2']);
  expect(acts.failImport.mock.calls).toEqual([['bad', 'import bad does not exist']]);
});

it('after 100 imports it continues as new with the rest of its queue', async () => {
  const ids = Array.from({ length: 102 }, (_, i) => `imp-${i}`);
  const acts = activities();
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const { result, firstRunId, lastRunId } = await run(async () => {
    const handle = await suite.client.start(newsIngestWorkflow, { taskQueue, workflowId: `news-ingest-${randomUUID()}`, args: [{ pending: ids }] });
    const done = await handle.result(); // follows the run it continued as
    return { result: done, firstRunId: handle.firstExecutionRunId, lastRunId: (await handle.describe()).runId };
  });

  expect(result).toEqual({ processed: 2 }); // the second run's share
  expect(lastRunId).not.toBe(firstRunId);
  expect(acts.applyImport.mock.calls.map(([id]) => id)).toEqual(ids);
});
