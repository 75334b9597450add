/**
 * A bulk operation's chunk, the use case, with fakes of its dependencies (the stack tests in
 * tests/integration/support-bulk*.test.ts and activity-cancellation.test.ts prove the wiring):
 * each ticket once, from where the last attempt stopped; a ticket's own fault is its outcome, an
 * infrastructure fault or an unavailable AI provider retries the chunk; a cancelled attempt stops
 * and saves its exact progress.
 */
import { AppError } from '../../models/errors';
import { LlmError, type LlmRequest } from '../../models/infra/llm';
import type { BulkOperationDoc, ChunkSummary } from '../../models/support/bulk.repo';
import { bulkKey, type BulkParams, type BulkType } from '../../models/support/bulk.rules';
import { processBulkChunk, type BulkChunkDeps, type ChunkAttempt } from '../../operations/support/bulk-chunk';
import type { TicketDoc } from '../../models/support/support.model';
import type { TicketStatus } from '../../models/support/ticket.rules';

const T0 = new Date('2026-11-24T12:00:00Z');

const ticket = (id: number, status: TicketStatus = 'open'): TicketDoc => ({
  _id: id,
  main: 'Entrega',
  issue: 'Newsletter não chegou',
  description: `A edição de hoje não chegou (${id})`,
  status,
  email: `leitor${id}@example.com`,
  newsletter: null,
  wantReply: true,
  replied: null,
  tags: [],
  statusVersion: 1,
  statusBeforeDelete: null,
  deletedAt: null,
  firstAdminReplyAt: null,
  firstAdminReplyBy: null,
  resolvedAt: null,
  reopenCount: 0,
  lastMessageAt: null,
  createdAt: T0,
  updatedAt: T0,
});

function fakes(o: { type: BulkType; params?: BulkParams; tickets: TicketDoc[]; state?: BulkOperationDoc['state']; complete?: (req: LlmRequest) => Promise<string> }) {
  const calls: string[] = [];
  const outcomes = new Map<number, string | null>();
  const saved: ChunkSummary[] = [];
  const messages: { ticketId: number; conteudo: string; dedupeKey: string | undefined }[] = [];
  const replied = new Map<number, string | null | undefined>();
  const prompts: LlmRequest[] = [];
  const byId = new Map(o.tickets.map((t) => [t._id, t]));
  const op: BulkOperationDoc = {
    _id: 'op-1',
    type: o.type,
    params: o.params ?? {},
    ticketIds: o.tickets.map((t) => t._id).concat([999]),
    total: o.tickets.length + 1,
    state: o.state ?? 'running',
    createdBy: 'agent-1',
    createdByEmail: 'agente@newsletter.dev',
    createdAt: T0,
    finishedAt: null,
  };
  const summarize = (ids: number[]): ChunkSummary => {
    const done = ids.filter((id) => outcomes.has(id));
    const errors = done.flatMap((ticketId) => (outcomes.get(ticketId) ? [{ ticketId, error: outcomes.get(ticketId)! }] : []));
    return { processed: done.length, succeeded: done.length - errors.length, failed: errors.length, errors };
  };
  const deps: BulkChunkDeps = {
    bulk: {
      find: async () => op,
      summarize: async (_id: string, ids: number[]) => summarize(ids),
      processedOf: async (_id: string, ids: readonly number[]) => new Set(ids.filter((id) => outcomes.has(id))),
      async recordMany(_id: string, list: readonly { ticketId: number; error: string | null }[]) {
        calls.push(`record ${list.map((l) => l.ticketId).join(',')}`);
        for (const l of list) outcomes.set(l.ticketId, l.error);
      },
      async saveChunk(_id: string, _start: number, summary: ChunkSummary) {
        saved.push(structuredClone(summary));
      },
    },
    tickets: {
      findByIds: async (ids: readonly number[]) => ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : [])),
      async changeStatusMany(changes: readonly { ticket: Pick<TicketDoc, '_id' | 'status'>; to: TicketStatus; dedupeKey: string }[]) {
        calls.push(`change ${changes.map((c) => c.ticket._id).join(',')}`);
        return new Map(changes.map((c) => [c.dedupeKey, c.ticket.status === 'closed' && c.to === 'in_progress' ? new AppError('CONFLICT', 'A ticket cannot go from closed to in_progress') : { changed: true, from: c.ticket.status }]));
      },
      async updateFields(id: number, fields: { replied?: string | null }) {
        replied.set(id, fields.replied);
      },
      async addMessage(t: Pick<TicketDoc, '_id'>, m: { conteudo: string; dedupeKey?: string }) {
        messages.push({ ticketId: t._id, conteudo: m.conteudo, dedupeKey: m.dedupeKey });
        return { message: { _id: messages.length }, added: true };
      },
      messages: async () => [],
      async addTag(id: number, tag: number) {
        const t = byId.get(id)!;
        if (!t.tags.includes(tag)) t.tags = [...t.tags, tag];
      },
      async removeTag(id: number, tag: number) {
        const t = byId.get(id)!;
        const had = t.tags.includes(tag);
        t.tags = t.tags.filter((x) => x !== tag);
        return had;
      },
      async assign(id: number, expected: string | null, to: string | null) {
        const t = byId.get(id)!;
        if ((t.assignee ?? null) !== expected) return false;
        t.assignee = to;
        return true;
      },
      async setAssignee(id: number, to: string | null) {
        byId.get(id)!.assignee = to;
        return true;
      },
    } as unknown as BulkChunkDeps['tickets'],
    now: () => T0,
    quickReplies: { list: async () => [] },
    llm: {
      async complete(req: LlmRequest) {
        prompts.push(req);
        return { content: await (o.complete ?? (async () => '  Olá! Reenviamos a edição.  '))(req), model: 'mini', finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } } as never;
      },
    },
    model: 'mini',
  };
  return { deps, calls, outcomes, saved, messages, replied, prompts };
}

