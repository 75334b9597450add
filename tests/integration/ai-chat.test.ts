/** POST /ai/chat against the OpenAI double, through the real Temporal worker. */
import request from 'supertest';
import { aiUser, post, provider, startAiService, type AiService } from '../helpers/ai';
import { startServiceProcess, type ServiceProcess } from '../helpers/processes';
import { eventually, testConfig } from '../helpers/service';

let svc: AiService;
beforeAll(async () => {
  svc = await startAiService();
});
afterAll(() => svc?.close());

describe('POST /ai/chat', () => {
  it('answers with content, usage and finishReason, run as a workflow named after the user', async () => {
    const u = await aiUser();
    const res = await post(svc, '/ai/chat', u.auth, { prompt: 'Olá!' }).expect(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        content: 'echo: Olá!',
        toolResults: [],
        usage: { promptTokens: expect.any(Number), completionTokens: expect.any(Number), totalTokens: expect.any(Number) },
        finishReason: 'stop',
      },
    });
    expect(res.body.data.usage.totalTokens).toBe(res.body.data.usage.promptTokens + res.body.data.usage.completionTokens);
    expect(res.headers['x-workflow-id']).toMatch(new RegExp(`^ai-chat-${u.id}-`));
    const described = await svc.deps.temporal.client.workflow.getHandle(String(res.headers['x-workflow-id'])).describe();
    expect(described.status.name).toBe('COMPLETED');
    expect(described.taskQueue).toBe('ai-chat');
  });

  it('sends the system prompt, temperature, token limit, model and response format to the provider', async () => {
    const u = await aiUser();
    await provider().script(u.id, [{ kind: 'reply', content: '{"ok":true}' }]);
    await post(svc, '/ai/chat', u.auth, {
      prompt: 'Give me JSON',
      systemPrompt: 'You answer in JSON.',
      temperature: 0.2,
      maxTokens: 300,
      model: 'advanced',
      responseFormat: { type: 'json_object' },
    }).expect(200);
    const [sent] = await provider().requests(u.id);
    expect(sent).toMatchObject({
      model: testConfig().ai.models.advanced,
      temperature: 0.2,
      max_tokens: 300,
      response_format: { type: 'json_object' },
      user: u.id,
      messages: [
        { role: 'system', content: 'You answer in JSON.' },
        { role: 'user', content: 'Give me JSON' },
      ],
    });
  });

  it('uses the mini model and the configured token ceiling by default', async () => {
    const u = await aiUser();
    await post(svc, '/ai/chat', u.auth, { prompt: 'hi' }).expect(200);
    const [sent] = await provider().requests(u.id);
    expect(sent).toMatchObject({ model: testConfig().ai.models.mini, max_tokens: 4096 });
  });

  it('accepts the configured provider ids as well as the class names', async () => {
    const u = await aiUser();
    await post(svc, '/ai/chat', u.auth, { prompt: 'hi', model: testConfig().ai.models.legacy }).expect(200);
    await post(svc, '/ai/chat', u.auth, { prompt: 'hi', model: 'previous' }).expect(200);
    const sent = await provider().requests(u.id);
    expect(sent.map((r) => r.model)).toEqual([testConfig().ai.models.legacy, testConfig().ai.models.previous]);
  });

  it('checks a JSON-schema reply against the schema', async () => {
    const u = await aiUser();
    const schema = { type: 'object', properties: { score: { type: 'number' } }, required: ['score'], additionalProperties: false };
    await provider().script(u.id, [{ kind: 'reply', content: '{"score": 7}' }, { kind: 'reply', content: '{"grade": "A"}' }]);
    const ok = await post(svc, '/ai/chat', u.auth, { prompt: 'score it', responseFormat: { type: 'json_schema', name: 'score', schema } }).expect(200);
    expect(JSON.parse(ok.body.data.content)).toEqual({ score: 7 });
    const [sent] = await provider().requests(u.id);
    expect(sent).toMatchObject({ response_format: { type: 'json_schema', json_schema: { name: 'score', schema, strict: true } } });
    const bad = await post(svc, '/ai/chat', u.auth, { prompt: 'score it', responseFormat: { type: 'json_schema', name: 'score', schema } }).expect(503);
    expect(bad.body).toMatchObject({ success: false, error: 'AI provider returned a reply that does not satisfy the response schema' });
  });

  it.each([
    [{ prompt: '' }, /prompt must not be empty/],
    [{ prompt: '   ' }, /prompt must not be empty/],
    [{ prompt: 'x', temperature: 2.5 }, /temperature must be between 0 and 2/],
    [{ prompt: 'x', temperature: -0.1 }, /temperature must be between 0 and 2/],
    [{ prompt: 'x', maxTokens: 4097 }, /maxTokens must be at most 4096/],
    [{ prompt: 'x', model: 'gpt-99' }, /model must be one of: mini, advanced, previous, legacy/],
    [{ prompt: 'x', responseFormat: { type: 'xml' } }, /responseFormat/],
    [{ prompt: 'x', responseFormat: { type: 'json_schema', schema: { type: 'nonsense' } } }, /schema/],
  ])('rejects %j with 400 in the AI envelope and calls no provider', async (body, message) => {
    const u = await aiUser();
    const res = await post(svc, '/ai/chat', u.auth, body).expect(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toMatch(message);
    expect(await provider().requests(u.id)).toEqual([]);
  });

  it('answers 401 without a token and 403 without ai.view, in the AI envelope', async () => {
    const none = await request(svc.callback).post('/ai/chat').send({ prompt: 'hi' }).expect(401);
    expect(none.body).toEqual({ success: false, error: 'Missing bearer token: send Authorization: Bearer <token>', code: 'UNAUTHENTICATED' });
    const u = await aiUser(['support.agent']);
    const forbidden = await post(svc, '/ai/chat', u.auth, { prompt: 'hi' }).expect(403);
    expect(forbidden.body).toEqual({ success: false, error: 'Missing permission: ai.view', code: 'FORBIDDEN' });
  });
});

