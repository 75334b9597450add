/**
 * smokeWorkflow on the time-skipping test server with its activities mocked (no MongoDB, no
 * MinIO): the document, then the object, then the check of both with the key the object was
 * stored under; the result it builds from them (and a failed check reported, not thrown); a
 * storage outage retried with backoff (the run's time counts the skipped waits), and given up after
 * its bounded attempts without checking anything.
 */
import { randomUUID } from 'node:crypto';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { SmokeInput } from '../../models/ops/smoke-check.rules';
import { workflowIds } from '../../workflows/ids';
import { smokeWorkflow } from '../../workflows/ops/smoke.workflow';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const suite = workflowSuite();

type StoredObject = { bucket: string; key: string; bytes: number };

function activities(options: { writeSmokeObject?: (input: SmokeInput) => Promise<StoredObject>; ok?: boolean } = {}) {
  const order: string[] = [];
  return {
    order,
    recordSmokeDocument: jest.fn(async (input: SmokeInput) => {
      order.push('recordSmokeDocument');
      return { collection: 'smoke_checks', id: input.checkId };
    }),
    writeSmokeObject: jest.fn(async (input: SmokeInput) => {
      order.push('writeSmokeObject');
      return await (options.writeSmokeObject ?? (async (i: SmokeInput) => ({ bucket: 'newsletter', key: `smoke/2026-01-01/${i.checkId}.json`, bytes: 42 })))(input);
    }),
    verifySmokeCheck: jest.fn(async (_input: { checkId: string; objectKey: string }) => {
      order.push('verifySmokeCheck');
      return { ok: options.ok ?? true };
    }),
  };
}

async function smoke(acts: ReturnType<typeof activities>) {
  const input: SmokeInput = { checkId: randomUUID(), service: 'news', requestedBy: 'ops@example.com' };
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const outcome = await run(() => suite.client.execute(smokeWorkflow, { taskQueue, workflowId: workflowIds.smoke(input.checkId), args: [input] }).catch((err: unknown) => err));
  return { input, outcome };
}

it('records the document, stores the object, checks both with the stored key, and reports what it wrote', async () => {
  const acts = activities();
  const { input, outcome } = await smoke(acts);
  const key = `smoke/2026-01-01/${input.checkId}.json`;

  expect(acts.order).toEqual(['recordSmokeDocument', 'writeSmokeObject', 'verifySmokeCheck']);
  expect(acts.recordSmokeDocument.mock.calls).toEqual([[input]]);
  expect(acts.writeSmokeObject.mock.calls).toEqual([[input]]);
  expect(acts.verifySmokeCheck.mock.calls).toEqual([[{ checkId: input.checkId, objectKey: key }]]);
  expect(outcome).toEqual({
    checkId: input.checkId,
    mongo: { collection: 'smoke_checks', id: input.checkId },
    minio: { bucket: 'newsletter', key, bytes: 42 },
    verified: true,
    workflowMs: expect.any(Number),
  });
  expect((outcome as { workflowMs: number }).workflowMs).toBeGreaterThanOrEqual(0);
});

it('a check that does not find what was written is reported as unverified, not thrown', async () => {
  const acts = activities({ ok: false });
  const { outcome } = await smoke(acts);

  expect(outcome).toMatchObject({ verified: false });
  expect(acts.verifySmokeCheck).toHaveBeenCalledTimes(1);
});

it('a storage outage is retried with backoff (the skipped waits count in workflowMs), the document recorded only once', async () => {
  let failures = 0;
  const acts = activities({
    writeSmokeObject: async (i) => {
      if (failures++ < 2) throw new Error('connect ECONNREFUSED minio:9000');
      return { bucket: 'newsletter', key: `smoke/x/${i.checkId}.json`, bytes: 10 };
    },
  });
  const { input, outcome } = await smoke(acts);

  expect(outcome).toMatchObject({ verified: true, minio: { key: `smoke/x/${input.checkId}.json` } });
  expect(acts.recordSmokeDocument).toHaveBeenCalledTimes(1);
  expect(acts.writeSmokeObject).toHaveBeenCalledTimes(3);
  expect(acts.verifySmokeCheck.mock.calls).toEqual([[{ checkId: input.checkId, objectKey: `smoke/x/${input.checkId}.json` }]]);
  // RETRY.quick waits 1 s then 2 s: the workflow's clock moved on by them (the server skipped them).
  expect((outcome as { workflowMs: number }).workflowMs).toBeGreaterThanOrEqual(3_000);
});

it('storage down for good: given up after 5 attempts, the run fails and nothing is checked', async () => {
  const acts = activities({
    writeSmokeObject: async () => {
      throw ApplicationFailure.create({ type: 'StorageUnavailable', message: 'bucket newsletter unreachable' });
    },
  });
  const { outcome } = await smoke(acts);

  expect(outcome).toBeInstanceOf(WorkflowFailedError);
  const cause = (outcome as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ActivityFailure);
  expect((cause as ActivityFailure).activityType).toBe('writeSmokeObject');
  expect(((cause as ActivityFailure).cause as ApplicationFailure).type).toBe('StorageUnavailable');
  expect(acts.writeSmokeObject).toHaveBeenCalledTimes(5);
  expect(acts.verifySmokeCheck).not.toHaveBeenCalled();
});