function attempt(o: { cancelRequested?: boolean } = {}) {
  const controller = new AbortController();
  const beats: number[] = [];
  let beating = 0;
  const a: ChunkAttempt = {
    signal: controller.signal,
    cancelRequested: o.cancelRequested ?? false,
    heartbeat: (at: number) => void beats.push(at),
    keepBeating: () => {
      beating += 1;
      return () => void (beating -= 1);
    },
  };
  return { attempt: a, beats, abort: (reason: unknown) => controller.abort(reason), beating: () => beating };
}

const chunk = (resumeAt = 0) => ({ operationId: 'op-1', start: 0, end: 3, resumeAt });

describe('a chunk of status changes', () => {
  it('changes its tickets in one group, records every outcome, a refused transition as its error, and saves the exact summary', async () => {
    const f = fakes({ type: 'status', params: { status: 'in_progress' }, tickets: [ticket(1), ticket(2, 'closed'), ticket(3, 'deleted')] });
    const a = attempt();
    await expect(processBulkChunk(f.deps, chunk(), a.attempt)).resolves.toEqual({ processed: 3 });
    expect(f.calls).toEqual(['change 1,2', 'record 3,1,2']);
    expect(Object.fromEntries(f.outcomes)).toEqual({ 1: null, 2: 'A ticket cannot go from closed to in_progress', 3: 'ticket is deleted' });
    expect(a.beats).toEqual([3]);
    expect(f.saved.at(-1)).toMatchObject({ processed: 3, succeeded: 1, failed: 2 });
  });

  it('does nothing for an operation that is not running (gone, or abandoned)', async () => {
    const f = fakes({ type: 'status', params: { status: 'closed' }, state: 'failed', tickets: [ticket(1)] });
    await expect(processBulkChunk(f.deps, chunk(), attempt().attempt)).resolves.toEqual({ processed: 0 });
    expect(f.calls).toEqual([]);
    expect(f.saved).toEqual([]);
  });
});

