/**
 * Idempotency-Key in the operations, with fakes of their dependencies (tests/integration/
 * idempotency.test.ts proves the wiring over HTTP): what a request repeated under its key after a
 * fault finds. The attacks: a start that failed after the record was saved (503), the record saved
 * by a racing attempt, a run of the workflow still going, Temporal unreachable when asked, and an
 * API key stored before the answer was lost.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { AppError } from '../../models/errors';
import { uuidFromRequestKey } from '../../models/infra/idempotency.rules';
import { NOT_STARTED } from '../../models/infra/save-then-start';
import type { ApiKeyDoc } from '../../models/news/api-key.model';
import { createApiKey, type ApiKeyDeps } from '../../operations/news/api-keys';
import { startReenrichment, type ReenrichDeps } from '../../operations/news/reenrich';
import type { ReenrichmentDoc, ReenrichmentRepo } from '../../models/news/reenrichment.repo';
import type { BulkOperationDoc, BulkRepo } from '../../models/support/bulk.repo';
import { startBulkOperation, type BulkDeps } from '../../operations/support/bulk';

const T0 = new Date('2026-11-24T12:00:00Z');
const duplicateKey = () => Object.assign(new Error('E11000 duplicate key error'), { code: 11000 });
/** What the Temporal client throws when the server is unreachable (api/shared/errors.ts: 503). */
const temporalDown = () => Object.assign(new Error('14 UNAVAILABLE: connection refused'), { name: 'ServiceError', code: 14 });
const notFoundAnywhere = async () => Promise.reject(new WorkflowNotFoundError('not found', 'wf', undefined));

/** A record store keyed by `_id`, refusing a second insert of one id as MongoDB's unique `_id` does. */
function records<T extends { _id: string; state: string; error?: string | null }>(calls: string[], revivedState: string) {
  const saved = new Map<string, T>();
  let hideNextFind = false;
  return {
    saved,
    /** The next find sees nothing (another attempt saves between this one's read and its insert). */
    hideNextFind: () => (hideNextFind = true),
    repo: {
      async create(doc: T) {
        calls.push('save');
        if (saved.has(doc._id)) throw duplicateKey();
        saved.set(doc._id, structuredClone(doc));
      },
      async find(id: string) {
        if (hideNextFind) {
          hideNextFind = false;
          return null;
        }
        return saved.get(id) ?? null;
      },
      async abandon(id: string, reason: string, at: Date) {
        calls.push('abandon');
        const op = saved.get(id);
        if (op?.state !== revivedState) return false;
        saved.set(id, { ...op, state: 'failed', error: reason, finishedAt: at });
        return true;
      },
      async revive(id: string) {
        calls.push('revive');
        const op = saved.get(id);
        if (op?.state !== 'failed' || op.error !== NOT_STARTED) return false;
        saved.set(id, { ...op, state: revivedState, error: null, finishedAt: null });
        return true;
      },
    },
  };
}

function temporal(calls: string[], o: { startFailures?: number; describe?: () => Promise<unknown> } = {}) {
  let failures = o.startFailures ?? 0;
  return {
    workflow: {
      async start(_wf: unknown, options: { workflowId: string }) {
        calls.push(`start ${options.workflowId}`);
        if (failures > 0) {
          failures -= 1;
          throw temporalDown();
        }
        return { workflowId: options.workflowId };
      },
      getHandle: (workflowId: string) => ({
        describe: async () => {
          calls.push(`describe ${workflowId}`);
          return (o.describe ?? notFoundAnywhere)();
        },
      }),
    },
  };
}

