/**
 * Operator endpoints every service serves. POST /ops/smoke runs the smoke workflow and waits for it.
 */
import { runSmokeCheck } from '../../operations/ops/smoke';
import { bearer } from './auth';
import { SmokeResponse } from './contracts';
import type { Infra } from './infra';
import { type AnyRoute, routeFactory } from './route';

export const OPS_PERMISSION = 'platform.ops';

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
      example: {
        response: {
          workflowId: 'smoke-0b9c5c1e-4a7e-4f0e-9a57-3f1c2d8e6b21',
          checkId: '0b9c5c1e-4a7e-4f0e-9a57-3f1c2d8e6b21',
          mongo: { collection: 'smoke_checks', id: '0b9c5c1e-4a7e-4f0e-9a57-3f1c2d8e6b21' },
          minio: { bucket: 'newsletter', key: 'smoke/2026-11-26/0b9c5c1e-4a7e-4f0e-9a57-3f1c2d8e6b21.json', bytes: 142 },
          verified: true,
          workflowMs: 412,
          roundTripMs: 468,
        },
      },
      handler: async ({ auth, deps }) => await runSmokeCheck({ temporal: deps.temporal, taskQueuePrefix: deps.config.temporal.taskQueuePrefix }, { service, requestedBy: auth.sub }),
    }),
  ];
}
