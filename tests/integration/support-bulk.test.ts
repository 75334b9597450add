/** Bulk operations through the real worker. */
import { randomUUID } from 'node:crypto';
import { messageModel, statusEventModel, ticketModel } from '../../models/support/support.model';
import { NOT_STARTED, ORPHAN_GRACE_MS } from '../../models/infra/save-then-start';
import { provider } from '../helpers/ai';
import { CLOSED_PORT } from '../helpers/service';
import { agentToken, client, insertTickets, waitForBulk, startSupportService, type SupportService } from '../helpers/support';

jest.setTimeout(60_000);

let svc: SupportService;
let agentJwt: string;
beforeAll(async () => {
  svc = await startSupportService();
  agentJwt = await agentToken('agent-bulk');
});
afterAll(() => svc?.close());

describe('bulk operations', () => {
  it('updates the status of many tickets: 202, progress, per-ticket errors, one history event each', async () => {
    const ids = await insertTickets(svc, 25);
    const c = client(svc, agentJwt);
    await c.delete(`/support/${ids[0]}`).expect(200);
    const res = await c.post('/support/bulk/status', { ticketIds: [...ids, 99999999], status: 'resolved' }).expect(202);
    expect(res.body).toMatchObject({ success: true, data: { operationId: expect.any(String), total: 26, state: 'running', type: 'status' } });
    expect(res.headers.location).toBe(`/support/bulk/${res.body.data.operationId}`);
    const done = await waitForBulk(svc, agentJwt, res.body.data.operationId);
    expect(done).toMatchObject({ state: 'completed', total: 26, processed: 26, succeeded: 24, failed: 2 });
    expect(done.errors).toEqual([
      { ticketId: ids[0], error: 'ticket is deleted' },
      { ticketId: 99999999, error: 'ticket not found' },
    ]);
    for (const id of ids.slice(1, 4)) expect((await svc.deps.tickets.findById(id))!.status).toBe('resolved');
    const events = await statusEventModel(svc.deps.mongo.conn).find({ ticketId: { $in: ids }, to: 'resolved', source: 'bulk' }).lean();
    expect(events).toHaveLength(24);
    // Each carries its ticket's creation time (the agents report selects by it).
    const created = new Map((await svc.deps.tickets.findByIds(ids)).map((t) => [t._id, t.createdAt]));
    expect(events.filter((e) => e.ticketCreatedAt.getTime() !== created.get(e.ticketId)?.getTime())).toEqual([]);
  });

  it('sends one message to each ticket and deletes in bulk', async () => {
    const ids = await insertTickets(svc, 5);
    const c = client(svc, agentJwt);
    const msg = await c.post('/support/bulk/messages', { ticketIds: ids, conteudo: 'Reenviamos a edição de hoje.' }).expect(202);
    expect(await waitForBulk(svc, agentJwt, msg.body.data.operationId)).toMatchObject({ state: 'completed', succeeded: 5 });
    expect(await messageModel(svc.deps.mongo.conn).countDocuments({ ticketId: { $in: ids }, origem: 'admin', canal: 'api' })).toBe(5);
    expect((await svc.deps.tickets.findById(ids[0]!))!.status).toBe('in_progress');
    const del = await c.post('/support/bulk/delete', { ticketIds: ids }).expect(202);
    expect(await waitForBulk(svc, agentJwt, del.body.data.operationId)).toMatchObject({ state: 'completed', succeeded: 5 });
    expect((await svc.deps.tickets.findById(ids[4]!))!.status).toBe('deleted');
  });

  it.each([
    ['no tickets', '/support/bulk/status', { ticketIds: [], status: 'closed' }],
    ['status deleted', '/support/bulk/status', { ticketIds: [1], status: 'deleted' }],
    ['10,001 tickets', '/support/bulk/status', { ticketIds: Array.from({ length: 10_001 }, (_, i) => i + 1), status: 'closed' }],
    ['an empty message', '/support/bulk/messages', { ticketIds: [1], conteudo: '' }],
  ])('rejects %s with 400', async (_label, path, body) => {
    const res = await client(svc, agentJwt).post(path, body).expect(400);
    expect(res.body.error).toBe('VALIDATION_FAILED');
  });

  it('drafts and sends AI replies for many tickets, reporting the ones the provider refuses', async () => {
    const ids = await insertTickets(svc, 3);
    await provider().script(`ticket-${ids[0]}`, [{ kind: 'reply', content: 'Resposta um' }]);
    await provider().script(`ticket-${ids[1]}`, [{ kind: 'error', status: 500 }, { kind: 'reply', content: 'Resposta dois' }]);
    await provider().script(`ticket-${ids[2]}`, [{ kind: 'error', status: 400, message: 'refused' }]);
    const res = await client(svc, agentJwt).post('/support/bulk/fast-response', { ticketIds: ids, send: true }).expect(202);
    const done = await waitForBulk(svc, agentJwt, res.body.data.operationId);
    expect(done).toMatchObject({ state: 'completed', processed: 3, succeeded: 2, failed: 1, errors: [{ ticketId: ids[2], error: 'AI provider rejected the request: refused' }] });
    expect((await svc.deps.tickets.findById(ids[0]!))!.replied).toBe('Resposta um');
    expect((await svc.deps.tickets.findById(ids[1]!))!.replied).toBe('Resposta dois');
    expect(await messageModel(svc.deps.mongo.conn).countDocuments({ ticketId: { $in: ids }, origem: 'admin', canal: 'api' })).toBe(2);
  });

  it('changes many tickets in a few round trips with the outcomes changeStatus gives one by one', async () => {
    const conn = svc.deps.mongo.conn;
    const repo = svc.deps.tickets;
    const ids = await insertTickets(svc, 5);
    await repo.changeStatus((await repo.findById(ids[2]!))!, 'closed', 'agent', 'patch');
    const [a, b, c, d, e] = await Promise.all(ids.map(async (id) => (await repo.findById(id))!));
    const events = statusEventModel(conn);
    // d: an earlier attempt of this very change claimed the version and stopped before moving the ticket.
    await events.create({ _id: `op-m:${d!._id}`, ticketId: d!._id, version: d!.statusVersion, from: 'open', to: 'closed', by: 'agent', at: new Date(), source: 'bulk', ticketCreatedAt: d!.createdAt });
    // e: another change holds the version (claimed, not applied yet).
    await events.create({ _id: `other:${e!._id}`, ticketId: e!._id, version: e!.statusVersion, from: 'open', to: 'in_progress', by: 'someone', at: new Date(), source: 'patch', ticketCreatedAt: e!.createdAt });
    const results = await repo.changeStatusMany(
      [
        { ticket: a!, to: 'resolved', dedupeKey: `op-m:${a!._id}` },
        { ticket: b!, to: 'open', dedupeKey: `op-m:${b!._id}` },
        { ticket: c!, to: 'resolved', dedupeKey: `op-m:${c!._id}` },
        { ticket: d!, to: 'closed', dedupeKey: `op-m:${d!._id}` },
        { ticket: e!, to: 'closed', dedupeKey: `op-m:${e!._id}` },
      ],
      'agent',
      'bulk',
    );
    expect(results.get(`op-m:${a!._id}`)).toEqual({ changed: true, from: 'open' });
    expect(results.get(`op-m:${b!._id}`)).toEqual({ changed: false, from: 'open' });
    expect(results.get(`op-m:${c!._id}`)).toMatchObject({ code: 'CONFLICT', message: 'A ticket cannot go from closed to resolved' });
    expect(results.get(`op-m:${d!._id}`)).toEqual({ changed: true, from: 'open' });
    expect(results.get(`op-m:${e!._id}`)).toEqual({ changed: false, from: 'open' });
    const after = await Promise.all(ids.map(async (id) => (await repo.findById(id))!));
    expect(after.map((t) => t.status)).toEqual(['resolved', 'open', 'closed', 'closed', 'in_progress']);
    expect(after.map((t, i) => t.statusVersion - [a, b, c, d, e][i]!.statusVersion)).toEqual([1, 0, 0, 1, 1]);
    expect(after[0]!.resolvedAt).toBeInstanceOf(Date);
    // Repeated (a retried group): nothing changes twice, no second event.
    await repo.changeStatusMany([{ ticket: a!, to: 'resolved', dedupeKey: `op-m:${a!._id}` }], 'agent', 'bulk');
    expect((await repo.findById(ids[0]!))!.statusVersion).toBe(after[0]!.statusVersion);
    expect(await events.countDocuments({ ticketId: ids[0], source: 'bulk' })).toBe(1);
  });

  it('cancels a running operation: it stops between groups of tickets and keeps what was done', async () => {
    const ids = await insertTickets(svc, 2_000);
    const c = client(svc, agentJwt);
    const res = await c.post('/support/bulk/status', { ticketIds: ids, status: 'closed' }).expect(202);
    const operationId = res.body.data.operationId as string;
    const cancel = await client(svc, agentJwt).post(`/support/bulk/${operationId}/cancel`).expect(202);
    expect(cancel.body.data).toEqual({ operationId, state: 'cancelling' });
    const done = await waitForBulk(svc, agentJwt, operationId);
    expect(done.state).toBe('cancelled');
    expect(done.processed).toBeLessThan(2_000);
    const closed = await ticketModel(svc.deps.mongo.conn).countDocuments({ _id: { $in: ids }, status: 'closed' });
    expect(closed).toBe(done.processed);
    await client(svc, agentJwt).post(`/support/bulk/${operationId}/cancel`).expect(409);
  });

  it('needs support.agent and answers 404 for an unknown operation', async () => {
    await client(svc).post('/support/bulk/delete', { ticketIds: [1] }).expect(401);
    await client(svc, agentJwt).get(`/support/bulk/${randomUUID()}`).expect(404);
  });
});

