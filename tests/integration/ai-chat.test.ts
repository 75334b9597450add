/** POST /ai/chat against the OpenAI double, through the real Temporal worker. */
import request from 'supertest';
import { aiUser, post, provider, startAiService, type AiService } from '../helpers/ai';
import { testConfig } from '../helpers/service';

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
