/**
 * The use case "prove the platform works end to end": the smoke workflow goes API → Temporal →
 * worker → activities → MongoDB and MinIO and back, and is waited for up to 30 s.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { AppError } from '../../models/errors';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { smokeWorkflow } from '../../workflows/ops/smoke.workflow';
import type { SmokeInput } from '../../models/ops/smoke-check.rules';

export interface SmokeDeps {
  temporal: { client: Pick<Client, 'workflow'> };
  taskQueuePrefix: string;
}

export async function runSmokeCheck(deps: SmokeDeps, input: { service: string; requestedBy: string }) {
  const checkId = randomUUID();
  const workflowId = workflowIds.smoke(checkId);
  const started = Date.now();
  const handle = await deps.temporal.client.workflow.start(smokeWorkflow, {
    taskQueue: taskQueueName(deps.taskQueuePrefix, TASK_QUEUES.ops),
    workflowId,
    args: [{ checkId, service: input.service, requestedBy: input.requestedBy } satisfies SmokeInput],
    workflowExecutionTimeout: '2 minutes',
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const result = await Promise.race([
      handle.result(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new AppError('TIMEOUT', `Smoke workflow ${workflowId} did not finish within 30 s; is a worker running?`)), 30_000);
      }),
    ]);
    return { workflowId, ...result, roundTripMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}