describe('a chunk of messages', () => {
  it('writes each ticket’s message under its key, one at a time, and heartbeats after each', async () => {
    const f = fakes({ type: 'messages', params: { conteudo: 'Estamos verificando.' }, tickets: [ticket(1), ticket(2), ticket(3)] });
    const a = attempt();
    await processBulkChunk(f.deps, chunk(), a.attempt);
    expect(f.messages).toEqual([1, 2, 3].map((id) => ({ ticketId: id, conteudo: 'Estamos verificando.', dedupeKey: bulkKey('op-1', id) })));
    expect(f.calls).toEqual(['record 1', 'record 2', 'record 3']);
    expect(a.beats).toEqual([1, 2, 3, 3]);
  });

  it('resumes after the position the last attempt reported, counting what it did', async () => {
    const f = fakes({ type: 'messages', params: { conteudo: 'Oi' }, tickets: [ticket(1), ticket(2), ticket(3)] });
    f.outcomes.set(1, null);
    await processBulkChunk(f.deps, chunk(1), attempt().attempt);
    expect(f.messages.map((m) => m.ticketId)).toEqual([2, 3]);
    expect(f.saved[0]).toMatchObject({ processed: 3, succeeded: 3 });
  });

  it('skips a ticket whose outcome was recorded by an attempt that died before heartbeating', async () => {
    const f = fakes({ type: 'messages', params: { conteudo: 'Oi' }, tickets: [ticket(1), ticket(2), ticket(3)] });
    f.outcomes.set(2, null);
    await processBulkChunk(f.deps, chunk(), attempt().attempt);
    expect(f.messages.map((m) => m.ticketId)).toEqual([1, 3]);
  });
});

describe('a chunk of AI replies', () => {
  it('drafts each reply while the attempt keeps beating, stores it and sends it when asked', async () => {
    const f = fakes({ type: 'fast_response', params: { send: true }, tickets: [ticket(1), ticket(2), ticket(3)] });
    const a = attempt();
    await processBulkChunk(f.deps, chunk(), a.attempt);
    expect(f.prompts.map((p) => p.user)).toEqual(['ticket-1', 'ticket-2', 'ticket-3']);
    expect([...f.replied.values()]).toEqual(['Olá! Reenviamos a edição.', 'Olá! Reenviamos a edição.', 'Olá! Reenviamos a edição.']);
    expect(f.messages.map((m) => m.dedupeKey)).toEqual([1, 2, 3].map((id) => bulkKey('op-1', id)));
    expect(a.beating()).toBe(0);
  });

  it('records a ticket the provider refused as failed, and goes on', async () => {
    const f = fakes({
      type: 'fast_response',
      tickets: [ticket(1), ticket(2), ticket(3)],
      complete: async (req) => (req.user === 'ticket-2' ? Promise.reject(new LlmError('rejected', 'AI provider rejected the request: content policy', { status: 400 })) : 'Resposta'),
    });
    await processBulkChunk(f.deps, chunk(), attempt().attempt);
    expect(Object.fromEntries(f.outcomes)).toEqual({ 1: null, 2: 'AI provider rejected the request: content policy', 3: null });
    expect(f.messages).toEqual([]);
  });

  it('throws an unavailable provider’s error (the activity retries the chunk from that ticket) without recording that ticket', async () => {
    const f = fakes({
      type: 'fast_response',
      tickets: [ticket(1), ticket(2), ticket(3)],
      complete: async (req) => (req.user === 'ticket-2' ? Promise.reject(new Error('socket hang up')) : 'Resposta'),
    });
    const a = attempt();
    const thrown = await processBulkChunk(f.deps, chunk(), a.attempt).catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(LlmError);
    expect(thrown).toMatchObject({ kind: 'unavailable', message: 'AI provider call failed: socket hang up' });
    expect([...f.outcomes.keys()]).toEqual([1]);
    expect(a.beats).toEqual([1]);
    expect(a.beating()).toBe(0);
  });
});