describe('POST /ai/chat with stream: true', () => {
  it('streams content deltas, then the final result, as Server-Sent Events', async () => {
    const u = await aiUser();
    await provider().script(u.id, [{ kind: 'reply', content: 'Uma resposta em partes, transmitida aos poucos.' }]);
    const res = await post(svc, '/ai/chat', u.auth, { prompt: 'stream please', stream: true })
      .buffer(true)
      .parse((r, done) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => done(null, text));
      })
      .expect(200)
      .expect('Content-Type', /text\/event-stream/);
    const events = String(res.body)
      .trim()
      .split('\n\n')
      .map((block) => {
        const [ev, data] = block.split('\n');
        return { event: ev!.replace('event: ', ''), data: JSON.parse(data!.replace('data: ', '')) };
      });
    const deltas = events.filter((e) => e.event === 'delta');
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((d) => d.data.content).join('')).toBe('Uma resposta em partes, transmitida aos poucos.');
    const last = events[events.length - 1]!;
    expect(last.event).toBe('result');
    expect(last.data).toMatchObject({ success: true, data: { content: 'Uma resposta em partes, transmitida aos poucos.', finishReason: 'stop', toolResults: [] } });
    expect(last.data.data.usage.totalTokens).toBeGreaterThan(0);
  });

  it('answers a provider failure before the first byte as a JSON error', async () => {
    const u = await aiUser();
    await provider().script(u.id, [{ kind: 'error', status: 400, message: 'context too long' }]);
    const res = await post(svc, '/ai/chat', u.auth, { prompt: 'x', stream: true }).expect(400);
    expect(res.body).toMatchObject({ success: false, error: 'AI provider rejected the request: context too long' });
  });
});

