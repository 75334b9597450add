/**
 * Proves the whole path end to end: the API starts this workflow, the worker runs its activities,
 * which write to MongoDB and MinIO and read both back.
 */
import { log, proxyActivities } from '@temporalio/workflow';
import type { OpsActivities } from './activities';
import type { SmokeInput, SmokeResult } from '../../models/ops/smoke-check.rules';
import { RETRY } from '../retry-policies';

const { recordSmokeDocument, writeSmokeObject, verifySmokeCheck } = proxyActivities<OpsActivities>({
  startToCloseTimeout: '30 seconds',
  retry: RETRY.quick,
});

export async function smokeWorkflow(input: SmokeInput): Promise<SmokeResult> {
  const started = Date.now();
  const document = await recordSmokeDocument(input);
  const object = await writeSmokeObject(input);
  const verified = await verifySmokeCheck({ checkId: input.checkId, objectKey: object.key });
  log.info('smoke check complete', { checkId: input.checkId, verified: verified.ok });
  return {
    checkId: input.checkId,
    mongo: { collection: document.collection, id: document.id },
    minio: { bucket: object.bucket, key: object.key, bytes: object.bytes },
    verified: verified.ok,
    workflowMs: Date.now() - started,
  };
}
