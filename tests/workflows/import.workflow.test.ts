/**
 * newsImportWorkflow on the time-skipping test server with its activities mocked (no database,
 * no storage): the counts it returns, how an unusable import is failed, retries of an outage, and
 * the alerts of breaking articles it starts (newsAlertsWorkflow children on the deployment's
 * notify queue, once per article, left running after the import, whether WhatsApp is set up or not:
 * e-mail is always there).
 */
import { randomUUID } from 'node:crypto';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { newsImportWorkflow } from '../../workflows/news/import.workflow';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const suite = workflowSuite();

type Counts = { inserted: number; duplicates: number; invalid: number };

function activities(options: { applyImport?: (id: string) => Promise<Counts>; breaking?: string[]; whatsapp?: boolean; enrich?: string[] } = {}) {
  return {
    enrichmentsOfImport: jest.fn(async (_id: string) => options.enrich ?? []),
    applyImport: jest.fn(options.applyImport ?? (async (_id: string) => ({ inserted: 3, duplicates: 1, invalid: 2 }))),
    failImport: jest.fn(async (_id: string, _message: string) => undefined),
    breakingOfImport: jest.fn(async (_id: string) => ({ articleIds: options.breaking ?? [], whatsapp: options.whatsapp ?? false })),
  };
}

async function importRun(acts: ReturnType<typeof activities>, taskQueue?: string) {
  const importId = randomUUID();
  const worker = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle, ...(taskQueue ? { taskQueue } : {}) });
  const result = await worker.run(() => suite.client.execute(newsImportWorkflow, { taskQueue: worker.taskQueue, workflowId: workflowIds.newsImport(importId), args: [importId] }));
  return { importId, result };
}

it('applies the import and returns its counts; alerts start where WhatsApp is off too (e-mail is always there)', async () => {
  const articleId = randomUUID();
  const acts = activities({ breaking: [articleId], whatsapp: false });
  const { importId, result } = await importRun(acts);

  expect(result).toEqual({ state: 'completed', inserted: 3, duplicates: 1, invalid: 2, alerts: 1, enrichments: 0 });
  await suite.client.getHandle(workflowIds.newsAlerts(articleId)).terminate('test over');
  expect(acts.applyImport.mock.calls).toEqual([[importId]]);
  expect(acts.breakingOfImport.mock.calls).toEqual([[importId]]);
  expect(acts.failImport).not.toHaveBeenCalled();
});

it('an unusable import (ImportUnusable) is not retried: it is marked failed with the reason and the run returns it', async () => {
  const acts = activities({
    applyImport: async (id) => {
      // Not flagged non-retryable: the workflow's retry policy names the type.
      throw ApplicationFailure.create({ type: 'ImportUnusable', message: `the staged file of import ${id} is gone` });
    },
  });
  const { importId, result } = await importRun(acts);

  const error = `the staged file of import ${importId} is gone`;
  expect(result).toEqual({ state: 'failed', error });
  expect(acts.applyImport).toHaveBeenCalledTimes(1);
  expect(acts.failImport.mock.calls).toEqual([[importId, error]]);
  expect(acts.breakingOfImport).not.toHaveBeenCalled();
});

it('a database or storage outage is waited out: the import is retried until it applies', async () => {
  let attempts = 0;
  const acts = activities({
    applyImport: async () => {
      attempts += 1;
      if (attempts <= 3) throw new Error('MongoNetworkError: connection refused');
      return { inserted: 10, duplicates: 0, invalid: 0 };
    },
  });
  const { result } = await importRun(acts);

  expect(attempts).toBe(4);
  expect(result).toEqual({ state: 'completed', inserted: 10, duplicates: 0, invalid: 0, alerts: 0, enrichments: 0 });
  expect(acts.failImport).not.toHaveBeenCalled();
});

it('starts the alerts of each breaking article on the deployment\'s notify queue, once per article, and leaves them running', async () => {
  const prefix = `t${randomUUID().slice(0, 6)}-`;
  const newsQueue = taskQueueName(prefix, TASK_QUEUES.news);
  const [a1, a2, a3] = [randomUUID(), randomUUID(), randomUUID()];

  const first = await importRun(activities({ breaking: [a1, a2], whatsapp: true }), newsQueue);
  expect(first.result).toEqual({ state: 'completed', inserted: 3, duplicates: 1, invalid: 2, alerts: 2, enrichments: 0 });

  for (const articleId of [a1, a2]) {
    const child = suite.client.getHandle(workflowIds.newsAlerts(articleId));
    const described = await child.describe();
    expect(described.type).toBe('newsAlertsWorkflow');
    expect(described.taskQueue).toBe(taskQueueName(prefix, TASK_QUEUES.notify));
    expect(described.status.name).toBe('RUNNING'); // abandoned by the finished import, as meant
    const started = (await child.fetchHistory()).events![0]!.workflowExecutionStartedEventAttributes!;
    expect(defaultPayloadConverter.fromPayload(started.input!.payloads![0]!)).toEqual({ articleId });
  }

  // A later import naming an article already alerted starts only the new one.
  const second = await importRun(activities({ breaking: [a2, a3], whatsapp: true }), newsQueue);
  expect(second.result).toMatchObject({ state: 'completed', alerts: 1 });
  expect((await suite.client.getHandle(workflowIds.newsAlerts(a3)).describe()).status.name).toBe('RUNNING');

  for (const articleId of [a1, a2, a3]) await suite.client.getHandle(workflowIds.newsAlerts(articleId)).terminate('test over');
});

it('a worker on an unprefixed queue starts the alerts on the plain notify queue', async () => {
  const articleId = randomUUID();
  const { result } = await importRun(activities({ breaking: [articleId], whatsapp: true }));

  expect(result).toMatchObject({ alerts: 1 });
  const child = suite.client.getHandle(workflowIds.newsAlerts(articleId));
  expect((await child.describe()).taskQueue).toBe(TASK_QUEUES.notify);
  await child.terminate('test over');
});

it("starts the enrichment of each article whose line asked for it, on the deployment's news sources queue, and leaves it running", async () => {
  const prefix = `t${randomUUID().slice(0, 6)}-`;
  const [a1, a2] = [randomUUID(), randomUUID()];
  const { result } = await importRun(activities({ enrich: [a1, a2] }), taskQueueName(prefix, TASK_QUEUES.news));
  expect(result).toMatchObject({ state: 'completed', enrichments: 2 });
  for (const articleId of [a1, a2]) {
    const child = suite.client.getHandle(workflowIds.newsEnrich(articleId));
    const described = await child.describe();
    expect([described.type, described.taskQueue, described.status.name]).toEqual(['newsEnrichWorkflow', taskQueueName(prefix, TASK_QUEUES.newsSources), 'RUNNING']);
    await child.terminate('test over');
  }
});
