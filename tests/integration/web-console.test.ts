/**
 * The staff console's API (api/web/console.ts) on the real stack: the support, news, quiz and AI
 * operations, served by the dashboard under the staff session with the permissions the APIs check.
 * An agent answers a ticket through it (the message is the agent's, as staff), and reaches nothing
 * its roles do not grant; a customer's session reaches nothing; a change without the session's CSRF
 * token changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { openTicket } from '../../operations/support/tickets';
import { inviteMember } from '../../operations/staff/members';
import type { StaffRole } from '../../models/staff/staff.rules';
import { Browser, startWebService, type WebService } from '../helpers/web';

let web: WebService;
beforeAll(async () => {
  web = await startWebService();
});
afterAll(async () => {
  await web?.close();
});

const address = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.com`;

async function staff(roles: StaffRole[]): Promise<{ email: string; browser: Browser }> {
  const email = address(roles.join('-').replace(/\./g, ''));
  await inviteMember({ ...web.deps, mailer: undefined }, { actor: 'cli', email, roles });
  const browser = new Browser(web);
  await browser.signIn(email);
  return { email, browser };
}

async function aTicket(): Promise<number> {
  const { ticket } = await openTicket(web.deps.console.support, { main: 'Entrega', issue: 'Não estou recebendo a edição', description: `A edição não chega (${randomUUID()})`, email: address('reader') });
  return ticket._id;
}

describe('the support desk through the console', () => {
  it('lets an agent read the queue and a ticket, and answer it as staff', async () => {
    const id = await aTicket();
    const { email, browser } = await staff(['support.agent']);
    const list = await browser.get('/api/staff/support?limit=100').expect(200);
    expect(list.body.data.map((t: { id: number }) => t.id)).toContain(id);
    const detail = await browser.get(`/api/staff/support/${id}`).expect(200);
    expect(detail.body.data).toMatchObject({ id, status: 'open' });
    const sent = await browser.post(`/api/staff/support/${id}/mensagens`, { conteudo: 'Olá! Já verificamos o envio.' }).expect(201);
    expect(sent.body.data).toMatchObject({ remetente: email, origem: 'admin' });
    // The operation's own rule applies: an admin reply moves an open ticket to in_progress.
    expect((await web.deps.console.support.tickets.findById(id))?.status).toBe('in_progress');
  });

  it('changes nothing without the session\'s CSRF token', async () => {
    const id = await aTicket();
    const { browser } = await staff(['support.agent']);
    browser.csrf = '';
    await browser.post(`/api/staff/support/${id}/mensagens`, { conteudo: 'sem token' }).expect(403);
    expect(await web.deps.console.support.tickets.messages(id)).toHaveLength(0);
  });

  it('validates as the API does: a bad body is 400 in the dashboard\'s envelope, and nothing is written', async () => {
    const id = await aTicket();
    const { browser } = await staff(['support.agent']);
    const res = await browser.post(`/api/staff/support/${id}/mensagens`, { conteudo: '' }).expect(400);
    expect(res.body).toMatchObject({ success: false, statusCode: 400, code: 'VALIDATION_FAILED' });
    expect(await web.deps.console.support.tickets.messages(id)).toHaveLength(0);
  });
});

describe('the audit log', () => {
  it("records each change a member makes in the console (who, the operation, its target, what was sent), and no read", async () => {
    const id = await aTicket();
    const { email, browser } = await staff(['support.agent']);
    await browser.get(`/api/staff/support/${id}`).expect(200);
    await browser.put(`/api/staff/support/${id}/assignee`, { assignee: email }).expect(200);
    await browser.post(`/api/staff/support/${id}/mensagens`, { conteudo: 'Reenviamos a edição.' }).expect(201);
    const { browser: owner } = await staff(['owner']);
    const entries = (await owner.get('/api/staff/audit?limit=100').expect(200)).body.data.entries as { actor: string; action: string; operation: string | null; target: unknown; change: string | null }[];
    const mine = entries.filter((e) => e.actor === email);
    expect(mine.map((e) => [e.action, e.operation, e.target])).toEqual([
      ['console.change', 'POST /support/{id}/mensagens', { id }],
      ['console.change', 'PUT /support/{id}/assignee', { id }],
      ['staff.activate', null, null],
    ]);
    expect(JSON.parse(mine[0]!.change!)).toEqual({ conteudo: 'Reenviamos a edição.' });
  });

  it('records nothing for a change that was refused', async () => {
    const id = await aTicket();
    const { email, browser } = await staff(['support.agent']);
    await browser.post(`/api/staff/support/${id}/mensagens`, { conteudo: '' }).expect(400);
    const { browser: owner } = await staff(['owner']);
    const entries = (await owner.get('/api/staff/audit?limit=100').expect(200)).body.data.entries as { actor: string; action: string }[];
    expect(entries.filter((e) => e.actor === email).map((e) => e.action)).toEqual(['staff.activate']);
  });
});

describe('who reaches what', () => {
  it('gives each role its area and nothing else', async () => {
    const { browser: agent } = await staff(['support.agent']);
    await agent.get('/api/staff/support/relatorios/agentes').expect(403); // support.manager's
    await agent.get('/api/staff/news/admin/sources').expect(403);
    await agent.get('/api/staff/quiz/admin/list').expect(403);
    await agent.get('/api/staff/ai/agents').expect(403);

    const { browser: manager } = await staff(['support.manager']);
    await manager.get('/api/staff/support/relatorios/agentes').expect(200);

    const { browser: editor } = await staff(['news.admin']);
    await editor.get('/api/staff/news/admin/sources').expect(200);
    await editor.get('/api/staff/support').expect(403);

    const { browser: quiz } = await staff(['quiz.admin']);
    await quiz.get('/api/staff/quiz/admin/list').expect(200);

    const { browser: ai } = await staff(['ai.edit']);
    await ai.get('/api/staff/ai/agents').expect(200);
  });

  it("tells the page whether the session is staff's (the header's console link)", async () => {
    const { browser: agent } = await staff(['support.agent']);
    expect((await agent.get('/api/auth/session').expect(200)).body.data.staff).toBe(true);
    const customer = new Browser(web);
    await customer.signIn(address('reader'));
    expect((await customer.get('/api/auth/session').expect(200)).body.data.staff).toBe(false);
  });

  it('refuses a customer\'s session (403) and no session (401) on every mounted area', async () => {
    const customer = new Browser(web);
    await customer.signIn(address('reader'));
    const anonymous = new Browser(web);
    for (const path of ['/api/staff/support', '/api/staff/news/admin/sources', '/api/staff/quiz/admin/list', '/api/staff/ai/agents']) {
      const res = await customer.get(path).expect(403);
      expect(res.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
      await anonymous.get(path).expect(401);
    }
  });

  it('does not serve a route no staff permission reaches (the sending system\'s readings, a reader\'s own quizzes)', async () => {
    const { browser: owner } = await staff(['owner']);
    await owner.post('/api/staff/quiz/readings', { userId: 'usr_x', date: '2026-11-26' }).expect(404);
    await owner.get('/api/staff/quiz/available').expect(404);
  });
});
