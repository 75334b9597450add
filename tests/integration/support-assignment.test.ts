/**
 * Ticket assignment and the queue's views (issue 38), on the support service and the real database:
 * an agent takes a ticket and lets it go, cannot take one another agent has, and two agents taking
 * one at once leave exactly one assignee; a manager assigns active agents only; the views and their
 * counts follow; a reader can use none of it; the agents report counts what each agent has.
 */
import { randomUUID } from 'node:crypto';
import { createStaffRepo } from '../../models/staff/staff.repo';
import { inviteMember } from '../../operations/staff/members';
import { agentToken, buildTicket, client, readerToken, startSupportService, type SupportService } from '../helpers/support';
import { tokenFor } from '../helpers/service';

let svc: SupportService;
beforeAll(async () => {
  svc = await startSupportService();
});
afterAll(() => svc?.close());

const who = (name: string) => `${name}-${randomUUID().slice(0, 6)}`;
const managerToken = (sub = who('manager')) => tokenFor(sub, ['support.manager', 'support.agent'], `${sub}@newsletter.dev`);

async function createTicket(overrides: Record<string, unknown> = {}) {
  const res = await client(svc).post('/support', buildTicket(overrides)).expect(201);
  return res.body.data as { id: number; email: string; status: string; assignee: string | null };
}

/** An active staff member with support.agent (invited and activated as a sign-in would). */
async function activeAgent(email: string) {
  const staff = createStaffRepo(svc.deps.mongo.conn);
  await inviteMember({ staff, now: () => new Date() } as never, { actor: 'cli', email, roles: ['support.agent'] });
  await svc.deps.mongo.conn.collection('staff_members').updateOne({ _id: email as never }, { $set: { status: 'active' } });
}

describe('taking and assigning', () => {
  it('lets an agent take an unassigned ticket, shows it in "mine", and lets it go', async () => {
    const ticket = await createTicket();
    expect(ticket.assignee).toBeNull();
    const sub = who('agent');
    const agent = client(svc, await agentToken(sub));
    const taken = await agent.put(`/support/${ticket.id}/assignee`, { assignee: `${sub}@newsletter.dev` }).expect(200);
    expect(taken.body.data.assignee).toBe(`${sub}@newsletter.dev`);
    const mine = await agent.get('/support?view=mine&limit=100').expect(200);
    expect(mine.body.data.map((t: { id: number }) => t.id)).toEqual([ticket.id]);
    expect((await agent.get('/support/views').expect(200)).body.data.mine).toBe(1);
    const unassigned = await agent.get('/support?view=unassigned&limit=100').expect(200);
    expect(unassigned.body.data.map((t: { id: number }) => t.id)).not.toContain(ticket.id);

    await agent.put(`/support/${ticket.id}/assignee`, { assignee: null }).expect(200);
    expect((await agent.get('/support/views').expect(200)).body.data.mine).toBe(0);
    expect((await agent.get('/support?view=unassigned&limit=100').expect(200)).body.data.map((t: { id: number }) => t.id)).toContain(ticket.id);
  });

  it("refuses an agent another agent's ticket (409, naming who has it) and assigning someone else (403), changing nothing", async () => {
    const ticket = await createTicket();
    const [a, b] = [who('ana'), who('bruno')];
    await client(svc, await agentToken(a)).put(`/support/${ticket.id}/assignee`, { assignee: `${a}@newsletter.dev` }).expect(200);
    const bruno = client(svc, await agentToken(b));
    const taken = await bruno.put(`/support/${ticket.id}/assignee`, { assignee: `${b}@newsletter.dev` }).expect(409);
    expect(taken.body).toMatchObject({ success: false, error: 'CONFLICT', details: { assignee: `${a}@newsletter.dev` } });
    await bruno.put(`/support/${ticket.id}/assignee`, { assignee: null }).expect(403);
    const other = await createTicket();
    await bruno.put(`/support/${other.id}/assignee`, { assignee: `${a}@newsletter.dev` }).expect(403);
    expect((await svc.deps.tickets.findById(ticket.id))?.assignee).toBe(`${a}@newsletter.dev`);
    expect((await svc.deps.tickets.findById(other.id))?.assignee).toBeNull();
  });

  it('gives a ticket taken by two agents at once to exactly one of them', async () => {
    for (let round = 0; round < 5; round++) {
      const ticket = await createTicket();
      const subs = [who('a'), who('b')];
      const agents = await Promise.all(subs.map(async (s) => client(svc, await agentToken(s))));
      const answers = await Promise.all(agents.map((c, i) => c.put(`/support/${ticket.id}/assignee`, { assignee: `${subs[i]}@newsletter.dev` })));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const winner = subs[answers.findIndex((r) => r.status === 200)];
      expect((await svc.deps.tickets.findById(ticket.id))?.assignee).toBe(`${winner}@newsletter.dev`);
    }
  });

  it('lets a manager assign an active agent, and refuses an address that is no agent (400, nothing changed)', async () => {
    const ticket = await createTicket();
    const manager = client(svc, await managerToken());
    const stranger = `${who('stranger')}@example.com`;
    const refused = await manager.put(`/support/${ticket.id}/assignee`, { assignee: stranger }).expect(400);
    expect(refused.body).toMatchObject({ success: false, error: 'VALIDATION_FAILED' });
    expect((await svc.deps.tickets.findById(ticket.id))?.assignee).toBeNull();

    const agentEmail = `${who('carla')}@newsletter.dev`;
    await activeAgent(agentEmail);
    const assigned = await manager.put(`/support/${ticket.id}/assignee`, { assignee: agentEmail }).expect(200);
    expect(assigned.body.data.assignee).toBe(agentEmail);
    // A manager reassigns a ticket someone has.
    await manager.put(`/support/${ticket.id}/assignee`, { assignee: null }).expect(200);
  });

  it('assigns no deleted ticket, and validates the body', async () => {
    const ticket = await createTicket();
    const sub = who('agent');
    const agent = client(svc, await agentToken(sub));
    await agent.put(`/support/${ticket.id}/assignee`, { assignee: 'not-an-email' }).expect(400);
    await agent.put(`/support/${ticket.id}/assignee`, {}).expect(400);
    await agent.put('/support/999999999/assignee', { assignee: null }).expect(404);
    await agent.delete(`/support/${ticket.id}`).expect(200);
    await agent.put(`/support/${ticket.id}/assignee`, { assignee: `${sub}@newsletter.dev` }).expect(409);
  });
});

