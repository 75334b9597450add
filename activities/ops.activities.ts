/**
 * Activities of the smoke workflow. Each one is idempotent: a retry after a crash writes the same
 * document and object again, never a second one.
 */
import type { Connection } from 'mongoose';
import { smokeCheckModel, type SmokeCheckDoc } from '../models/ops/smoke-check.model';
import { smokeObjectKey, type SmokeInput } from '../models/ops/smoke-check.rules';
import { type Storage, storageCall } from '../models/infra/storage';
import type { OpsActivities } from '../workflows/ops/activities';

export interface OpsActivityDeps {
  conn: Connection;
  storage: Storage;
}

export function createOpsActivities({ conn, storage }: OpsActivityDeps): OpsActivities {
  const SmokeChecks = smokeCheckModel(conn);
  return {
    async recordSmokeDocument(input: SmokeInput): Promise<{ collection: string; id: string }> {
      await SmokeChecks.updateOne(
        { _id: input.checkId },
        { $setOnInsert: { service: input.service, requestedBy: input.requestedBy, createdAt: new Date() } },
        { upsert: true },
      );
      return { collection: SmokeChecks.collection.collectionName, id: input.checkId };
    },

    async writeSmokeObject(input: SmokeInput): Promise<{ bucket: string; key: string; bytes: number }> {
      const key = smokeObjectKey(input.checkId, new Date());
      const body = Buffer.from(JSON.stringify({ checkId: input.checkId, service: input.service, at: new Date().toISOString() }));
      await storageCall(() =>
        storage.client.putObject(storage.bucket, key, body, body.length, { 'Content-Type': 'application/json' }),
      );
      await SmokeChecks.updateOne({ _id: input.checkId }, { $set: { objectKey: key } });
      return { bucket: storage.bucket, key, bytes: body.length };
    },

    async verifySmokeCheck(input: { checkId: string; objectKey: string }): Promise<{ ok: boolean }> {
      const doc = await SmokeChecks.findById(input.checkId).lean<SmokeCheckDoc>();
      const stream = await storageCall(() => storage.client.getObject(storage.bucket, input.objectKey));
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      const stored = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { checkId?: string };
      return { ok: doc?.objectKey === input.objectKey && stored.checkId === input.checkId };
    },
  };
}
