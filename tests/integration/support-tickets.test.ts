/** Tickets, messages, tags, quick replies, soft delete, transitions, access and rate limits. */
import { messageModel, statusEventModel } from '../../models/support/support.model';
import { agentToken, buildTicket, client, readerToken, startSupportService, type SupportService } from '../helpers/support';

let svc: SupportService;
let agent: ReturnType<typeof client>;
let agentJwt: string;
beforeAll(async () => {
  svc = await startSupportService();
  agentJwt = await agentToken('agent-maria');
});
// A fresh client IP per test keeps each test inside its own rate-limit window.
beforeEach(() => {
  agent = client(svc, agentJwt);
});
afterAll(() => svc?.close());

async function createTicket(overrides: Record<string, unknown> = {}) {
  const res = await client(svc).post('/support', buildTicket(overrides)).expect(201);
  return res.body.data as { id: number; email: string; status: string };
}

describe('POST /support (public)', () => {
  it('creates an open ticket with 201 in the support envelope', async () => {
    const body = buildTicket();
    const res = await client(svc).post('/support', body).expect(201);
    expect(res.body).toMatchObject({
      success: true,
      message: 'Ticket criado',
      data: { id: expect.any(Number), status: 'open', main: body.main, issue: body.issue, email: body.email, deletedAt: null, tags: [] },
    });
    const history = await statusEventModel(svc.deps.mongo.conn).find({ ticketId: res.body.data.id }).lean();
    expect(history).toEqual([expect.objectContaining({ from: null, to: 'open', source: 'create', ticketCreatedAt: new Date(res.body.data.createdAt) })]);
  });

  it.each([
    [{ issue: 'Quero um reembolso' }, /issue must be one of/],
    [{ email: 'not-an-email' }, /email/],
    [{ description: '' }, /description/],
    [{ main: undefined }, /main/],
  ])('rejects %j with 400 and stores nothing', async (override, message) => {
    const body = buildTicket(override);
    const res = await client(svc).post('/support', body).expect(400);
    expect(res.body).toMatchObject({ success: false, message: expect.stringMatching(message), error: 'VALIDATION_FAILED' });
    const stored = await svc.deps.mongo.conn.db!.collection('tickets').countDocuments({ email: String(body.email).toLowerCase() });
    expect(stored).toBe(0);
  });

  it('limits ticket creation per IP more tightly than other requests', async () => {
    const c = client(svc);
    for (let i = 0; i < 10; i += 1) await c.post('/support', buildTicket()).expect(201);
    const limited = await c.post('/support', buildTicket()).expect(429);
    expect(limited.body).toEqual({ success: false, message: 'Too many tickets created: 10 per minute', error: 'RATE_LIMITED' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('GET /support and GET /support/:id', () => {
  it('lists newest first with page, limit, total and page count, and filters', async () => {
    const email = `filter-${Date.now()}@example.com`;
    const a = await createTicket({ email, issue: 'Prêmio com defeito', description: 'O fone chegou quebrado' });
    const b = await createTicket({ email, description: 'Outro problema qualquer aqui' });
    const res = await agent.get(`/support?email=${email}&limit=1&page=1`).expect(200);
    expect(res.body.pagination).toEqual({ page: 1, limit: 1, total: 2, totalPages: 2 });
    expect(res.body.data.map((t: { id: number }) => t.id)).toEqual([b.id]);
    const byIssue = await agent.get(`/support?email=${email}&issue=${encodeURIComponent('Prêmio com defeito')}`).expect(200);
    expect(byIssue.body.data.map((t: { id: number }) => t.id)).toEqual([a.id]);
    const byText = await agent.get(`/support?email=${email}&q=QUEBRADO`).expect(200);
    expect(byText.body.data.map((t: { id: number }) => t.id)).toEqual([a.id]);
    const byDate = await agent.get(`/support?email=${email}&from=2000-01-01&to=2000-12-31`).expect(200);
    expect(byDate.body.data).toEqual([]);
  });

  it.each(['limit=0', 'limit=101', 'page=0', 'status=archived', 'from=yesterday', 'q=a', 'q=ab%00cd'])('rejects ?%s with 400', async (q) => {
    const res = await agent.get(`/support?${q}`).expect(400);
    expect(res.body.error).toBe('VALIDATION_FAILED');
  });

  it('shows a ticket with tags, anexos and mensagens; the first message is the description with id null', async () => {
    const t = await createTicket();
    const res = await agent.get(`/support/${t.id}`).expect(200);
    expect(res.body.data).toMatchObject({ id: t.id, tags: [], anexos: [], mensagens: [{ id: null, conteudo: expect.any(String), remetente: t.email, origem: 'usuario' }] });
    await agent.get('/support/999999999').expect(404);
    await agent.get('/support/abc').expect(400);
  });

  it('lets a requester without support.agent see only tickets of their own e-mail', async () => {
    const mine = await createTicket();
    const other = await createTicket();
    const reader = client(svc, await readerToken(mine.email));
    const list = await reader.get('/support').expect(200);
    expect(list.body.data.map((t: { id: number }) => t.id)).toEqual([mine.id]);
    await reader.get(`/support/${mine.id}`).expect(200);
    const hidden = await reader.get(`/support/${other.id}`).expect(404);
    expect(hidden.body).toEqual({ success: false, message: 'ticket not found', error: 'NOT_FOUND' });
    await reader.patch(`/support/${mine.id}`, { status: 'closed' }).expect(403);
    await client(svc).get('/support').expect(401);
  });
});

describe('PATCH /support/:id and transitions', () => {
  it('updates only supplied fields and answers {id, status, issue, replied, updatedAt}', async () => {
    const t = await createTicket();
    const res = await agent.patch(`/support/${t.id}`, { status: 'in_progress', replied: 'Estamos verificando.' }).expect(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Ticket atualizado',
      data: { id: t.id, status: 'in_progress', issue: expect.any(String), replied: 'Estamos verificando.', updatedAt: expect.any(String) },
    });
    const events = await statusEventModel(svc.deps.mongo.conn).find({ ticketId: t.id }).sort({ at: 1 }).lean();
    expect(events.map((e) => [e.from, e.to, e.by])).toEqual([[null, 'open', t.email], ['open', 'in_progress', 'agent-maria@newsletter.dev']]);
  });

  it('enforces the transition table and counts reopens', async () => {
    const t = await createTicket();
    await agent.patch(`/support/${t.id}`, { status: 'resolved' }).expect(200);
    await agent.patch(`/support/${t.id}`, { status: 'open' }).expect(200);
    await agent.patch(`/support/${t.id}`, { status: 'closed' }).expect(200);
    const ticket = await svc.deps.tickets.findById(t.id);
    expect(ticket).toMatchObject({ status: 'closed', reopenCount: 1, resolvedAt: expect.any(Date) });
    await agent.patch(`/support/${t.id}`, { status: 'deleted' }).expect(400);
  });

  it.each([[{}], [{ status: 'archived' }], [{ issue: 'Qualquer coisa' }], [{ main: '' }]])('rejects %j with 400', async (body) => {
    const t = await createTicket();
    await agent.patch(`/support/${t.id}`, body).expect(400);
  });
});

describe('soft delete and restore', () => {
  it('hides a deleted ticket from lists unless asked, and restores its previous status', async () => {
    const t = await createTicket();
    await agent.patch(`/support/${t.id}`, { status: 'in_progress' }).expect(200);
    await agent.delete(`/support/${t.id}`).expect(200);
    const stored = await svc.deps.tickets.findById(t.id);
    expect(stored).toMatchObject({ status: 'deleted', deletedAt: expect.any(Date) });
    expect((await agent.get(`/support?email=${t.email}`)).body.data).toEqual([]);
    expect((await agent.get(`/support?email=${t.email}&includeDeleted=true`)).body.data).toHaveLength(1);
    await agent.patch(`/support/${t.id}`, { status: 'open' }).expect(409);
    await agent.delete(`/support/${t.id}`).expect(409);
    const restored = await agent.post(`/support/${t.id}/restore`).expect(200);
    expect(restored.body.data).toEqual({ id: t.id, status: 'in_progress' });
    expect(await svc.deps.tickets.findById(t.id)).toMatchObject({ status: 'in_progress', deletedAt: null });
  });
});

describe('messages', () => {
  it('records origin and sender from the token; an admin reply moves an open ticket to in_progress', async () => {
    const t = await createTicket();
    const reader = client(svc, await readerToken(t.email));
    const mine = await reader.post(`/support/${t.id}/mensagens`, { conteudo: 'Alguma novidade?' }).expect(201);
    expect(mine.body.data).toMatchObject({ id: expect.any(Number), origem: 'usuario', remetente: t.email });
    expect((await svc.deps.tickets.findById(t.id))!.status).toBe('open');
    const answer = await agent.post(`/support/${t.id}/mensagens`, { conteudo: 'Já estamos vendo!' }).expect(201);
    expect(answer.body.data).toMatchObject({ origem: 'admin', remetente: 'agent-maria@newsletter.dev' });
    const ticket = await svc.deps.tickets.findById(t.id);
    expect(ticket).toMatchObject({ status: 'in_progress', firstAdminReplyAt: expect.any(Date), firstAdminReplyBy: 'agent-maria@newsletter.dev' });
    // Messages and status events carry their ticket's creation time (the agents report selects by it).
    const messages = await messageModel(svc.deps.mongo.conn).find({ ticketId: t.id }).lean();
    const events = await statusEventModel(svc.deps.mongo.conn).find({ ticketId: t.id }).lean();
    expect([...messages, ...events].map((r) => r.ticketCreatedAt)).toEqual([ticket!.createdAt, ticket!.createdAt, ticket!.createdAt, ticket!.createdAt]);
    const list = await agent.get(`/support/${t.id}/mensagens`).expect(200);
    expect(list.body.data.map((m: { origem: string }) => m.origem)).toEqual(['usuario', 'admin']);
    await agent.post(`/support/${t.id}/mensagens`, { conteudo: '' }).expect(400);
  });
});

describe('tags', () => {
  it('creates, lists, renames, assigns idempotently, removes and deletes tags', async () => {
    const name = `Urgente ${Date.now()}`;
    const created = await agent.post('/support/tags', { name, color: '#FF0000' }).expect(201);
    const tag = created.body.data;
    expect(tag).toMatchObject({ name, color: '#ff0000', isDefault: false });
    await agent.post('/support/tags', { name: name.toUpperCase(), color: '#00ff00' }).expect(409);
    await agent.post('/support/tags', { name: 'x', color: 'red' }).expect(400);
    const t = await createTicket();
    await agent.post(`/support/${t.id}/tags`, { tagId: tag.id }).expect(200);
    await agent.post(`/support/${t.id}/tags`, { tagId: tag.id }).expect(200);
    expect((await agent.get(`/support/${t.id}`)).body.data.tags).toEqual([{ id: tag.id, name, color: '#ff0000', isDefault: false }]);
    await agent.post(`/support/${t.id}/tags`, { tagId: 99999999 }).expect(404);
    await agent.post('/support/99999999/tags', { tagId: tag.id }).expect(404);
    const filtered = await agent.get(`/support?tag=${tag.id}`).expect(200);
    expect(filtered.body.data.map((x: { id: number }) => x.id)).toEqual([t.id]);
    const renamed = await agent.patch(`/support/tags/${tag.id}`, { name: `${name} (renomeada)` }).expect(200);
    expect(renamed.body.data.name).toBe(`${name} (renomeada)`);
    expect((await agent.get('/support/tags')).body.data.map((x: { id: number }) => x.id)).toContain(tag.id);
    await agent.delete(`/support/${t.id}/tags/${tag.id}`).expect(200);
    await agent.delete(`/support/${t.id}/tags/${tag.id}`).expect(404);
    await agent.post(`/support/${t.id}/tags`, { tagId: tag.id }).expect(200);
    await agent.delete(`/support/tags/${tag.id}`).expect(200);
    expect((await agent.get(`/support/${t.id}`)).body.data.tags).toEqual([]);
  });
});

describe('quick replies', () => {
  it('creates, lists, updates, uses (message + counter) and deletes', async () => {
    const created = await agent.post('/support/respostas-rapidas', { title: 'Reenvio', content: 'Reenviamos a edição para você!', category: 'entrega' }).expect(201);
    const qr = created.body.data;
    const t = await createTicket();
    const used = await agent.post(`/support/${t.id}/respostas-rapidas/${qr.id}`).expect(201);
    expect(used.body.data).toMatchObject({ conteudo: 'Reenviamos a edição para você!', origem: 'admin' });
    await Promise.all([1, 2, 3].map(() => agent.post(`/support/${t.id}/respostas-rapidas/${qr.id}`).expect(201)));
    const listed = await agent.get('/support/respostas-rapidas?category=entrega').expect(200);
    expect(listed.body.data.find((x: { id: number }) => x.id === qr.id)).toMatchObject({ usageCount: 4 });
    await agent.patch(`/support/respostas-rapidas/${qr.id}`, { title: 'Reenvio da edição' }).expect(200);
    await agent.delete(`/support/respostas-rapidas/${qr.id}`).expect(200);
    await agent.post(`/support/${t.id}/respostas-rapidas/${qr.id}`).expect(404);
  });
});

describe('rate limit per IP', () => {
  it('puts X-RateLimit headers on every response and answers 429 past 100 per minute', async () => {
    const c = client(svc, await agentToken());
    let last;
    for (let i = 1; i <= 100; i += 1) {
      last = await c.get('/support/tags');
      expect(last.status).toBe(200);
    }
    expect(last!.headers['x-ratelimit-limit']).toBe('100');
    expect(last!.headers['x-ratelimit-remaining']).toBe('0');
    const limited = await c.get('/support/tags').expect(429);
    expect(limited.body).toMatchObject({ success: false, error: 'RATE_LIMITED' });
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    // Another IP is not affected.
    await client(svc, await agentToken()).get('/support/tags').expect(200);
  });
});

describe('status history under repeats and races', () => {
  it('applies a change with the same key once, however often it is repeated', async () => {
    const t = await createTicket();
    const key = `op-test:${t.id}`;
    for (let i = 0; i < 3; i += 1) {
      const fresh = (await svc.deps.tickets.findById(t.id))!;
      await svc.deps.tickets.changeStatus(fresh, 'resolved', 'bulk-op', 'bulk', key);
    }
    const events = await statusEventModel(svc.deps.mongo.conn).find({ ticketId: t.id, to: 'resolved' }).lean();
    expect(events).toHaveLength(1);
    expect(await svc.deps.tickets.findById(t.id)).toMatchObject({ status: 'resolved', statusVersion: 2 });
  });

  it('lets only one of two concurrent changes from the same status apply', async () => {
    const t = await createTicket();
    const seen = (await svc.deps.tickets.findById(t.id))!;
    const results = await Promise.all([
      svc.deps.tickets.changeStatus(seen, 'resolved', 'a', 'patch'),
      svc.deps.tickets.changeStatus(seen, 'closed', 'b', 'patch'),
    ]);
    expect(results.filter((r) => r.changed)).toHaveLength(1);
    const events = await statusEventModel(svc.deps.mongo.conn).find({ ticketId: t.id, from: 'open' }).lean();
    expect(events).toHaveLength(1);
  });

  it('completes a change whose writer stopped after claiming the version, then applies the next one', async () => {
    const t = await createTicket();
    const seen = (await svc.deps.tickets.findById(t.id))!;
    // A writer that died between its two steps: the version is claimed, the ticket not moved.
    await statusEventModel(svc.deps.mongo.conn).create({ _id: `crashed:${t.id}`, ticketId: t.id, version: seen.statusVersion, from: 'open', to: 'in_progress', by: 'x', at: new Date(), source: 'patch', ticketCreatedAt: seen.createdAt });
    expect(await svc.deps.tickets.changeStatus(seen, 'resolved', 'a', 'patch')).toEqual({ changed: false, from: 'open' });
    const completed = (await svc.deps.tickets.findById(t.id))!;
    expect(completed).toMatchObject({ status: 'in_progress', statusVersion: seen.statusVersion + 1 });
    expect(await svc.deps.tickets.changeStatus(completed, 'resolved', 'a', 'patch')).toEqual({ changed: true, from: 'in_progress' });
    expect(await svc.deps.tickets.findById(t.id)).toMatchObject({ status: 'resolved', statusVersion: seen.statusVersion + 2 });
  });

  it('counts a reopen once per change, with the counter advanced atomically', async () => {
    const t = await createTicket();
    const resolved = await svc.deps.tickets.changeStatus((await svc.deps.tickets.findById(t.id))!, 'resolved', 'a', 'patch');
    expect(resolved.changed).toBe(true);
    const seen = (await svc.deps.tickets.findById(t.id))!;
    await Promise.all([1, 2, 3].map(() => svc.deps.tickets.changeStatus(seen, 'open', 'a', 'patch', `reopen:${t.id}`)));
    expect(await svc.deps.tickets.findById(t.id)).toMatchObject({ status: 'open', reopenCount: 1 });
  });
});

describe('numeric ids under concurrency', () => {
  it('gives 20 tickets created at once 20 distinct ids', async () => {
    const created = await Promise.all(Array.from({ length: 20 }, () => client(svc).post('/support', buildTicket()).expect(201)));
    const ids = created.map((r) => r.body.data.id as number);
    expect(new Set(ids).size).toBe(20);
  });
});