describe('a bulk operation started under an Idempotency-Key', () => {
  const input = { by: { sub: 'agent-1' }, type: 'status' as const, ticketIds: [1, 2, 3], params: { status: 'closed' as const }, requestKey: 'rk-bulk' };
  const operationId = uuidFromRequestKey('rk-bulk', 'bulk-operation');
  const workflowId = `ticket-bulk-${operationId}`;

  function bulkFakes(o: Parameters<typeof temporal>[1] = {}) {
    const calls: string[] = [];
    const store = records<BulkOperationDoc>(calls, 'running');
    const deps: BulkDeps = { bulk: store.repo as unknown as BulkRepo, temporal: { client: temporal(calls, o) as never }, taskQueuePrefix: '', now: () => T0, newId: () => 'random-id' };
    return { deps, calls, store };
  }

  it('takes its id from the key: a repeat after success finds it and starts nothing', async () => {
    const f = bulkFakes();
    const first = await startBulkOperation(f.deps, input);
    expect(first).toEqual({ operationId, workflowId, type: 'status', total: 3, state: 'running' });
    f.calls.length = 0;
    await expect(startBulkOperation(f.deps, input)).resolves.toEqual(first);
    expect(f.calls).toEqual([]);
    expect(f.store.saved.size).toBe(1);
  });

  it('a start that failed after the save (503): the repeat starts that operation, and no second one is saved', async () => {
    const f = bulkFakes({ startFailures: 1 });
    await expect(startBulkOperation(f.deps, input)).rejects.toMatchObject({ name: 'ServiceError' });
    expect(f.store.saved.get(operationId)).toMatchObject({ state: 'failed', error: NOT_STARTED });
    f.calls.length = 0;
    await expect(startBulkOperation(f.deps, input)).resolves.toMatchObject({ operationId, state: 'running' });
    // Temporal is asked first (no run of the workflow goes on), then the record is revived and started.
    expect(f.calls).toEqual([`describe ${workflowId}`, 'revive', `start ${workflowId}`]);
    expect(f.store.saved.size).toBe(1);
    expect(f.store.saved.get(operationId)).toMatchObject({ state: 'running', error: null });
  });

  it('the repeat fails to start it too: 503 again, the record failed again, and a third attempt starts it', async () => {
    const f = bulkFakes({ startFailures: 2 });
    await expect(startBulkOperation(f.deps, input)).rejects.toMatchObject({ name: 'ServiceError' });
    await expect(startBulkOperation(f.deps, input)).rejects.toMatchObject({ name: 'ServiceError' });
    expect(f.store.saved.get(operationId)).toMatchObject({ state: 'failed', error: NOT_STARTED });
    await expect(startBulkOperation(f.deps, input)).resolves.toMatchObject({ state: 'running' });
    expect(f.calls.filter((c) => c === 'save')).toEqual(['save']);
    expect(f.calls.filter((c) => c.startsWith('start'))).toHaveLength(3);
  });

  it('a run of its workflow still going (a start reported failed reached Temporal): 409, nothing revived or started', async () => {
    const f = bulkFakes({ startFailures: 1, describe: async () => ({ status: { name: 'RUNNING' } }) });
    await expect(startBulkOperation(f.deps, input)).rejects.toMatchObject({ name: 'ServiceError' });
    f.calls.length = 0;
    const err = await startBulkOperation(f.deps, input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'CONFLICT' });
    expect(f.calls).toEqual([`describe ${workflowId}`]);
    expect(f.store.saved.get(operationId)).toMatchObject({ state: 'failed' });
  });

  it('that run ended (it found its record failed and did nothing): the repeat starts a new run', async () => {
    const f = bulkFakes({ startFailures: 1, describe: async () => ({ status: { name: 'COMPLETED' } }) });
    await expect(startBulkOperation(f.deps, input)).rejects.toMatchObject({ name: 'ServiceError' });
    await expect(startBulkOperation(f.deps, input)).resolves.toMatchObject({ state: 'running' });
  });

  it('Temporal unreachable when asked: the error goes on (503), the record stays as it was', async () => {
    const f = bulkFakes({ startFailures: 1, describe: async () => Promise.reject(temporalDown()) });
    await expect(startBulkOperation(f.deps, input)).rejects.toMatchObject({ name: 'ServiceError' });
    await expect(startBulkOperation(f.deps, input)).rejects.toMatchObject({ name: 'ServiceError' });
    expect(f.calls).not.toContain('revive');
    expect(f.store.saved.get(operationId)).toMatchObject({ state: 'failed', error: NOT_STARTED });
  });

  it('a repeat racing the first (its insert refused by the unique id): the first\'s operation, started once', async () => {
    const f = bulkFakes();
    await startBulkOperation(f.deps, input);
    f.calls.length = 0;
    f.store.hideNextFind();
    await expect(startBulkOperation(f.deps, input)).resolves.toMatchObject({ operationId, state: 'running' });
    expect(f.calls).toEqual(['save']);
    expect(f.store.saved.size).toBe(1);
  });

  it('another key, or none, is another operation', async () => {
    const f = bulkFakes();
    await startBulkOperation(f.deps, input);
    await startBulkOperation(f.deps, { ...input, requestKey: 'rk-other' });
    const { requestKey: _k, ...unkeyed } = input;
    await startBulkOperation(f.deps, unkeyed);
    expect([...f.store.saved.keys()]).toEqual([operationId, uuidFromRequestKey('rk-other', 'bulk-operation'), 'random-id']);
  });
});