describe('the views are the staff\'s', () => {
  it('refuses a reader the counts, the assignment and the views (403), and shows the assignee on their own ticket', async () => {
    const email = `${who('reader')}@example.com`;
    const ticket = await createTicket({ email });
    const reader = client(svc, await readerToken(email));
    await reader.get('/support/views').expect(403);
    await reader.get('/support?view=mine').expect(403);
    await reader.get(`/support?assignee=${encodeURIComponent('x@newsletter.dev')}`).expect(403);
    await reader.put(`/support/${ticket.id}/assignee`, { assignee: email }).expect(403);
    expect((await reader.get('/support').expect(200)).body.data[0]).toMatchObject({ id: ticket.id, assignee: null });
  });
});

describe('counts and the agents report', () => {
  it('counts each view and the active tickets by newsletter, and reports what each agent has', async () => {
    const newsletter = `Letter ${randomUUID().slice(0, 8)}`;
    const sub = who('dora');
    const email = `${sub}@newsletter.dev`;
    const agent = client(svc, await agentToken(sub));
    const mine = [await createTicket({ newsletter }), await createTicket({ newsletter })];
    await createTicket({ newsletter });
    for (const t of mine) await agent.put(`/support/${t.id}/assignee`, { assignee: email }).expect(200);
    await agent.patch(`/support/${mine[0]!.id}`, { status: 'resolved' }).expect(200);

    const counts = (await agent.get('/support/views').expect(200)).body.data;
    expect(counts.mine).toBe(1); // the resolved one is no longer being worked on
    expect(counts.newsletters).toContainEqual({ value: newsletter, count: 2 });
    const open = (await agent.get(`/support?view=open&newsletter=${encodeURIComponent(newsletter)}`).expect(200)).body;
    expect(open.pagination.total).toBe(2);

    const manager = client(svc, await managerToken());
    const report = (await manager.get(`/support/relatorios/agentes?agente=${encodeURIComponent(email)}`).expect(200)).body.data;
    expect(report.agentes).toEqual([expect.objectContaining({ agente: email, atribuidos: 2, atribuidosAtivos: 1, ticketsResolvidos: 1 })]);
    const options = (await manager.get('/support/relatorios/filtros?fresh=true').expect(200)).body.data;
    expect(options.agentes).toContain(email);
  });
});

describe('internal notes', () => {
  it('keeps a note among the staff: the requester never sees it, and it is no reply', async () => {
    const email = `${who('reader')}@example.com`;
    const ticket = await createTicket({ email });
    const sub = who('agent');
    const agent = client(svc, await agentToken(sub));
    const note = await agent.post(`/support/${ticket.id}/notas`, { conteudo: 'Leitora VIP: priorizar.' }).expect(201);
    expect(note.body.data).toMatchObject({ origem: 'nota', remetente: `${sub}@newsletter.dev`, conteudo: 'Leitora VIP: priorizar.' });

    const staffView = (await agent.get(`/support/${ticket.id}`).expect(200)).body.data;
    expect(staffView.mensagens.map((m: { origem: string }) => m.origem)).toEqual(['usuario', 'nota']);
    const reader = client(svc, await readerToken(email));
    const readerView = (await reader.get(`/support/${ticket.id}`).expect(200)).body.data;
    expect(readerView.mensagens.map((m: { origem: string }) => m.origem)).toEqual(['usuario']);
    expect((await reader.get(`/support/${ticket.id}/mensagens`).expect(200)).body.data.map((m: { origem: string }) => m.origem)).not.toContain('nota');

    const stored = await svc.deps.tickets.findById(ticket.id);
    expect(stored).toMatchObject({ status: 'open', firstAdminReplyAt: null, lastMessageAt: null });
  });

  it('refuses a reader (403), an empty note (400) and a deleted ticket (409), writing nothing', async () => {
    const email = `${who('reader')}@example.com`;
    const ticket = await createTicket({ email });
    await client(svc, await readerToken(email)).post(`/support/${ticket.id}/notas`, { conteudo: 'oi' }).expect(403);
    const agent = client(svc, await agentToken(who('agent')));
    await agent.post(`/support/${ticket.id}/notas`, { conteudo: '' }).expect(400);
    await agent.delete(`/support/${ticket.id}`).expect(200);
    await agent.post(`/support/${ticket.id}/notas`, { conteudo: 'tarde demais' }).expect(409);
    expect(await svc.deps.tickets.messages(ticket.id)).toHaveLength(0);
  });
});