describe('Temporal down while an operation starts', () => {
  it('answers 503 and leaves no operation running without a workflow: it is failed, with why, and nothing was done', async () => {
    const down = await startSupportService({ TEMPORAL_ADDRESS: `127.0.0.1:${CLOSED_PORT}` });
    const agent = `agent-down-${randomUUID().slice(0, 6)}`;
    try {
      const ids = await insertTickets(svc, 3);
      const res = await client(down, await agentToken(agent)).post('/support/bulk/status', { ticketIds: ids, status: 'closed' }).expect(503);
      expect(res.body).toMatchObject({ success: false, error: 'DEPENDENCY_UNAVAILABLE' });
      const ops = await svc.deps.mongo.conn.db!.collection('bulk_operations').find({ createdBy: agent }).toArray();
      expect(ops).toHaveLength(1);
      expect(ops[0]).toMatchObject({ state: 'failed', error: NOT_STARTED, finishedAt: expect.any(Date) });
      // Its status says so (read through the service that is up: Temporal has no such workflow).
      const status = await client(svc, agentJwt).get(`/support/bulk/${ops[0]!._id}`).expect(200);
      expect(status.body.data).toMatchObject({ state: 'failed', error: NOT_STARTED, processed: 0 });
      for (const id of ids) expect((await svc.deps.tickets.findById(id))!.status).toBe('open');
    } finally {
      await down.close();
    }
  });

  it('repairs a record left running by a double fault once its grace has passed (the workflow does not exist)', async () => {
    const operationId = randomUUID();
    await svc.deps.bulk.create({
      _id: operationId, type: 'delete', params: {}, ticketIds: [1], total: 1, state: 'running',
      createdBy: 'agent-bulk', createdByEmail: null, createdAt: new Date(Date.now() - ORPHAN_GRACE_MS - 1_000), finishedAt: null,
    });
    const status = await client(svc, agentJwt).get(`/support/bulk/${operationId}`).expect(200);
    expect(status.body.data).toMatchObject({ state: 'failed', error: NOT_STARTED });
    expect(await svc.deps.bulk.find(operationId)).toMatchObject({ state: 'failed' });
  });
});
