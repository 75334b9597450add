/** Activities of the news import workflow: apply one import (heartbeating per batch), mark one failed. */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Connection } from 'mongoose';
import type { Storage } from '../models/infra/storage';
import { createImportRepo } from '../models/news/import.repo';
import { runImport } from '../models/news/ingest';

export function createNewsActivities(deps: { conn: Connection; storage: Storage; whatsappEnabled?: boolean }) {
  const imports = createImportRepo(deps.conn);
  return {
    async applyImport(importId: string): Promise<{ inserted: number; duplicates: number; invalid: number }> {
      const record = await imports.get(importId);
      if (!record) throw ApplicationFailure.create({ type: 'ImportUnusable', message: `import ${importId} does not exist`, nonRetryable: true });
      const counts = await runImport({ ...deps, onBatch: (c) => Context.current().heartbeat(c) }, importId).catch((err: { code?: string }) => {
        if (err.code === 'NoSuchKey') throw ApplicationFailure.create({ type: 'ImportUnusable', message: `the staged file of import ${importId} is gone`, nonRetryable: true });
        throw err;
      });
      return { inserted: counts.inserted, duplicates: counts.duplicates, invalid: counts.invalid };
    },
    /** The breaking articles the import inserted, and whether WhatsApp alerts are sent on this deployment. */
    async breakingOfImport(importId: string): Promise<{ articleIds: string[]; whatsapp: boolean }> {
      const record = await imports.get(importId);
      return { articleIds: record?.breakingIds ?? [], whatsapp: deps.whatsappEnabled === true };
    },
    async failImport(importId: string, message: string): Promise<void> {
      await imports.finish(importId, 'failed', new Date(), message);
    },
  };
}
