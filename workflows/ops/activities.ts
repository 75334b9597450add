/** The activities the smoke workflow calls (activities/ops.activities.ts). */
import type { SmokeInput } from '../../models/ops/smoke-check.rules';

export interface OpsActivities {
  recordSmokeDocument(input: SmokeInput): Promise<{ collection: string; id: string }>;
  writeSmokeObject(input: SmokeInput): Promise<{ bucket: string; key: string; bytes: number }>;
  verifySmokeCheck(input: { checkId: string; objectKey: string }): Promise<{ ok: boolean }>;
}