/** A caller's response schema runs its patterns on a linear-time engine (issue 35). */
describe('responseFormat.schema patterns', () => {
  // `^(a+)+$` against 40 a's and a '!' backtracks 2^40 times on a backtracking engine: about an
  // hour of one core, during which a process that validated with it answered nothing at all.
  const attack = 'a'.repeat(40) + '!';
  const word = (pattern: string) => ({
    type: 'json_schema',
    name: 'word',
    schema: { type: 'object', properties: { word: { type: 'string', pattern } }, required: ['word'], additionalProperties: false },
  });

  /** The process's own /health answer: 200, or 503 naming the dependency that was slow (not a hang). */
  async function expectHealthAnswered(res: Response): Promise<void> {
    expect([200, 503]).toContain(res.status);
    expect(await res.json()).toMatchObject({ data: { service: 'quiz', checks: expect.any(Object) } });
  }

  it('a backtracking pattern cannot freeze the service: the reply is refused and /health keeps answering', async () => {
    // The real entry point in a process of its own, so that a frozen event loop is seen from
    // outside (a frozen in-process service would freeze the test too). Every wait below is bounded
    // (the signals): on a process that freezes they fail the test instead of hanging it.
    const quiz = await startServiceProcess('quiz');
    try {
      const u = await aiUser();
      const reply = { kind: 'reply' as const, content: JSON.stringify({ word: attack }) };
      await provider().script(u.id, [reply, reply]);
      const headers = { Authorization: u.auth, 'Content-Type': 'application/json' };
      const chat = fetch(`${quiz.base}/ai/chat`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ prompt: 'one word', responseFormat: word('^(a+)+$') }),
        signal: AbortSignal.timeout(60_000),
      });
      // While the run is under way (the provider was asked; its reply is being checked) the
      // process still answers /health.
      expect(await eventually(async () => (await provider().requests(u.id)).length, 1)).toBe(1);
      // Answering is the point: under load a dependency's check may pass its 2 s and make the answer
      // a 503 (naming it), which a frozen event loop could not send either.
      await expectHealthAnswered(await fetch(`${quiz.base}/health`, { signal: AbortSignal.timeout(30_000) }));
      const res = await chat;
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ success: false, error: 'AI provider returned a reply that does not satisfy the response schema' });

      // Streamed, the same check ends the stream with an error event.
      const streamed = await fetch(`${quiz.base}/ai/chat`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ prompt: 'one word', responseFormat: word('^(a+)+$'), stream: true }),
        signal: AbortSignal.timeout(60_000),
      });
      expect(streamed.status).toBe(200);
      expect(await streamed.text()).toMatch(/event: error\ndata: .*does not satisfy the response schema/);
      await expectHealthAnswered(await fetch(`${quiz.base}/health`, { signal: AbortSignal.timeout(30_000) }));
    } finally {
      await stopOrKill(quiz);
    }
  }, 180_000);

  it('still checks the patterns it runs', async () => {
    const u = await aiUser();
    await provider().script(u.id, [
      { kind: 'reply', content: '{"word":"abc"}' },
      { kind: 'reply', content: '{"word":"ABC"}' },
    ]);
    const ok = await post(svc, '/ai/chat', u.auth, { prompt: 'one word', responseFormat: word('^[a-z]+$') }).expect(200);
    expect(JSON.parse(ok.body.data.content)).toEqual({ word: 'abc' });
    const bad = await post(svc, '/ai/chat', u.auth, { prompt: 'one word', responseFormat: word('^[a-z]+$') }).expect(503);
    expect(bad.body.details.issues).toEqual(['/word must match pattern "^[a-z]+$"']);
  });

  it.each([
    ['a backreference', '^(a)\\1$'],
    ['a named backreference', '^(?<x>a)\\k<x>$'],
    ['a lookahead', '^(?=a)a$'],
    ['a lookbehind', '(?<!a)b'],
  ])('refuses %s with 400 at request time: nothing is started or stored', async (_what, pattern) => {
    const u = await aiUser();
    for (const stream of [false, true]) {
      const res = await post(svc, '/ai/chat', u.auth, { prompt: 'one word', responseFormat: word(pattern), stream }).expect(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
      expect(res.body.error).toContain('body.responseFormat.schema');
      expect(res.body.error).toContain(`pattern "${pattern}" is not supported`);
      expect(res.headers['x-workflow-id']).toBeUndefined();
    }
    expect(await provider().requests(u.id)).toEqual([]);
    const usage = await request(svc.callback).get('/ai/usage').set('Authorization', u.auth).expect(200);
    expect(usage.body.data.totals.requests).toBe(0);
  });
});

