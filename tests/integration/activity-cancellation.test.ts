/**
 * Activities stop what they abandon (issue 34, part 7), on the test stack's database and MinIO: a
 * bulk chunk and an import run as activities in a mocked activity context (MockActivityEnvironment:
 * the attempt's cancellation signal, its heartbeats, its timeouts). A cancelled attempt stops its
 * database work (a read in flight is the driver's to stop; otherwise before the next group,
 * ticket or batch) and leaves the rest undone; an attempt past its start-to-close timeout stops
 * too, its model call included; the driver and Mongoose both honour the signal they are given.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import type { Connection } from 'mongoose';
import { ATTEMPT_TIMED_OUT } from '../../activities/attempt';
import { createNewsActivities } from '../../activities/news.activities';
import { createSupportActivities } from '../../activities/support.activities';
import { loadConfig } from '../../models/config';
import type { LlmClient } from '../../models/infra/llm';
import { collectionOf, connectMongo, type MongoHandle } from '../../models/infra/mongo';
import { createStorage, ensureBucket, type Storage } from '../../models/infra/storage';
import { createImportRepo, ZERO_COUNTS } from '../../models/news/import.repo';
import { IMPORT_BATCH_LINES } from '../../operations/news/ingest';
import { createBulkRepo } from '../../models/support/bulk.repo';
import { BULK_GROUP, type BulkType } from '../../models/support/bulk.rules';
import { messageModel } from '../../models/support/support.model';
import { createTicketRepo } from '../../models/support/ticket.repo';
import { TICKET_ISSUES } from '../../models/support/ticket.rules';

jest.setTimeout(60_000);

let mongo: MongoHandle;
let conn: Connection;
let storage: Storage;

beforeAll(async () => {
  const config = loadConfig();
  mongo = connectMongo(config);
  conn = (await mongo.ready).useDb(`activity_cancel_${randomUUID().slice(0, 8)}`, { useCache: true });
  storage = createStorage(config);
  await ensureBucket(storage, config.minio.region);
});
afterAll(async () => {
  await conn?.db?.dropDatabase().catch(() => undefined);
  await mongo?.close();
});

/** An activity context whose attempt has these timeouts (the defaults of the mock are 1 s to close, no heartbeat). */
const attemptContext = (info: { heartbeatTimeoutMs?: number; startToCloseTimeoutMs?: number } = {}) =>
  new MockActivityEnvironment({ heartbeatTimeoutMs: 30_000, startToCloseTimeoutMs: 600_000, ...info }, { logger: new DefaultLogger('ERROR') });

/** A model that answers nothing until its request is aborted (then fails as the OpenAI client does). */
function silentModel() {
  const complete = jest.fn(
    (_req: unknown, opts?: { signal?: AbortSignal }) =>
      new Promise<never>((_, reject) => {
        opts?.signal?.addEventListener('abort', () => reject(Object.assign(new Error('Request was aborted.'), { name: 'AbortError' })), { once: true });
      }),
  );
  const llm = { configured: true, complete, stream: jest.fn() } as unknown as LlmClient;
  return { llm, complete };
}

async function bulkOperation(type: BulkType, n: number) {
  const ticketIds = await createTicketRepo(conn).insertMany(
    Array.from({ length: n }, (_, i) => ({ main: 'Entrega', issue: TICKET_ISSUES[1], description: 'Não recebo a edição da manhã.', email: `cancel-${randomUUID().slice(0, 8)}-${i}@example.com`, newsletter: 'The News' })),
  );
  const operationId = randomUUID();
  await createBulkRepo(conn).create({
    _id: operationId,
    type,
    params: type === 'status' ? { status: 'closed' } : { send: true },
    ticketIds,
    total: n,
    state: 'running',
    createdBy: 'agent-cancel',
    createdByEmail: 'agent-cancel@newsletter.dev',
    createdAt: new Date(),
    finishedAt: null,
  });
  return { operationId, ticketIds };
}

const statuses = async (ids: number[]) =>
  (await collectionOf<{ _id: number; status: string }>(conn, 'tickets').find({ _id: { $in: ids } }, { projection: { status: 1 }, sort: { _id: 1 } }).toArray()).map((t) => t.status);
const itemsOf = (operationId: string) => collectionOf<{ _id: string }>(conn, 'bulk_operation_items').countDocuments({ operationId });