describe('a re-enrichment started under an Idempotency-Key', () => {
  function reenrichFakes(o: Parameters<typeof temporal>[1] = {}) {
    const calls: string[] = [];
    const store = records<ReenrichmentDoc>(calls, 'running');
    const matched: number[] = [];
    const articles = {
      async idsMatching(_query: Record<string, unknown>, limit: number) {
        matched.push(limit);
        return ['a-1', 'a-2'];
      },
    };
    const deps: ReenrichDeps = { reenrichments: store.repo as unknown as ReenrichmentRepo, articles, temporal: { client: temporal(calls, o) as never }, taskQueuePrefix: '', now: () => T0 };
    return { deps, calls, store, matched };
  }
  const input = { by: 'admin-1', filter: { sector: 'FIN' }, requestKey: 'rk-reenrich' };
  const id = uuidFromRequestKey('rk-reenrich', 'news-reenrichment');

  it('a start that failed after the save: the repeat starts the operation saved, without matching the articles again', async () => {
    const f = reenrichFakes({ startFailures: 1 });
    await expect(startReenrichment(f.deps, input)).rejects.toMatchObject({ name: 'ServiceError' });
    expect(f.store.saved.get(id)).toMatchObject({ state: 'failed', error: NOT_STARTED, total: 2 });
    const again = await startReenrichment(f.deps, input);
    expect(again).toMatchObject({ _id: id, state: 'running', total: 2 });
    expect(f.matched).toHaveLength(1);
    expect(f.store.saved.size).toBe(1);
    expect(f.calls.filter((c) => c.startsWith('start'))).toEqual([`start news-reenrich-${id}`, `start news-reenrich-${id}`]);
  });
});

describe('an API key created under an Idempotency-Key', () => {
  function keyFakes(o: { failAfterWrite?: boolean } = {}) {
    const stored = new Map<string, ApiKeyDoc>();
    let failAfterWrite = o.failAfterWrite ?? false;
    const create = async (input: { userId: string; name: string; mode: 'live' | 'test'; scopes: never[]; expiresAt: Date | null; keyId?: string }) => {
      if ([...stored.values()].some((k) => k.keyId === input.keyId)) throw duplicateKey();
      const record: ApiKeyDoc = { _id: `hash-${stored.size}`, keyId: input.keyId ?? `random-${stored.size}`, userId: input.userId, name: input.name, displayPrefix: 'nws_live_abcdef', mode: input.mode, scopes: input.scopes, expiresAt: input.expiresAt, revokedAt: null, lastUsedAt: null, createdAt: T0 };
      stored.set(record._id, record);
      if (failAfterWrite) {
        failAfterWrite = false;
        // The key was stored, and the answer lost: the driver lost the connection (503).
        throw Object.assign(new Error('connection reset'), { name: 'MongoNetworkError' });
      }
      return { key: `nws_live_secret${stored.size}`, record };
    };
    const apiKeys = {
      create,
      async createOnce(input: Parameters<typeof create>[0] & { keyId: string }, beforeCreate: () => Promise<void>) {
        const earlier = [...stored.values()].find((k) => k.keyId === input.keyId);
        if (earlier) return { key: null, record: earlier };
        await beforeCreate();
        return await create(input);
      },
      findForUser: async () => null,
      revoke: async () => undefined,
      countActive: async (userId: string) => [...stored.values()].filter((k) => k.userId === userId && !k.revokedAt).length,
      discard: async () => undefined,
    } as unknown as ApiKeyDeps['apiKeys'];
    const deps: ApiKeyDeps = { apiKeys, users: { ensure: async () => ({}) as never }, now: () => T0 };
    return { deps, stored };
  }
  const input = { userId: 'user-1', email: 'u@example.com', name: 'Produção', mode: 'live' as const, expiry: 'none', requestKey: 'rk-key' };

  it('a repeat creates no second key and, the secret being shown once, is 409 naming the key made', async () => {
    const f = keyFakes();
    const first = await createApiKey(f.deps, input);
    expect(first.key).toMatch(/^nws_live_/);
    const err = await createApiKey(f.deps, input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'CONFLICT', details: { id: first.record.keyId, name: 'Produção', prefix: 'nws_live_abcdef' } });
    expect((err as Error).message).not.toContain('secret1');
    expect(f.stored.size).toBe(1);
  });

  it('the key stored and the answer lost (503): the repeat stores nothing and names the key to revoke', async () => {
    const f = keyFakes({ failAfterWrite: true });
    await expect(createApiKey(f.deps, input)).rejects.toMatchObject({ name: 'MongoNetworkError' });
    expect(f.stored.size).toBe(1);
    await expect(createApiKey(f.deps, input)).rejects.toMatchObject({ code: 'CONFLICT', details: { id: uuidFromRequestKey('rk-key', 'api-key') } });
    expect(f.stored.size).toBe(1);
  });
});