/** Stops a service process; one that does not exit (a frozen event loop ignores SIGTERM) is killed. */
async function stopOrKill(s: ServiceProcess): Promise<void> {
  const exited = s.stop();
  const stopped = await Promise.race([exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 10_000))]);
  if (!stopped) {
    s.child.kill('SIGKILL');
    await exited;
  }
}

/** Each user's tokens per UTC day are capped (AI_DAILY_TOKENS_PER_USER; issue 35). */
describe('daily token budget per user', () => {
  const budget = () => testConfig().ai.dailyTokensPerUser;

  it('shows the budget in GET /ai/usage; a user who spent it gets 429 until the next UTC midnight, another user does not', async () => {
    const u = await aiUser();
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString();
    const fresh = await request(svc.callback).get('/ai/usage').set('Authorization', u.auth).expect(200);
    expect(fresh.body.data.budget).toEqual({ day: today, dailyTokens: budget(), usedTokens: 0, remainingTokens: budget(), resetsAt: tomorrow });

    // One reply that costs the whole day's budget (the provider reports the tokens).
    await provider().script(u.id, [{ kind: 'reply', content: 'long answer', usage: { prompt: budget() - 100, completion: 100 } }]);
    await post(svc, '/ai/chat', u.auth, { prompt: 'write a lot' }).expect(200);
    const spent = await request(svc.callback).get('/ai/usage').set('Authorization', u.auth).expect(200);
    expect(spent.body.data.budget).toEqual({ day: today, dailyTokens: budget(), usedTokens: budget(), remainingTokens: 0, resetsAt: tomorrow });

    const refused = [
      await post(svc, '/ai/chat', u.auth, { prompt: 'more' }),
      await post(svc, '/ai/chat', u.auth, { prompt: 'more', stream: true }),
      await post(svc, '/ai/chat-with-tools', u.auth, { prompt: 'more', tools: ['get_current_date'] }),
      await post(svc, '/ai/agent/support-assistant', u.auth, { prompt: 'more' }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ success: false, code: 'RATE_LIMITED', details: { dailyTokens: budget(), usedTokens: budget(), resetsAt: tomorrow } });
      expect(res.body.error).toBe(`Daily AI token budget spent: ${budget()} of ${budget()} tokens used today (UTC); it resets at ${tomorrow}`);
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(Math.ceil((Date.parse(tomorrow) - Date.now()) / 1000) + 1);
      expect(res.headers['x-workflow-id']).toBeUndefined();
    }
    // Nothing was started: the provider was asked once, and one run is counted.
    expect(await provider().requests(u.id)).toHaveLength(1);
    const after = await request(svc.callback).get('/ai/usage').set('Authorization', u.auth).expect(200);
    expect(after.body.data.totals).toMatchObject({ requests: 1, totalTokens: budget() });

    const other = await aiUser();
    await post(svc, '/ai/chat', other.auth, { prompt: 'hi' }).expect(200);
    const theirs = await request(svc.callback).get('/ai/usage').set('Authorization', other.auth).expect(200);
    expect(theirs.body.data.budget.usedTokens).toBeGreaterThan(0);
    expect(theirs.body.data.budget.remainingTokens).toBe(budget() - theirs.body.data.budget.usedTokens);
  });
});