describe('a cancelled attempt', () => {
  it('stops before the next ticket and, when the workflow asked, saves the exact progress', async () => {
    const a = attempt({ cancelRequested: true });
    const reason = new Error('cancelled');
    const f = fakes({
      type: 'messages',
      params: { conteudo: 'Oi' },
      tickets: [ticket(1), ticket(2), ticket(3)],
    });
    const addMessage = f.deps.tickets.addMessage;
    f.deps.tickets.addMessage = async (...args) => {
      const added = await addMessage(...args);
      a.abort(reason);
      return added;
    };
    await expect(processBulkChunk(f.deps, chunk(), a.attempt)).rejects.toBe(reason);
    expect(f.messages.map((m) => m.ticketId)).toEqual([1]);
    expect(f.saved.at(-1)).toEqual({ processed: 1, succeeded: 1, failed: 0, errors: [] });
  });

  it('after a timeout (no cancellation asked) stops without saving: the next attempt counts', async () => {
    const a = attempt();
    const reason = new Error('timed out');
    const f = fakes({ type: 'messages', params: { conteudo: 'Oi' }, tickets: [ticket(1), ticket(2), ticket(3)] });
    const addMessage = f.deps.tickets.addMessage;
    f.deps.tickets.addMessage = async (...args) => {
      const added = await addMessage(...args);
      a.abort(reason);
      return added;
    };
    await expect(processBulkChunk(f.deps, chunk(), a.attempt)).rejects.toBe(reason);
    expect(f.saved).toEqual([]);
  });
});

describe('a chunk of tag and assignment changes (issue 38)', () => {
  it('puts tags on and takes them off each ticket, and a retried chunk changes nothing twice', async () => {
    const tickets = [ticket(1, 'open'), ticket(2, 'in_progress')];
    tickets[1]!.tags = [7];
    const f = fakes({ type: 'tags', params: { addTags: [5], removeTags: [7] }, tickets });
    await processBulkChunk(f.deps, chunk(), attempt().attempt);
    expect(tickets.map((t) => t.tags)).toEqual([[5], [5]]);
    expect([...f.outcomes.entries()]).toEqual([[1, null], [2, null], [999, 'ticket not found']]);
  });

  it("takes for an agent only the tickets no one has, reporting another's as an error", async () => {
    const tickets = [ticket(1, 'open'), ticket(2, 'open'), ticket(3, 'in_progress')];
    tickets[1]!.assignee = 'bruno@newsletter.dev';
    tickets[2]!.assignee = 'agente@newsletter.dev';
    const f = fakes({ type: 'assign', params: { assignee: 'agente@newsletter.dev', override: false }, tickets });
    await processBulkChunk(f.deps, { ...chunk(), end: 4 }, attempt().attempt);
    expect(tickets.map((t) => t.assignee)).toEqual(['agente@newsletter.dev', 'bruno@newsletter.dev', 'agente@newsletter.dev']);
    expect(f.outcomes.get(2)).toBe('assigned to bruno@newsletter.dev');
    expect(f.outcomes.get(1)).toBeNull();
    expect(f.outcomes.get(3)).toBeNull();
  });

  it("reassigns every ticket for a manager", async () => {
    const tickets = [ticket(1, 'open'), ticket(2, 'open')];
    tickets[1]!.assignee = 'bruno@newsletter.dev';
    const f = fakes({ type: 'assign', params: { assignee: 'carla@newsletter.dev', override: true }, tickets });
    await processBulkChunk(f.deps, chunk(), attempt().attempt);
    expect(tickets.map((t) => t.assignee)).toEqual(['carla@newsletter.dev', 'carla@newsletter.dev']);
  });
});
