/**
 * Queue an import (a use case): the JSON lines are streamed to MinIO (never held whole), then the
 * record is saved and the import's own workflow started (save, then start: models/infra/save-then-start.ts).
 * Used by the admin endpoint, the CLI `import` and `seed`.
 */
import { randomUUID } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { Connection } from 'mongoose';
import type { Config } from '../../config';
import { AppError } from '../../errors';
import { saveThenStart } from '../../infra/save-then-start';
import { storageCall, type Storage } from '../../infra/storage';
import type { TemporalHandle } from '../../infra/temporal';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../../workflows/ids';
import { newsImportWorkflow } from '../../../workflows/news/import.workflow';
import { createImportRepo, ZERO_COUNTS, type ImportDoc } from '../import.repo';

export interface QueueDeps {
  conn: Connection;
  storage: Storage;
  temporal: TemporalHandle;
  config: Config;
}

/** Counts bytes and fails the stream past the limit. */
function capped(maxBytes: number): Transform & { bytes: number } {
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      t.bytes += chunk.length;
      if (t.bytes > maxBytes) done(new AppError('PAYLOAD_TOO_LARGE', `An import may hold at most ${maxBytes} bytes`));
      else done(null, chunk);
    },
  }) as Transform & { bytes: number };
  t.bytes = 0;
  return t;
}

export async function queueImport(deps: QueueDeps, body: Readable, meta: { source: ImportDoc['source']; requestedBy: string; maxBytes: number }): Promise<ImportDoc> {
  const id = randomUUID();
  const objectKey = `news-imports/${id}.jsonl`;
  const counter = capped(meta.maxBytes);
  const failed = new Promise<never>((_, reject) => {
    counter.on('error', reject);
    body.on('error', reject);
  });
  const empty = () => new AppError('VALIDATION_FAILED', 'The import is empty: send one article per line (JSON lines)');
  try {
    await Promise.race([storageCall(() => deps.storage.client.putObject(deps.storage.bucket, objectKey, body.pipe(counter), undefined, { 'Content-Type': 'application/x-ndjson' })), failed]);
  } catch (err) {
    if (counter.bytes === 0 && !(err instanceof AppError)) throw empty(); // the client refuses empty streams
    throw err;
  }
  if (counter.bytes === 0) {
    await deps.storage.client.removeObject(deps.storage.bucket, objectKey).catch(() => undefined);
    throw empty();
  }
  const doc: ImportDoc = {
    _id: id,
    state: 'queued',
    source: meta.source,
    requestedBy: meta.requestedBy,
    objectKey,
    bytes: counter.bytes,
    ...ZERO_COUNTS,
    errors: [],
    error: null,
    createdAt: new Date(),
    startedAt: null,
    finishedAt: null,
  };
  const imports = createImportRepo(deps.conn);
  await saveThenStart({
    save: () => imports.create(doc),
    start: () =>
      deps.temporal.client.workflow.start(newsImportWorkflow, {
        workflowId: workflowIds.newsImport(id),
        taskQueue: taskQueueName(deps.config.temporal.taskQueuePrefix, TASK_QUEUES.news),
        args: [id],
      }),
    abandon: (reason) => imports.abandon(id, reason, new Date()),
  });
  return doc;
}

/** Waits until an import has ended (CLI and seed); returns the final record. */
export async function waitForImport(conn: Connection, id: string, timeoutMs: number, onProgress?: (d: ImportDoc) => void): Promise<ImportDoc> {
  const imports = createImportRepo(conn);
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  for (;;) {
    const doc = await imports.get(id);
    if (doc && (doc.state === 'completed' || doc.state === 'failed')) return doc;
    if (doc && doc.linesDone !== last) {
      last = doc.linesDone;
      onProgress?.(doc);
    }
    if (Date.now() > deadline) throw new Error(`import ${id} did not finish within ${Math.round(timeoutMs / 1000)} s (state ${doc?.state ?? 'unknown'})`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
