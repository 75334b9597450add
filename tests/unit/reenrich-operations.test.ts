/**
 * The re-enrichment use cases with fakes of their dependencies (the stack test in
 * tests/integration/news-reenrich.test.ts proves the wiring): the filter as a query, its limits,
 * save then start, the repair of a record whose workflow never started, cancel.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { AppError } from '../../models/errors';
import { NOT_STARTED, ORPHAN_GRACE_MS } from '../../models/infra/save-then-start';
import { PROMPT_VERSION } from '../../models/news/enrichment.rules';
import { cancelReenrichment, reenrichmentProgress, startReenrichment, type ReenrichDeps } from '../../operations/news/reenrich';
import { REENRICH_CHUNK_SIZE, REENRICH_MAX_ARTICLES, reenrichQuery } from '../../models/news/reenrich.rules';
import type { ReenrichmentDoc, ReenrichmentRepo } from '../../models/news/reenrichment.repo';

const T0 = new Date('2026-11-25T12:00:00Z');

function fakes(o: { matching?: number; start?: () => Promise<unknown>; abandonFails?: boolean; describe?: () => Promise<unknown>; cancel?: () => Promise<unknown> } = {}) {
  const saved = new Map<string, ReenrichmentDoc>();
  const calls: string[] = [];
  const queries: { query: Record<string, unknown>; limit: number }[] = [];
  const starts: { workflowId: string; taskQueue: string; args: unknown[] }[] = [];
  let now = T0;
  const reenrichments = {
    async create(doc: ReenrichmentDoc) {
      calls.push('save');
      saved.set(doc._id, structuredClone(doc));
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
  } as unknown as ReenrichmentRepo;
  const articles = {
    async idsMatching(query: Record<string, unknown>, limit: number) {
      queries.push({ query, limit });
      return Array.from({ length: Math.min(limit, o.matching ?? 3) }, (_, i) => `a-${i}`);
    },
  };
  const workflow = {
    start: async (_wf: unknown, options: { workflowId: string; taskQueue: string; args: unknown[] }) => {
      calls.push(`start ${options.workflowId}`);
      starts.push(options);
      return (o.start ?? (async () => ({ workflowId: options.workflowId })))();
    },
    getHandle: (workflowId: string) => ({
      describe: o.describe ?? (async () => ({})),
      cancel: async () => {
        calls.push(`cancel ${workflowId}`);
        return (o.cancel ?? (async () => undefined))();
      },
    }),
  };
  const deps: ReenrichDeps = { reenrichments, articles, temporal: { client: { workflow } as never }, taskQueuePrefix: 'p-', now: () => now, newId: () => 'op-1' };
  return { deps, saved, calls, queries, starts, later: (ms: number) => (now = new Date(T0.getTime() + ms)) };
}

const by = 'admin-1';

describe('the filter', () => {
  it('becomes one query on the articles, every field narrowing it', () => {
    const from = new Date('2026-11-01T00:00:00Z');
    const to = new Date('2026-11-24T23:59:59Z');
    expect(reenrichQuery({ sourceId: 's-1', sector: 'FIN', from, to, promptVersionNot: 'enrich-old', articleIds: ['a', 'b'] })).toEqual({
      sourceId: 's-1',
      primarySector: 'FIN',
      publishedAt: { $gte: from, $lte: to },
      'enrichment.promptVersion': { $ne: 'enrich-old' },
      _id: { $in: ['a', 'b'] },
    });
    expect(reenrichQuery({ to })).toEqual({ publishedAt: { $lte: to } });
    expect(reenrichQuery({ sector: undefined, from })).toEqual({ publishedAt: { $gte: from } });
  });
});

describe('starting a re-enrichment', () => {
  it('resolves the filter to its articles, saves them on the operation, then starts its workflow on news-sources', async () => {
    const f = fakes();
    const started = await startReenrichment(f.deps, { by, filter: { sourceId: 's-1', sector: undefined } });
    expect(started).toMatchObject({ _id: 'op-1', state: 'running', total: 3, done: 0, failed: 0, waiting: 0, promptVersion: PROMPT_VERSION, filter: { sourceId: 's-1' }, createdBy: by, createdAt: T0 });
    expect(started).not.toHaveProperty('articleIds');
    expect(f.queries).toEqual([{ query: { sourceId: 's-1' }, limit: REENRICH_MAX_ARTICLES + 1 }]);
    expect(f.calls).toEqual(['save', 'start news-reenrich-op-1']);
    expect(f.starts[0]).toMatchObject({ taskQueue: 'p-news-sources', args: [{ operationId: 'op-1', total: 3, chunkSize: REENRICH_CHUNK_SIZE }] });
    expect(f.saved.get('op-1')).toMatchObject({ articleIds: ['a-0', 'a-1', 'a-2'], filter: { sourceId: 's-1' } });
    expect(Object.keys(f.saved.get('op-1')!.filter)).toEqual(['sourceId']);
  });

  it(`refuses a filter matching more than ${REENRICH_MAX_ARTICLES} articles, and an empty one, storing nothing`, async () => {
    const f = fakes({ matching: REENRICH_MAX_ARTICLES + 5 });
    const err = await startReenrichment(f.deps, { by, filter: { sector: 'FIN' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/more than 10,000 articles: narrow it/) });
    await expect(startReenrichment(f.deps, { by, filter: { sourceId: undefined } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(f.calls).toEqual([]);
    // Exactly the limit is accepted.
    const g = fakes({ matching: REENRICH_MAX_ARTICLES });
    await expect(startReenrichment(g.deps, { by, filter: { sector: 'FIN' } })).resolves.toMatchObject({ total: REENRICH_MAX_ARTICLES });
  });

  it('when the start fails: the operation is marked failed with why, and the error goes to the caller', async () => {
    const down = new Error('Temporal unavailable');
    const f = fakes({ start: async () => Promise.reject(down) });
    await expect(startReenrichment(f.deps, { by, filter: { sector: 'FIN' } })).rejects.toBe(down);
    expect(f.calls).toEqual(['save', 'start news-reenrich-op-1', 'abandon']);
    expect(f.saved.get('op-1')).toMatchObject({ state: 'failed', error: NOT_STARTED, finishedAt: T0 });
  });
});

describe('progress', () => {
  it('a double fault leaves it running; its first read past the grace period whose workflow does not exist marks it failed', async () => {
    const f = fakes({ start: async () => Promise.reject(new Error('Temporal unavailable')), abandonFails: true, describe: async () => Promise.reject(new WorkflowNotFoundError('not found', 'news-reenrich-op-1', undefined)) });
    await expect(startReenrichment(f.deps, { by, filter: { sector: 'FIN' } })).rejects.toThrow('Temporal unavailable');
    expect(f.saved.get('op-1')!.state).toBe('running');
    const repairing = { ...f.deps, reenrichments: { ...f.deps.reenrichments, abandon: async (id: string, reason: string, at: Date) => { f.saved.set(id, { ...f.saved.get(id)!, state: 'failed', error: reason, finishedAt: at }); return true; } } as unknown as ReenrichmentRepo };
    f.later(ORPHAN_GRACE_MS - 1);
    expect((await reenrichmentProgress(repairing, 'op-1')).state).toBe('running');
    f.later(ORPHAN_GRACE_MS);
    expect(await reenrichmentProgress(repairing, 'op-1')).toMatchObject({ state: 'failed', error: NOT_STARTED });
  });

  it('a running operation whose workflow exists, or whose workflow Temporal cannot tell of, is left as it is; an unknown one is a 404', async () => {
    for (const describe of [async () => ({}), async () => Promise.reject(new Error('Temporal unavailable'))]) {
      const f = fakes({ describe });
      await startReenrichment(f.deps, { by, filter: { sector: 'FIN' } });
      f.later(10 * ORPHAN_GRACE_MS);
      expect((await reenrichmentProgress(f.deps, 'op-1')).state).toBe('running');
    }
    await expect(reenrichmentProgress(fakes().deps, 'nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('cancel', () => {
  it('asks the workflow to stop; one Temporal no longer knows is fine; an ended operation is a 409, an unknown one a 404', async () => {
    const f = fakes();
    await startReenrichment(f.deps, { by, filter: { sector: 'FIN' } });
    await expect(cancelReenrichment(f.deps, 'op-1')).resolves.toEqual({ id: 'op-1', state: 'cancelling' });
    expect(f.calls.at(-1)).toBe('cancel news-reenrich-op-1');

    const gone = fakes({ cancel: async () => Promise.reject(new WorkflowNotFoundError('not found', 'news-reenrich-op-1', undefined)) });
    await startReenrichment(gone.deps, { by, filter: { sector: 'FIN' } });
    await expect(cancelReenrichment(gone.deps, 'op-1')).resolves.toMatchObject({ state: 'cancelling' });

    f.saved.set('op-1', { ...f.saved.get('op-1')!, state: 'completed' });
    await expect(cancelReenrichment(f.deps, 'op-1')).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(cancelReenrichment(f.deps, 'nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
