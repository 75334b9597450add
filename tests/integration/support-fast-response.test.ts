/** AI fast response: drafted by a workflow through the shared LLM client (OpenAI double). */
import { provider } from '../helpers/ai';
import { agentToken, buildTicket, client, readerToken, startSupportService, type SupportService } from '../helpers/support';

jest.setTimeout(60_000);

let svc: SupportService;
let agentJwt: string;
beforeAll(async () => {
  svc = await startSupportService();
  agentJwt = await agentToken('agent-ai');
});
afterAll(() => svc?.close());

async function newTicket(description = 'Não recebi meus prêmios do programa de indicação') {
  const res = await client(svc).post('/support', buildTicket({ issue: 'Não recebi meus prêmios', description })).expect(201);
  return res.body.data as { id: number };
}

describe('POST /support/:id/fast-response', () => {
  it('drafts a reply with the support-assistant instructions and matching quick replies, stored in replied', async () => {
    const c = client(svc, agentJwt);
    await c.post('/support/respostas-rapidas', { title: 'Prêmios atrasados', content: 'Os prêmios são enviados em até 30 dias úteis.' }).expect(201);
    const t = await newTicket();
    await provider().script(`ticket-${t.id}`, [{ kind: 'reply', content: 'Oi! Seu prêmio sai em até 30 dias úteis.' }]);
    const res = await c.post(`/support/${t.id}/fast-response`, {}).expect(200);
    expect(res.body).toMatchObject({ success: true, message: 'Rascunho salvo', data: { replied: 'Oi! Seu prêmio sai em até 30 dias úteis.', sent: false, messageId: null } });
    expect(res.body.data.workflowId).toMatch(new RegExp(`^ticket-fast-response-${t.id}-`));
    expect((await svc.deps.tickets.findById(t.id))!.replied).toBe('Oi! Seu prêmio sai em até 30 dias úteis.');
    const [sent] = await provider().requests(`ticket-${t.id}`);
    expect(sent!.messages[0]!.content).toContain('tom leve e amigável');
    expect(sent!.messages[0]!.content).toContain('Os prêmios são enviados em até 30 dias úteis.');
    expect(sent!.messages[1]!.content).toContain('Não recebi meus prêmios do programa de indicação');
  });

  it('sends the draft as an admin message when asked, once', async () => {
    const t = await newTicket();
    await provider().script(`ticket-${t.id}`, [{ kind: 'reply', content: 'Já reenviamos!' }]);
    const res = await client(svc, agentJwt).post(`/support/${t.id}/fast-response`, { send: true }).expect(200);
    expect(res.body.data).toMatchObject({ replied: 'Já reenviamos!', sent: true, messageId: expect.any(Number) });
    const messages = await svc.deps.tickets.messages(t.id);
    expect(messages).toEqual([expect.objectContaining({ origem: 'admin', canal: 'api', conteudo: 'Já reenviamos!', remetente: 'agent-ai@newsletter.dev' })]);
    expect((await svc.deps.tickets.findById(t.id))!.status).toBe('in_progress');
  });

  it('retries a rate-limited provider and never retries a 400', async () => {
    const t = await newTicket();
    await provider().script(`ticket-${t.id}`, [{ kind: 'error', status: 429, retryAfter: '1' }, { kind: 'reply', content: 'Depois da espera.' }]);
    const ok = await client(svc, agentJwt).post(`/support/${t.id}/fast-response`, {}).expect(200);
    expect(ok.body.data.replied).toBe('Depois da espera.');
    const t2 = await newTicket();
    await provider().script(`ticket-${t2.id}`, [{ kind: 'error', status: 400, message: 'bad request' }]);
    const rejected = await client(svc, agentJwt).post(`/support/${t2.id}/fast-response`, {}).expect(400);
    expect(rejected.body).toMatchObject({ success: false, error: 'VALIDATION_FAILED' });
  });

  it('answers 503 without a provider, 404 for an unknown ticket, 403 without support.agent', async () => {
    const bare = await startSupportService({ OPENAI_API_KEY: '' });
    try {
      const t = await newTicket();
      const res = await client(bare, agentJwt).post(`/support/${t.id}/fast-response`, {}).expect(503);
      expect(res.body).toMatchObject({ success: false, message: 'AI provider is not configured', error: 'DEPENDENCY_UNAVAILABLE' });
    } finally {
      await bare.close();
    }
    await client(svc, agentJwt).post('/support/99999999/fast-response', {}).expect(404);
    await client(svc, await readerToken('someone@example.com')).post('/support/1/fast-response', {}).expect(403);
    await client(svc).post('/support/1/fast-response', {}).expect(401);
  });
});
