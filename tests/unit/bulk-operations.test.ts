/**
 * The bulk use cases with fakes of their dependencies (the stack tests in
 * tests/integration/support-bulk.test.ts prove the wiring): save, then start, and what each fault
 * leaves behind.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { NOT_STARTED, ORPHAN_GRACE_MS } from '../../models/infra/save-then-start';
import type { BulkOperationDoc, BulkRepo } from '../../models/support/bulk.repo';
import { bulkOperationStatus, startBulkOperation, type BulkDeps } from '../../operations/support/bulk';

const T0 = new Date('2026-11-24T12:00:00Z');

function fakes(o: { start?: () => Promise<unknown>; abandonFails?: boolean; describe?: () => Promise<unknown> } = {}) {
  const saved = new Map<string, BulkOperationDoc>();
  const calls: string[] = [];
  let now = T0;
  const bulk = {
    async create(doc: BulkOperationDoc) {
      calls.push('save');
      saved.set(doc._id, { ...doc });
    },
    find: async (id: string) => saved.get(id) ?? null,
    async abandon(id: string, reason: string, at: Date) {
      calls.push('abandon');
      if (o.abandonFails) throw new Error('MongoDB is down too');
      const op = saved.get(id);
      if (op?.state !== 'running') return false;
      saved.set(id, { ...op, state: 'failed', error: reason, finishedAt: at });
      return true;
    },
    progress: () => ({ processed: 0, succeeded: 0, failed: 0, errors: [] }),
  } as unknown as BulkRepo;
  const workflow = {
    start: async (_wf: unknown, options: { workflowId: string }) => {
      calls.push(`start ${options.workflowId}`);
      return (o.start ?? (async () => ({ workflowId: options.workflowId })))();
    },
    getHandle: () => ({ describe: o.describe ?? (async () => ({})) }),
  };
  const deps: BulkDeps = { bulk, temporal: { client: { workflow } as never }, taskQueuePrefix: '', now: () => now, newId: () => 'op-1' };
  return { deps, saved, calls, later: (ms: number) => (now = new Date(T0.getTime() + ms)) };
}

const input = { by: { sub: 'agent-1', email: 'a@newsletter.dev' }, type: 'status' as const, ticketIds: [1, 2, 3], params: { status: 'closed' as const } };

describe('starting a bulk operation', () => {
  it('saves the operation, then starts its workflow', async () => {
    const f = fakes();
    await expect(startBulkOperation(f.deps, input)).resolves.toEqual({ operationId: 'op-1', workflowId: 'ticket-bulk-op-1', type: 'status', total: 3, state: 'running' });
    expect(f.calls).toEqual(['save', 'start ticket-bulk-op-1']);
    expect(f.saved.get('op-1')).toMatchObject({ state: 'running', createdBy: 'agent-1', createdByEmail: 'a@newsletter.dev', ticketIds: [1, 2, 3] });
  });

  it('when the start fails: the operation is marked failed with why, and the error goes to the caller', async () => {
    const down = new Error('Temporal unavailable');
    const f = fakes({ start: async () => Promise.reject(down) });
    await expect(startBulkOperation(f.deps, input)).rejects.toBe(down);
    expect(f.calls).toEqual(['save', 'start ticket-bulk-op-1', 'abandon']);
    expect(f.saved.get('op-1')).toMatchObject({ state: 'failed', error: NOT_STARTED, finishedAt: T0 });
  });

  it('a double fault leaves it running; its first read past the grace period marks it failed, not before', async () => {
    const f = fakes({ start: async () => Promise.reject(new Error('Temporal unavailable')), abandonFails: true, describe: async () => Promise.reject(new WorkflowNotFoundError('not found', 'ticket-bulk-op-1', undefined)) });
    await expect(startBulkOperation(f.deps, input)).rejects.toThrow('Temporal unavailable');
    expect(f.saved.get('op-1')!.state).toBe('running');
    const repairing = { ...f.deps, bulk: { ...f.deps.bulk, abandon: async (id: string, reason: string, at: Date) => { f.saved.set(id, { ...f.saved.get(id)!, state: 'failed', error: reason, finishedAt: at }); return true; } } as unknown as BulkRepo };
    f.later(ORPHAN_GRACE_MS - 1);
    expect((await bulkOperationStatus(repairing, 'op-1')).state).toBe('running');
    f.later(ORPHAN_GRACE_MS);
    expect(await bulkOperationStatus(repairing, 'op-1')).toMatchObject({ state: 'failed', error: NOT_STARTED });
  });

  it('a running operation whose workflow exists, or whose workflow Temporal cannot tell of, is left as it is', async () => {
    for (const describe of [async () => ({}), async () => Promise.reject(new Error('Temporal unavailable'))]) {
      const f = fakes({ describe });
      await startBulkOperation(f.deps, input);
      f.later(10 * ORPHAN_GRACE_MS);
      expect((await bulkOperationStatus(f.deps, 'op-1')).state).toBe('running');
    }
  });
});
