/**
 * Operator endpoints every service serves. POST /ops/smoke runs the smoke workflow and waits for it.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { SmokeInput, SmokeResult } from '../../models/ops/smoke-check.rules';
import type { smokeWorkflow } from '../../workflows/ops/smoke.workflow';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { AppError } from '../../models/errors';
import { bearer } from './auth';
import type { Infra } from './infra';
import { type AnyRoute, routeFactory } from './route';
import { Count, Text, Uuid } from './views';

export const OPS_PERMISSION = 'platform.ops';

/** Names the platform makes itself: a workflow id, a UUID, a collection, a bucket (≤ 63), an object key. */
export const SmokeResponse = z.object({
  workflowId: Text(200),
  checkId: Uuid,
  mongo: z.object({ collection: Text(120), id: Text(200) }),
  minio: z.object({ bucket: Text(63), key: Text(1_024), bytes: Count }),
  verified: z.boolean(),
  workflowMs: z.number().min(0),
  roundTripMs: z.number().min(0),
});

export function opsRoutes<D extends Infra>(service: string): AnyRoute<D>[] {
  const route = routeFactory<D>();
  return [
    route({
      method: 'post',
      path: '/ops/smoke',
      summary: 'Run the end-to-end smoke workflow',
      description:
        'Starts the smoke workflow (API → Temporal → worker → activities → MongoDB and MinIO) and waits up to 30 s for its result. ' +
        `Needs the ${OPS_PERMISSION} permission.`,
      tags: ['operations'],
      auth: bearer(OPS_PERMISSION),
      response: SmokeResponse,
      errors: [503, 504],
      handler: async ({ auth, deps }) => {
        const checkId = randomUUID();
        const workflowId = workflowIds.smoke(checkId);
        const input: SmokeInput = { checkId, service, requestedBy: auth.sub };
        const started = Date.now();
        const handle = await deps.temporal.client.workflow.start<typeof smokeWorkflow>('smokeWorkflow', {
          taskQueue: taskQueueName(deps.config.temporal.taskQueuePrefix, TASK_QUEUES.ops),
          workflowId,
          args: [input],
          workflowExecutionTimeout: '2 minutes',
        });
        const result = await Promise.race([
          handle.result() as Promise<SmokeResult>,
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new AppError('TIMEOUT', `Smoke workflow ${workflowId} did not finish within 30 s; is a worker running?`)), 30_000).unref(),
          ),
        ]);
        return { workflowId, ...result, roundTripMs: Date.now() - started };
      },
    }),
  ];
}
