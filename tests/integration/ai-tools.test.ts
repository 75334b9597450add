/** Chat with tools: the Temporal loop, built-in tools, argument validation, limits and retries. */
import { createTicketRepo } from '../../models/support/ticket.repo';
import { aiUser, post, provider, startAiService, type AiService } from '../helpers/ai';
import { buildTicket } from '../helpers/support';

let svc: AiService;
beforeAll(async () => {
  svc = await startAiService();
});
afterAll(() => svc?.close());

const call = (name: string, args: unknown) => ({ kind: 'tool_calls' as const, calls: [{ name, arguments: args }] });

describe('POST /ai/chat-with-tools', () => {
  it('runs the tool the model asks for and lists every call in toolResults', async () => {
    const u = await aiUser();
    await provider().script(u.id, [call('get_current_date', {}), { kind: 'reply', content: 'Hoje é sábado.' }]);
    const before = Date.now();
    const res = await post(svc, '/ai/chat-with-tools', u.auth, { prompt: 'Que dia é hoje?', tools: ['get_current_date'], temperature: 0.1 }).expect(200);
    expect(res.body.data).toMatchObject({ content: 'Hoje é sábado.', finishReason: 'stop' });
    expect(res.body.data.toolResults).toEqual([
      {
        toolName: 'get_current_date',
        arguments: {},
        result: { formatted: expect.any(String), iso: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}-0[23]:00$/), timestamp: expect.any(Number) },
        timestamp: expect.any(Number),
      },
    ]);
    expect(res.body.data.toolResults[0].timestamp).toBeGreaterThanOrEqual(before);
    const sent = await provider().requests(u.id);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.tools).toEqual([expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'get_current_date' }) })]);
    expect(sent[0]).toMatchObject({ temperature: 0.1 });
    // The second call carries the assistant's tool call and the tool's answer.
    const toolMessage = sent[1]!.messages.find((m) => m.role === 'tool');
    expect(JSON.parse(toolMessage!.content!)).toMatchObject({ iso: expect.any(String) });
    // Usage adds up both model calls.
    expect(res.body.data.usage.totalTokens).toBeGreaterThan(0);
  });

  it('runs calculate_price, format_json and several calls of one round', async () => {
    const u = await aiUser();
    await provider().script(u.id, [
      { kind: 'tool_calls', calls: [
        { name: 'calculate_price', arguments: { plan: 'pro', quantity: 3, billingPeriod: 'yearly' } },
        { name: 'format_json', arguments: { json: '{"a":[1,2]}', indent: 4 } },
      ] },
      { kind: 'reply', content: 'done' },
    ]);
    const res = await post(svc, '/ai/chat-with-tools', u.auth, { prompt: 'price?', tools: ['calculate_price', 'format_json'] }).expect(200);
    const [price, json] = res.body.data.toolResults;
    expect(price).toMatchObject({ toolName: 'calculate_price', result: { plan: 'pro', quantity: 3, billingPeriod: 'yearly', currency: 'BRL', unitPrice: 4788, subtotal: 14364, discount: 2394, total: 11970 } });
    expect(json).toMatchObject({ toolName: 'format_json', result: { valid: true, formatted: '{\n    "a": [\n        1,\n        2\n    ]\n}' } });
  });

  /** A ticket for each of two requesters (and a deleted one of the first), all carrying the same word. */
  async function ticketsOfTwo(marker: string) {
    const repo = createTicketRepo(svc.deps.mongo.conn);
    const mine = buildTicket({ main: marker, description: 'never shown' });
    const theirs = buildTicket({ main: marker, description: 'never shown either' });
    const own = await repo.create(mine, 'ai-tools-test');
    const other = await repo.create(theirs, 'ai-tools-test');
    const gone = await repo.create(buildTicket({ main: marker, email: mine.email }), 'ai-tools-test');
    await repo.changeStatus(gone, 'deleted', 'ai-tools-test', 'delete');
    return { email: mine.email, otherEmail: theirs.email, own: own._id, other: other._id, deleted: gone._id };
  }

  const searchTickets = (marker: string) => call('search_database', { source: 'tickets', query: marker.toLowerCase() });
  const foundIds = (res: { body: any }) => (res.body.data.toolResults[0].result.items as { id: string }[]).map((i) => Number(i.id)).sort((a, b) => a - b);

  it('searches every requester\'s tickets through search_database for a support agent, keeping requesters out of reach', async () => {
    // Tickets, not articles: news-articles.test.ts owns the articles collection (its totals are exact).
    const agent = await aiUser(['ai.view', 'support.agent']);
    const marker = `Entrega-${agent.id}`;
    const t = await ticketsOfTwo(marker);
    await provider().script(agent.id, [searchTickets(marker), { kind: 'reply', content: 'found' }]);
    const res = await post(svc, '/ai/chat-with-tools', agent.auth, { prompt: 'search', tools: ['search_database'] }).expect(200);
    expect(res.body.data.toolResults[0].result).toMatchObject({ source: 'tickets', count: 3 });
    expect(foundIds(res)).toEqual([t.own, t.other, t.deleted].sort((a, b) => a - b));
    expect(res.body.data.toolResults[0].result.items).toContainEqual(expect.objectContaining({ id: String(t.own), main: marker, status: 'open', newsletter: 'The News' }));
    const shown = JSON.stringify(res.body.data.toolResults[0].result);
    expect(shown).not.toContain('never shown');
    expect(shown).not.toContain(t.email);
    expect(shown).not.toContain(t.otherEmail);
  });

  // Issue 35: the tool read every customer's tickets for any ai.view holder.
  it('lets a plain ai.view caller find only their own tickets through search_database (chat with tools and agents)', async () => {
    const marker = `Escopo-${Math.random().toString(36).slice(2, 10)}`;
    const t = await ticketsOfTwo(marker);
    const u = await aiUser(['ai.view'], t.email.toUpperCase());
    await provider().script(u.id, [searchTickets(marker), { kind: 'reply', content: 'found' }, searchTickets(marker), { kind: 'reply', content: 'found' }]);
    const chat = await post(svc, '/ai/chat-with-tools', u.auth, { prompt: 'search', tools: ['search_database'] }).expect(200);
    expect(foundIds(chat)).toEqual([t.own]);
    expect(chat.body.data.toolResults[0].result).toMatchObject({ source: 'tickets', count: 1 });
    const agent = await post(svc, '/ai/agent/support-assistant', u.auth, { prompt: 'meus tickets' }).expect(200);
    expect(agent.body.data.toolResults[0].toolName).toBe('search_database');
    expect(foundIds(agent)).toEqual([t.own]);
  });

  it('gives a caller without an e-mail no tickets at all through search_database', async () => {
    const marker = `Anonimo-${Math.random().toString(36).slice(2, 10)}`;
    await ticketsOfTwo(marker);
    const u = await aiUser(['ai.view']);
    await provider().script(u.id, [searchTickets(marker), { kind: 'reply', content: 'none' }]);
    const res = await post(svc, '/ai/chat-with-tools', u.auth, { prompt: 'search', tools: ['search_database'] }).expect(200);
    expect(res.body.data.toolResults[0].result).toMatchObject({ source: 'tickets', count: 0, items: [] });
  });

  it('sends an invalid call back to the model as a tool error instead of failing', async () => {
    const u = await aiUser();
    await provider().script(u.id, [
      call('calculate_price', { plan: 'gold', quantity: 0 }),
      call('format_json', '{not json'),
      { kind: 'reply', content: 'sorry' },
    ]);
    const res = await post(svc, '/ai/chat-with-tools', u.auth, { prompt: 'x', tools: ['calculate_price', 'format_json'] }).expect(200);
    expect(res.body.data.content).toBe('sorry');
    expect(res.body.data.toolResults[0].result.error).toMatch(/^invalid arguments: .*(plan|quantity)/);
    expect(res.body.data.toolResults[1]).toMatchObject({ arguments: '{not json', result: { error: 'arguments are not valid JSON' } });
    const sent = await provider().requests(u.id);
    expect(sent[1]!.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content!).error)).toEqual([expect.stringMatching(/invalid arguments/)]);
  });

  it('answers a call of a tool it did not offer with a tool error', async () => {
    const u = await aiUser();
    await provider().script(u.id, [call('format_json', { json: '1' }), { kind: 'reply', content: 'ok' }]);
    const res = await post(svc, '/ai/chat-with-tools', u.auth, { prompt: 'x', tools: ['get_current_date'] }).expect(200);
    expect(res.body.data.toolResults[0]).toMatchObject({ toolName: 'format_json', result: { error: 'unknown tool: format_json' } });
  });

  it('stops after 5 tool rounds with finishReason max_tool_iterations', async () => {
    const u = await aiUser();
    await provider().script(u.id, Array.from({ length: 7 }, () => call('get_current_date', {})));
    const res = await post(svc, '/ai/chat-with-tools', u.auth, { prompt: 'loop', tools: ['get_current_date'] }).expect(200);
    expect(res.body.data.finishReason).toBe('max_tool_iterations');
    expect(res.body.data.toolResults).toHaveLength(5);
    expect(await provider().requests(u.id)).toHaveLength(6);
  });

  it.each([
    [{ prompt: 'x', tools: ['no_such_tool'] }, /Unknown tool\(s\): no_such_tool/],
    [{ prompt: 'x', tools: [] }, /at least one tool/],
    [{ prompt: 'x', tools: ['format_json', 'format_json'] }, /must not repeat/],
    [{ prompt: '', tools: ['format_json'] }, /prompt must not be empty/],
    [{ prompt: 'x', tools: ['format_json'], temperature: 3 }, /temperature/],
  ])('rejects %j with 400', async (body, message) => {
    const u = await aiUser();
    const res = await post(svc, '/ai/chat-with-tools', u.auth, body).expect(400);
    expect(res.body).toMatchObject({ success: false, error: expect.stringMatching(message) });
  });
});

