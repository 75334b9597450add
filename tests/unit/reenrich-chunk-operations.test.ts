/**
 * A re-enrichment's chunk, the use case, with fakes of its dependencies (the stack test in
 * tests/integration/news-reenrich.test.ts proves the wiring): the articles in order from where the
 * last attempt stopped, each outcome counted as soon as it is known; an article that cannot be
 * enriched is counted and listed, a provider outage is thrown, a spent budget ends the call with
 * where to go on, and an attempt that is over begins no further article.
 */
import { emptyUsage, LlmError } from '../../models/infra/llm';
import { EnrichmentInvalid } from '../../operations/news/enrichment';
import type { EnrichOutcome } from '../../models/news/enrichment.rules';
import { reenrichChunk, type ChunkAttempt, type ReenrichChunkDeps } from '../../operations/news/reenrich-chunk';
import type { ReenrichmentDoc } from '../../models/news/reenrichment.repo';

const T0 = new Date('2026-11-25T12:00:00Z');
const enriched: EnrichOutcome = { state: 'enriched', published: false, isBreaking: false, publishedAt: T0.toISOString() };

function fakes(o: { state?: ReenrichmentDoc['state']; recorded?: number; enrich?: (articleId: string) => Promise<EnrichOutcome> } = {}) {
  const calls: string[] = [];
  const doc = { _id: 'op-1', state: o.state ?? 'running', articleIds: ['a-0', 'a-1', 'a-2', 'a-3'] } as ReenrichmentDoc;
  const deps: ReenrichChunkDeps = {
    reenrichments: {
      get: async () => doc,
      resume: async () => void calls.push('resume'),
      positionOf: async () => o.recorded ?? 0,
      async record(_id: string, start: number, at: number, outcome: string, failure?: { articleId: string; error: string }) {
        calls.push(`record ${at} ${outcome}${failure ? ` ${failure.articleId}: ${failure.error}` : ''}`);
        return true;
      },
      wait: async (_id: string, resumeAt: Date) => void calls.push(`wait ${resumeAt.toISOString()}`),
    },
    async enrich(articleId: string) {
      calls.push(`enrich ${articleId}`);
      return await (o.enrich ?? (async () => enriched))(articleId);
    },
  };
  return { deps, calls };
}

function attempt() {
  const controller = new AbortController();
  const beats: number[] = [];
  let beating = 0;
  const a: ChunkAttempt = {
    signal: controller.signal,
    heartbeat: (at: number) => void beats.push(at),
    keepBeating: () => {
      beating += 1;
      return () => void (beating -= 1);
    },
  };
  return { attempt: a, beats, abort: (reason: unknown) => controller.abort(reason), beating: () => beating };
}

const chunk = { operationId: 'op-1', start: 0, end: 3 };

it('enriches the chunk’s articles in order, counting each, and reports each position', async () => {
  const f = fakes({ enrich: async (id) => (id === 'a-1' ? { state: 'gone' } : enriched) });
  const a = attempt();
  await expect(reenrichChunk(f.deps, chunk, a.attempt)).resolves.toEqual({ state: 'finished' });
  expect(f.calls).toEqual(['resume', 'enrich a-0', 'record 0 done', 'enrich a-1', 'record 1 gone', 'enrich a-2', 'record 2 done']);
  expect(a.beats).toEqual([0, 1, 2, 3]);
  expect(a.beating()).toBe(0);
});

it('goes on from the heartbeat or the position on the record, whichever is further', async () => {
  const fromRecord = fakes({ recorded: 2 });
  await reenrichChunk(fromRecord.deps, { ...chunk, resumeAt: 1 }, attempt().attempt);
  expect(fromRecord.calls.filter((c) => c.startsWith('enrich'))).toEqual(['enrich a-2']);
  const fromHeartbeat = fakes({ recorded: 0 });
  await reenrichChunk(fromHeartbeat.deps, { ...chunk, resumeAt: 1 }, attempt().attempt);
  expect(fromHeartbeat.calls.filter((c) => c.startsWith('enrich'))).toEqual(['enrich a-1', 'enrich a-2']);
});

it('counts and lists an article whose answers never validated, or that the provider refused, and goes on', async () => {
  const f = fakes({
    enrich: async (id) => {
      if (id === 'a-0') throw new EnrichmentInvalid(3, emptyUsage(), ['urgencyLevel: required']);
      if (id === 'a-1') throw new LlmError('rejected', 'content policy', { status: 400 });
      return enriched;
    },
  });
  await expect(reenrichChunk(f.deps, chunk, attempt().attempt)).resolves.toEqual({ state: 'finished' });
  expect(f.calls.filter((c) => c.startsWith('record'))).toEqual([
    "record 0 failed a-0: the model's enrichment was refused 3 times: urgencyLevel: required",
    'record 1 failed a-1: the AI provider refused the request (rejected): content policy',
    'record 2 done',
  ]);
});

it('throws a provider outage (Temporal retries the call) without counting the article', async () => {
  const outage = new LlmError('rate_limited', 'slow down', { status: 429, retryAfterMs: 2_000 });
  const f = fakes({ enrich: async (id) => (id === 'a-1' ? Promise.reject(outage) : enriched) });
  const a = attempt();
  await expect(reenrichChunk(f.deps, chunk, a.attempt)).rejects.toBe(outage);
  expect(f.calls.filter((c) => c.startsWith('record'))).toEqual(['record 0 done']);
  expect(a.beating()).toBe(0);
});

it('ends the call when the day’s budget is spent, saying where to go on and when', async () => {
  const resumeAt = '2026-11-26T00:00:00.000Z';
  const f = fakes({ enrich: async (id) => (id === 'a-1' ? { state: 'waiting', resumeAt } : enriched) });
  await expect(reenrichChunk(f.deps, chunk, attempt().attempt)).resolves.toEqual({ state: 'waiting', waitUntil: resumeAt, next: 1 });
  expect(f.calls).toEqual(['resume', 'enrich a-0', 'record 0 done', 'enrich a-1', `wait ${resumeAt}`]);
});

it('once the attempt is over, begins no further article, and a call it cut short is not counted as a failure', async () => {
  const a = attempt();
  const reason = new Error('cancelled');
  const f = fakes({
    enrich: async (id) => {
      if (id === 'a-0') return enriched;
      a.abort(reason);
      throw new LlmError('timeout', 'AI request was cancelled');
    },
  });
  await expect(reenrichChunk(f.deps, chunk, a.attempt)).rejects.toBe(reason);
  expect(f.calls).toEqual(['resume', 'enrich a-0', 'record 0 done', 'enrich a-1']);
});

it('does nothing for an operation that is not running', async () => {
  const f = fakes({ state: 'cancelled' });
  await expect(reenrichChunk(f.deps, chunk, attempt().attempt)).resolves.toEqual({ state: 'finished' });
  expect(f.calls).toEqual([]);
});
