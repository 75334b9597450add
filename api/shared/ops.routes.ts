/**
 * Operator endpoints every service serves. POST /ops/smoke runs the smoke workflow and waits for it.
 */
import { z } from 'zod';
import { runSmokeCheck } from '../../operations/ops/smoke';
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
}).meta({ id: 'SmokeResult' });

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
      handler: async ({ auth, deps }) => await runSmokeCheck({ temporal: deps.temporal, taskQueuePrefix: deps.config.temporal.taskQueuePrefix }, { service, requestedBy: auth.sub }),
    }),
  ];
}
