/**
 * The contracts of the routes every service serves (api/shared/ops.routes.ts), each registered
 * with an id so that each service's OpenAPI document names it once.
 */
import { z } from 'zod';
import { Count, Text, Uuid } from './views';

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
