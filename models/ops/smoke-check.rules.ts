/** Shapes of the smoke check (pure; shared by the API, the workflow and the activities). */
export interface SmokeInput {
  checkId: string;
  service: string;
  requestedBy: string;
}

export interface SmokeResult {
  checkId: string;
  mongo: { collection: string; id: string };
  minio: { bucket: string; key: string; bytes: number };
  verified: boolean;
  workflowMs: number;
}

export function smokeObjectKey(checkId: string, at: Date): string {
  return `smoke/${at.toISOString().slice(0, 10)}/${checkId}.json`;
}