describe('a bulk chunk', () => {
  it('cancelled after its first group stops there: its progress is saved exactly, and the other groups are not touched', async () => {
    const { operationId, ticketIds } = await bulkOperation('status', 3 * BULK_GROUP);
    const acts = createSupportActivities({ conn, llm: silentModel().llm, model: 'unused' });
    const env = attemptContext();
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => {
      beats.push(d);
      env.cancel(); // the workflow cancels while the first group is being saved
    });

    const err = await env.run(acts.processBulkChunk, { operationId, start: 0, end: ticketIds.length }).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(CancelledFailure);
    expect(beats).toEqual([BULK_GROUP]);
    const after = await statuses(ticketIds);
    expect(after.slice(0, BULK_GROUP).every((s) => s === 'closed')).toBe(true);
    expect(after.slice(BULK_GROUP).every((s) => s === 'open')).toBe(true);
    expect(await itemsOf(operationId)).toBe(BULK_GROUP);
    expect((await createBulkRepo(conn).find(operationId))?.chunks?.['0']).toMatchObject({ processed: BULK_GROUP, succeeded: BULK_GROUP, failed: 0 });
  });

  it('whose attempt is already cancelled when it starts does no database work', async () => {
    const { operationId, ticketIds } = await bulkOperation('status', BULK_GROUP);
    const acts = createSupportActivities({ conn, llm: silentModel().llm, model: 'unused' });
    const env = attemptContext();
    env.cancel();

    await expect(env.run(acts.processBulkChunk, { operationId, start: 0, end: ticketIds.length })).rejects.toBeInstanceOf(CancelledFailure);
    expect((await statuses(ticketIds)).every((s) => s === 'open')).toBe(true);
    expect(await itemsOf(operationId)).toBe(0);
  });

  it('past its start-to-close timeout stops its model call and begins no further ticket', async () => {
    const { operationId, ticketIds } = await bulkOperation('fast_response', 5);
    const model = silentModel();
    const acts = createSupportActivities({ conn, llm: model.llm, model: 'unused' });
    const env = attemptContext({ startToCloseTimeoutMs: 1_000 });

    const started = Date.now();
    const err = await env.run(acts.processBulkChunk, { operationId, start: 0, end: ticketIds.length }).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).type).toBe(ATTEMPT_TIMED_OUT);
    expect((err as ApplicationFailure).nonRetryable).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
    // The model was asked about the first ticket only, and the request it hung on was aborted.
    expect(model.complete).toHaveBeenCalledTimes(1);
    expect(model.complete.mock.calls[0]![1]?.signal?.aborted).toBe(true);
    expect(await itemsOf(operationId)).toBe(0);
    expect(await messageModel(conn).countDocuments({ ticketId: { $in: ticketIds } })).toBe(0);
  });
});

describe('the driver and Mongoose', () => {
  it('refuse a read whose signal has aborted, with the signal’s reason', async () => {
    const { operationId, ticketIds } = await bulkOperation('status', 3);
    const controller = new AbortController();
    const reason = new CancelledFailure('CANCELLED');
    controller.abort(reason);
    // The driver (bulk.repo reads the collection), and Mongoose (ticket.repo: setOptions passes it on).
    await expect(createBulkRepo(conn).find(operationId, { signal: controller.signal })).rejects.toBe(reason);
    await expect(createTicketRepo(conn).findByIds(ticketIds, { signal: controller.signal })).rejects.toBe(reason);
    // Unaborted, the same reads answer.
    expect((await createBulkRepo(conn).find(operationId, { signal: new AbortController().signal, maxTimeMS: 5_000 }))?._id).toBe(operationId);
    expect(await createTicketRepo(conn).findByIds(ticketIds, { signal: new AbortController().signal, maxTimeMS: 5_000 })).toHaveLength(3);
  });
});

/**
 * The storage with fGetObject done by getObject: minio's fGetObject tells a part file not yet
 * there by `e instanceof Error`, which Node's own errors fail inside Jest's sandbox (another realm).
 */
function jestSafe(real: Storage): Storage {
  const client = Object.create(real.client) as Storage['client'];
  client.fGetObject = async (bucket: string, key: string, file: string) => {
    await pipeline(await real.client.getObject(bucket, key), createWriteStream(file));
  };
  return { client, bucket: real.bucket };
}

describe('an import', () => {
  it('cancelled after its first batch stops before the next, keeping what it saved; the next attempt goes on from there', async () => {
    const importId = randomUUID();
    const lines = Array.from({ length: 2 * IMPORT_BATCH_LINES + 500 }, (_, i) =>
      JSON.stringify({ title: `Nota ${i}`, sourceName: 'Teste', sourceUrl: `https://cancel.example.test/${importId}/${i}`, publishedAt: '2026-11-20T10:00:00Z', primarySector: 'FIN', primaryTopic: 'DIV' }),
    );
    const body = Buffer.from(`${lines.join('\n')}\n`);
    const objectKey = `news-imports/${importId}.jsonl`;
    await storage.client.putObject(storage.bucket, objectKey, body);
    const imports = createImportRepo(conn);
    await imports.create({ _id: importId, state: 'queued', source: 'api', requestedBy: 'test', objectKey, bytes: body.length, errors: [], error: null, createdAt: new Date(), startedAt: null, finishedAt: null, ...ZERO_COUNTS });
    const acts = createNewsActivities({ conn, storage: jestSafe(storage) });
    const articles = () => collectionOf(conn, 'articles').countDocuments({ sourceUrl: { $regex: `^https://cancel\\.example\\.test/${importId}/` } });

    const first = attemptContext({ heartbeatTimeoutMs: 120_000 });
    first.on('heartbeat', () => first.cancel());
    await expect(first.run(acts.applyImport, importId)).rejects.toBeInstanceOf(CancelledFailure);
    expect(await imports.get(importId)).toMatchObject({ state: 'running', linesDone: IMPORT_BATCH_LINES, inserted: IMPORT_BATCH_LINES });
    expect(await articles()).toBe(IMPORT_BATCH_LINES);

    const second = attemptContext({ heartbeatTimeoutMs: 120_000 });
    expect(await second.run(acts.applyImport, importId)).toEqual({ inserted: lines.length, duplicates: 0, invalid: 0 });
    expect(await imports.get(importId)).toMatchObject({ state: 'completed', linesDone: lines.length });
    expect(await articles()).toBe(lines.length);
    await storage.client.removeObject(storage.bucket, objectKey).catch(() => undefined);
  });
});
