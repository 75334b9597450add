/**
 * Queue an import (a use case): the JSON lines are streamed to MinIO (never held whole), then the
 * record is saved and the import's own workflow started (save, then start: models/infra/save-then-start.ts).
 * Used by the admin endpoint, the CLI `import` and `seed`.
 */
import { randomUUID } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { Config } from '../../models/config';
import { AppError } from '../../models/errors';
import { saveThenStartOnce, startFound } from '../../models/infra/idempotency';
import { uuidFromRequestKey } from '../../models/infra/idempotency.rules';
import { NOT_STARTED, saveThenStart } from '../../models/infra/save-then-start';
import { storageCall, type Storage } from '../../models/infra/storage';
import type { TemporalHandle } from '../../models/infra/temporal';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { newsImportWorkflow } from '../../workflows/news/import.workflow';
import { ZERO_COUNTS, type ImportDoc, type ImportRepo } from '../../models/news/import.repo';

export interface QueueDeps {
  imports: Pick<ImportRepo, 'get' | 'create' | 'abandon' | 'revive'>;
  storage: Storage;
  temporal: Pick<TemporalHandle, 'client'>;
  config: Pick<Config, 'temporal'>;
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

/**
 * Stages the lines in MinIO, saves the import, starts its workflow. Under a `requestKey` (an
 * Idempotency-Key; the streamed body is not part of its fingerprint: the key alone names the
 * request) the import's id derives from it: a repeat finds the import the first attempt saved
 * and returns it without reading the body again (starting it if that attempt's start failed),
 * and a repeat of an attempt that failed before saving stages the lines again under the same object.
 */
export async function queueImport(
  deps: QueueDeps,
  body: Readable,
  meta: { source: ImportDoc['source']; requestedBy: string; maxBytes: number; requestKey?: string | undefined },
): Promise<ImportDoc> {
  const id = meta.requestKey ? uuidFromRequestKey(meta.requestKey, 'news-import') : randomUUID();
  const { imports } = deps;
  const steps = {
    start: () =>
      deps.temporal.client.workflow.start(newsImportWorkflow, {
        workflowId: workflowIds.newsImport(id),
        taskQueue: taskQueueName(deps.config.temporal.taskQueuePrefix, TASK_QUEUES.news),
        args: [id],
      }),
    abandon: (reason: string) => imports.abandon(id, reason, new Date()),
  };
  const once = meta.requestKey
    ? {
        find: () => imports.get(id),
        abandoned: (d: ImportDoc) => d.state === 'failed' && d.error === NOT_STARTED,
        revive: () => imports.revive(id),
        workflowId: workflowIds.newsImport(id),
        temporal: deps.temporal.client,
      }
    : undefined;
  // Found under its key before the body is read: nothing is staged or saved again.
  const earlier = await once?.find();
  if (once && earlier) return await startFound(earlier, { ...steps, ...once });
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
  const save = () => imports.create(doc);
  if (!once) {
    await saveThenStart({ ...steps, save });
    return doc;
  }
  return (await saveThenStartOnce({ ...steps, ...once, save })) ?? doc;
}

/** Waits until an import has ended (CLI and seed); returns the final record. */
export async function waitForImport(deps: { imports: Pick<ImportRepo, 'get'> }, id: string, timeoutMs: number, onProgress?: (d: ImportDoc) => void): Promise<ImportDoc> {
  const { imports } = deps;
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