describe('provider failures', () => {
  jest.setTimeout(90_000);

  it('waits the Retry-After of a 429 and then succeeds', async () => {
    const u = await aiUser();
    await provider().script(u.id, [{ kind: 'error', status: 429, retryAfter: '2' }, { kind: 'reply', content: 'after the wait' }]);
    const started = Date.now();
    const res = await post(svc, '/ai/chat', u.auth, { prompt: 'x' }).expect(200);
    expect(res.body.data.content).toBe('after the wait');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(await provider().requests(u.id)).toHaveLength(2);
  });

  it('retries a 500 and a timed-out request with backoff', async () => {
    const u = await aiUser();
    // AI_REQUEST_TIMEOUT_MS is 3 s under npm test: the slow answer is abandoned and asked again.
    await provider().script(u.id, [{ kind: 'error', status: 500 }, { kind: 'reply', content: 'too late', delayMs: 4_000 }, { kind: 'reply', content: 'third time' }]);
    const res = await post(svc, '/ai/chat', u.auth, { prompt: 'x' }).expect(200);
    expect(res.body.data.content).toBe('third time');
    expect(await provider().requests(u.id)).toHaveLength(3);
  });

  it('never retries a 400: the client gets 400 with the provider\'s reason', async () => {
    const u = await aiUser();
    await provider().script(u.id, [{ kind: 'error', status: 400, message: 'maximum context length exceeded' }]);
    const res = await post(svc, '/ai/chat', u.auth, { prompt: 'x' }).expect(400);
    expect(res.body).toEqual({ success: false, error: 'AI provider rejected the request: maximum context length exceeded', code: 'VALIDATION_FAILED' });
    expect(await provider().requests(u.id)).toHaveLength(1);
  });

  it('never retries a 401 from the provider: our credentials are wrong, so 503', async () => {
    const u = await aiUser();
    await provider().script(u.id, [{ kind: 'error', status: 401 }]);
    const res = await post(svc, '/ai/chat', u.auth, { prompt: 'x' }).expect(503);
    expect(res.body).toMatchObject({ success: false, error: 'AI provider is unavailable, please retry later' });
    expect(await provider().requests(u.id)).toHaveLength(1);
  });

  it('answers 503 when the provider stays unavailable after the retries', async () => {
    const u = await aiUser();
    await provider().script(u.id, Array.from({ length: 5 }, () => ({ kind: 'error' as const, status: 503 })));
    const res = await post(svc, '/ai/chat', u.auth, { prompt: 'x' }).expect(503);
    expect(res.body).toMatchObject({ success: false, error: 'AI provider is unavailable, please retry later', code: 'DEPENDENCY_UNAVAILABLE' });
    expect(await provider().requests(u.id)).toHaveLength(5);
  });
});
