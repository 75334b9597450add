/**
 * Agents, the registry (agents, HTTP tools, MCP context providers), resources, usage, rate limits
 * and the provider-not-configured case.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { aiContextProviderModel } from '../../models/ai/registry.model';
import { STYLE_GUIDE, startHttpsMcpServer } from '../doubles/mcp-server';
import { aiUser, post, provider, startAiService, type AiService } from '../helpers/ai';
import { ROOT } from '../helpers/processes';
import { eventually, testConfig } from '../helpers/service';

let svc: AiService;
let editor: { id: string; auth: string };
const tlsFiles = () => {
  const cert = testConfig().ai.toolCaFile!;
  return { cert: readFileSync(cert, 'utf8'), key: readFileSync(path.join(path.dirname(cert), 'key.pem'), 'utf8') };
};
const unique = (base: string) => `${base}-${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  svc = await startAiService();
  editor = await aiUser(['ai.view', 'ai.edit']);
});
afterAll(() => svc?.close());

describe('built-in agents', () => {
  it('runs support-assistant with its system prompt, model, temperature and tools', async () => {
    const u = await aiUser();
    await provider().script(u.id, [{ kind: 'tool_calls', calls: [{ name: 'get_current_date', arguments: {} }] }, { kind: 'reply', content: 'Oi! Já te ajudo.' }]);
    const res = await post(svc, '/ai/agent/support-assistant', u.auth, { prompt: 'Não recebi a edição de hoje' }).expect(200);
    expect(res.body.data).toMatchObject({ content: 'Oi! Já te ajudo.', finishReason: 'stop', toolResults: [{ toolName: 'get_current_date' }] });
    const [sent] = await provider().requests(u.id);
    expect(sent!.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('tom leve e amigável') });
    expect(sent).toMatchObject({ model: testConfig().ai.models.mini, temperature: 0.7 });
    expect(sent!.tools!.map((t: any) => t.function.name)).toEqual(['get_current_date', 'search_database']);
  });

  it('answers 404 for an unknown agent', async () => {
    const u = await aiUser();
    const res = await post(svc, '/ai/agent/no-such-agent', u.auth, { prompt: 'hi' }).expect(404);
    expect(res.body).toEqual({ success: false, error: 'agent no-such-agent not found', code: 'NOT_FOUND' });
  });

  it('lists agents and tools in GET /ai/resources, registered ones included', async () => {
    const name = unique('listed-agent');
    await post(svc, '/ai/agents', editor.auth, { name, systemPrompt: 'You list things.' }).expect(201);
    const res = await request(svc.callback).get('/ai/resources').set('Authorization', editor.auth).expect(200);
    expect(res.body.data.agents).toEqual(expect.arrayContaining(['support-assistant', 'analytics-assistant', 'content-writer', 'tech-support', name]));
    expect(res.body.data.tools).toEqual(expect.arrayContaining(['get_current_date', 'format_json', 'calculate_price', 'search_database']));
  });
});

describe('agent registration (ai.edit)', () => {
  it('creates, runs, updates and deletes an agent', async () => {
    const name = unique('pricing-bot');
    const created = await post(svc, '/ai/agents', editor.auth, {
      name,
      description: 'Quotes prices',
      systemPrompt: 'You quote plan prices.',
      model: 'advanced',
      temperature: 0.1,
      tools: ['calculate_price'],
    }).expect(201);
    expect(created.body).toMatchObject({ success: true, message: 'agent registered', data: { name, builtin: false, tools: ['calculate_price'] } });

    await provider().script(editor.id, [{ kind: 'reply', content: 'R$ 399' }]);
    const run = await post(svc, `/ai/agent/${name}`, editor.auth, { prompt: 'How much is pro?' }).expect(200);
    expect(run.body.data.content).toBe('R$ 399');
    const sent = await provider().requests(editor.id);
    expect(sent[sent.length - 1]).toMatchObject({ model: testConfig().ai.models.advanced, temperature: 0.1, messages: [{ role: 'system', content: 'You quote plan prices.' }, { role: 'user' }] });

    const patched = await request(svc.callback).patch(`/ai/agents/${name}`).set('Authorization', editor.auth).send({ temperature: 0.9 }).expect(200);
    expect(patched.body.data).toMatchObject({ name, temperature: 0.9, systemPrompt: 'You quote plan prices.' });
    await request(svc.callback).delete(`/ai/agents/${name}`).set('Authorization', editor.auth).expect(200);
    await post(svc, `/ai/agent/${name}`, editor.auth, { prompt: 'still there?' }).expect(404);
  });

  it('protects built-ins: no shadowing (409), no changes or deletion (403)', async () => {
    const shadow = await post(svc, '/ai/agents', editor.auth, { name: 'support-assistant', systemPrompt: 'evil twin' }).expect(409);
    expect(shadow.body.error).toBe('support-assistant is a built-in agent');
    await request(svc.callback).delete('/ai/agents/tech-support').set('Authorization', editor.auth).expect(403);
    await request(svc.callback).patch('/ai/agents/tech-support').set('Authorization', editor.auth).send({ temperature: 1 }).expect(403);
    const tool = await post(svc, '/ai/tools', editor.auth, {
      name: 'format_json',
      description: 'shadow',
      parameters: { type: 'object' },
      endpoint: 'https://127.0.0.1/x',
    }).expect(409);
    expect(tool.body.error).toBe('format_json is a built-in tool');
  });

  it('rejects duplicates, unknown tools or providers, and needs ai.edit', async () => {
    const name = unique('dup');
    await post(svc, '/ai/agents', editor.auth, { name, systemPrompt: 'x' }).expect(201);
    await post(svc, '/ai/agents', editor.auth, { name, systemPrompt: 'x' }).expect(409);
    const unknownTool = await post(svc, '/ai/agents', editor.auth, { name: unique('a'), systemPrompt: 'x', tools: ['nope'] }).expect(400);
    expect(unknownTool.body.error).toMatch(/unknown tool\(s\): nope/);
    await post(svc, '/ai/agents', editor.auth, { name: unique('a'), systemPrompt: 'x', contextProviders: ['nope'] }).expect(400);
    const viewer = await aiUser(['ai.view']);
    const denied = await post(svc, '/ai/agents', viewer.auth, { name: unique('a'), systemPrompt: 'x' }).expect(403);
    expect(denied.body).toEqual({ success: false, error: 'Missing permission: ai.edit', code: 'FORBIDDEN' });
  });
});

describe('registered HTTP tools', () => {
  let toolServer: Server;
  let toolUrl: string;
  const calls: unknown[] = [];

  beforeAll(async () => {
    toolServer = createServer(tlsFiles(), (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        calls.push(JSON.parse(body));
        const { city } = JSON.parse(body) as { city: string };
        if (city === 'slow') return setTimeout(() => res.end('{}'), 2_000);
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ city, temperatureC: 27 }));
      });
    });
    await new Promise<void>((r) => toolServer.listen(0, '127.0.0.1', () => r()));
    toolUrl = `https://127.0.0.1:${(toolServer.address() as { port: number }).port}/weather`;
  });
  afterAll(() => toolServer.close());

  const weatherTool = (name: string, timeoutMs = 1_000) => ({
    name,
    description: 'Weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string', minLength: 2 } }, required: ['city'], additionalProperties: false },
    endpoint: toolUrl,
    timeoutMs,
  });

  it('registers an https tool on an allow-listed host; the model calls it through the loop', async () => {
    const name = unique('weather').replace(/-/g, '_');
    await post(svc, '/ai/tools', editor.auth, weatherTool(name)).expect(201);
    const u = await aiUser();
    await provider().script(u.id, [
      { kind: 'tool_calls', calls: [{ name, arguments: { city: 'Recife' } }] },
      { kind: 'tool_calls', calls: [{ name, arguments: { city: 'slow' } }] },
      { kind: 'tool_calls', calls: [{ name, arguments: { town: 'x' } }] },
      { kind: 'reply', content: 'Faz 27 °C em Recife.' },
    ]);
    const res = await post(svc, '/ai/chat-with-tools', u.auth, { prompt: 'Tempo em Recife?', tools: [name] }).expect(200);
    expect(res.body.data.content).toBe('Faz 27 °C em Recife.');
    const [ok, slow, invalid] = res.body.data.toolResults;
    expect(ok).toMatchObject({ toolName: name, arguments: { city: 'Recife' }, result: { city: 'Recife', temperatureC: 27 } });
    expect(slow.result).toEqual({ error: 'tool did not answer within 1000 ms' });
    expect(invalid.result.error).toMatch(/invalid arguments/);
    // The invalid call never reached the endpoint.
    expect(calls).toEqual(expect.not.arrayContaining([{ town: 'x' }]));
    const listed = await request(svc.callback).get('/ai/tools').set('Authorization', editor.auth).expect(200);
    expect(listed.body.data.map((t: any) => t.name)).toEqual(expect.arrayContaining(['format_json', name]));
  });

  it.each([
    [{ endpoint: 'http://127.0.0.1:9/x' }, /only https endpoints are allowed/],
    [{ endpoint: 'https://example.com/x' }, /host example\.com is not on the allow-list/],
    [{ parameters: { type: 'string' } }, /type "object"/],
    [{ parameters: { type: 'object', properties: { a: { type: 'nonsense' } } } }, /not a valid JSON Schema/],
    [{ timeoutMs: 120_000 }, /timeoutMs/],
  ])('rejects a tool with %j', async (override, message) => {
    const res = await post(svc, '/ai/tools', editor.auth, { ...weatherTool(unique('bad').replace(/-/g, '_')), ...override }).expect(400);
    expect(res.body.error).toMatch(message);
  });

  it('refuses to delete a tool an agent uses', async () => {
    const name = unique('used').replace(/-/g, '_');
    await post(svc, '/ai/tools', editor.auth, weatherTool(name)).expect(201);
    const agent = unique('uses-tool');
    await post(svc, '/ai/agents', editor.auth, { name: agent, systemPrompt: 'x', tools: [name] }).expect(201);
    const res = await request(svc.callback).delete(`/ai/tools/${name}`).set('Authorization', editor.auth).expect(409);
    expect(res.body.error).toBe(`tool ${name} is used by agent(s): ${agent}`);
  });
});

describe('MCP context providers', () => {
  it('reads a stdio MCP server the operator configured, by name, before the agent answers and injects its context', async () => {
    // ops/test.ts configures `style-guide` (AI_MCP_STDIO_PROVIDERS): the MCP double over stdio.
    expect(testConfig().ai.mcpStdioProviders['style-guide']!.args).toContain(path.join(ROOT, 'tests/doubles/mcp-server.ts'));
    const provName = unique('stdio-guide');
    const created = await post(svc, '/ai/context-providers', editor.auth, {
      name: provName,
      transport: 'stdio',
      server: 'style-guide',
      resources: ['context://newsletter/style-guide'],
    }).expect(201);
    expect(created.body.data).toEqual({ name: provName, description: '', transport: 'stdio', server: 'style-guide', resources: ['context://newsletter/style-guide'] });
    const listed = await request(svc.callback).get('/ai/context-providers').set('Authorization', editor.auth).expect(200);
    expect(listed.body.data).toContainEqual({ name: provName, description: '', transport: 'stdio', server: 'style-guide', resources: ['context://newsletter/style-guide'] });
    const agent = unique('guided');
    await post(svc, '/ai/agents', editor.auth, { name: agent, systemPrompt: 'Follow the style guide.', contextProviders: [provName] }).expect(201);
    const u = await aiUser();
    await post(svc, `/ai/agent/${agent}`, u.auth, { prompt: 'Escreva uma saudação' }).expect(200);
    const [sent] = await provider().requests(u.id);
    const system = sent!.messages[0]!.content!;
    expect(system).toContain('Follow the style guide.');
    expect(system).toContain(`<context provider="${provName}">`);
    expect(system).toContain(`${STYLE_GUIDE} (stdio)`);
  });

  it('reads a Streamable HTTP MCP server and caps each provider at 10,000 characters', async () => {
    const mcp = await startHttpsMcpServer(tlsFiles(), 25_000);
    try {
      const provName = unique('http-docs');
      await post(svc, '/ai/context-providers', editor.auth, { name: provName, transport: 'http', url: mcp.url }).expect(201);
      const agent = unique('docs-reader');
      await post(svc, '/ai/agents', editor.auth, { name: agent, systemPrompt: 'Read the docs.', contextProviders: [provName] }).expect(201);
      const u = await aiUser();
      await post(svc, `/ai/agent/${agent}`, u.auth, { prompt: 'Resuma' }).expect(200);
      const [sent] = await provider().requests(u.id);
      const system = sent!.messages[0]!.content!;
      const block = system.slice(system.indexOf(`<context provider="${provName}" truncated="true">`));
      expect(block).toContain(`${STYLE_GUIDE} (http)`);
      expect(block).toContain('[truncated: this context was cut to 10000 characters of');
      const body = block.slice(block.indexOf('\n') + 1, block.indexOf('\n[truncated'));
      expect(body.length).toBe(10_000);
    } finally {
      mcp.server.close();
    }
  });

  /** A `node -e` program that leaves a file behind: proof that a command chosen through the API ran on the worker. */
  function codeExecution() {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-attack-'));
    const marker = path.join(dir, 'pwned');
    return {
      command: process.execPath,
      args: ['-e', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'code ran on the worker')`],
      ran: () => (existsSync(marker) ? readFileSync(marker, 'utf8') : 'nothing ran'),
      cleanUp: () => rmSync(dir, { recursive: true, force: true }),
    };
  }

  /** Registers an agent reading the provider and asks it once (whatever the registry answered). */
  async function runAgentWith(provName: string) {
    const agent = unique('attacked');
    await post(svc, '/ai/agents', editor.auth, { name: agent, systemPrompt: 'Answer.', contextProviders: [provName] });
    const u = await aiUser();
    await post(svc, `/ai/agent/${agent}`, u.auth, { prompt: 'hi' });
    return u;
  }

  const listedProviders = async () =>
    ((await request(svc.callback).get('/ai/context-providers').set('Authorization', editor.auth).expect(200)).body.data as { name: string }[]).map((p) => p.name);

  // Issue 35: ai.edit chose the command and its arguments, so `node -e …` ran code on the worker.
  it('refuses a stdio provider registered with a command and arguments: 400, nothing stored, nothing run', async () => {
    const attack = codeExecution();
    try {
      const name = unique('attack');
      const res = await post(svc, '/ai/context-providers', editor.auth, { name, transport: 'stdio', command: attack.command, args: attack.args });
      await runAgentWith(name);
      expect(attack.ran()).toBe('nothing ran');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', error: expect.stringMatching(/command/) });
      expect(await listedProviders()).not.toContain(name);
    } finally {
      attack.cleanUp();
    }
  });

  it('refuses a command and arguments patched onto a stdio provider', async () => {
    const attack = codeExecution();
    try {
      const name = unique('patched');
      await aiContextProviderModel(svc.deps.mongo.conn).create({ _id: name, transport: 'stdio', server: 'style-guide', resources: [], createdBy: 'test', updatedBy: 'test' });
      const res = await request(svc.callback)
        .patch(`/ai/context-providers/${name}`)
        .set('Authorization', editor.auth)
        .send({ command: attack.command, args: attack.args });
      await runAgentWith(name);
      expect(attack.ran()).toBe('nothing ran');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
    } finally {
      attack.cleanUp();
    }
  });

  it('never runs the command of a stdio provider stored before issue 35: the agent answers with a note', async () => {
    const attack = codeExecution();
    try {
      const name = unique('legacy');
      await aiContextProviderModel(svc.deps.mongo.conn).create({ _id: name, transport: 'stdio', command: attack.command, args: attack.args, resources: [], createdBy: 'test', updatedBy: 'test' });
      const u = await runAgentWith(name);
      expect(attack.ran()).toBe('nothing ran');
      const [sent] = await provider().requests(u.id);
      expect(sent!.messages[0]!.content).toContain(`<context provider="${name}">\n[context provider unavailable: `);
      expect(sent!.messages[0]!.content).toMatch(/AI_MCP_STDIO_PROVIDERS/);
      // Listed as refused, without its command; naming a configured server makes it usable again.
      const listed = await request(svc.callback).get('/ai/context-providers').set('Authorization', editor.auth).expect(200);
      const legacy = (listed.body.data as Record<string, unknown>[]).find((p) => p.name === name);
      expect(legacy).toEqual({ name, description: '', transport: 'stdio', resources: [], refused: expect.stringMatching(/never started/) });
      await request(svc.callback).patch(`/ai/context-providers/${name}`).set('Authorization', editor.auth).send({ description: 'x' }).expect(400);
      const fixed = await request(svc.callback).patch(`/ai/context-providers/${name}`).set('Authorization', editor.auth).send({ server: 'style-guide' }).expect(200);
      expect(fixed.body.data).toEqual({ name, description: '', transport: 'stdio', server: 'style-guide', resources: [] });
      const stored = await aiContextProviderModel(svc.deps.mongo.conn).findById(name).lean();
      expect(stored).not.toHaveProperty('command');
      expect(stored).not.toHaveProperty('args');
      const again = await runAgentWith(name);
      const [next] = await provider().requests(again.id);
      expect(next!.messages[0]!.content).toContain(`${STYLE_GUIDE} (stdio)`);
      expect(attack.ran()).toBe('nothing ran');
    } finally {
      attack.cleanUp();
    }
  });

  it.each([
    [{ transport: 'stdio', server: 'no-such-server' }, /stdio server no-such-server is not configured \(AI_MCP_STDIO_PROVIDERS: style-guide\)/],
    [{ transport: 'stdio' }, /body\.server/],
    [{ transport: 'stdio', server: 'style-guide', args: ['-e', 'process.exit(1)'] }, /cannot name a command or arguments/],
    [{ transport: 'stdio', server: 'style-guide', command: '/bin/sh' }, /cannot name a command or arguments/],
    [{ transport: 'stdio', server: 'style-guide', url: 'https://127.0.0.1/mcp' }, /url/],
    [{ transport: 'http', url: 'https://127.0.0.1/mcp', server: 'style-guide' }, /server/],
    [{ transport: 'http', url: 'https://evil.example.com/mcp' }, /not on the allow-list/],
  ])('refuses the provider %j with 400, storing nothing', async (body, message) => {
    const name = unique('p');
    const res = await post(svc, '/ai/context-providers', editor.auth, { name, ...body }).expect(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', error: expect.stringMatching(message) });
    expect(await listedProviders()).not.toContain(name);
  });

  it('refuses a patch naming an unknown server, a command or arguments', async () => {
    const name = unique('guide');
    await post(svc, '/ai/context-providers', editor.auth, { name, transport: 'stdio', server: 'style-guide' }).expect(201);
    for (const [patch, message] of [
      [{ server: 'no-such-server' }, /is not configured/],
      [{ args: ['-e', '1'] }, /cannot name a command or arguments/],
      [{ command: process.execPath }, /cannot name a command or arguments/],
    ] as const) {
      const res = await request(svc.callback).patch(`/ai/context-providers/${name}`).set('Authorization', editor.auth).send(patch).expect(400);
      expect(res.body.error).toMatch(message);
    }
    const listed = await request(svc.callback).get('/ai/context-providers').set('Authorization', editor.auth).expect(200);
    expect(listed.body.data).toContainEqual({ name, description: '', transport: 'stdio', server: 'style-guide', resources: [] });
  });
});

describe('usage and limits', () => {
  it('records token usage per user and day; GET /ai/usage returns the caller\'s', async () => {
    const u = await aiUser();
    await provider().script(u.id, [
      { kind: 'reply', content: 'a', usage: { prompt: 10, completion: 5 } },
      { kind: 'reply', content: 'b', usage: { prompt: 7, completion: 3 } },
    ]);
    await post(svc, '/ai/chat', u.auth, { prompt: 'one' }).expect(200);
    await post(svc, '/ai/chat', u.auth, { prompt: 'two' }).expect(200);
    const res = await request(svc.callback).get('/ai/usage').set('Authorization', u.auth).expect(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(res.body.data.days).toEqual([{ day: today, requests: 2, promptTokens: 17, completionTokens: 8, totalTokens: 25 }]);
    expect(res.body.data.totals).toEqual({ requests: 2, promptTokens: 17, completionTokens: 8, totalTokens: 25 });
    const other = await aiUser();
    const theirs = await request(svc.callback).get('/ai/usage').set('Authorization', other.auth).expect(200);
    expect(theirs.body.data.totals.requests).toBe(0);
    await request(svc.callback).get('/ai/usage?from=2026-02-01&to=2026-01-01').set('Authorization', u.auth).expect(400);
    // Days that do not exist are 400 naming the field (was a 500 "Invalid time value", found by fuzzing).
    for (const bad of ['to=9055-79-01', 'from=2026-02-30', 'to=2025-02-29', 'from=']) {
      const res = await request(svc.callback).get(`/ai/usage?${bad}`).set('Authorization', u.auth).expect(400);
      expect(res.body).toMatchObject({ success: false, error: expect.stringContaining(`query.${bad.split('=')[0]}`) });
    }
    await request(svc.callback).get('/ai/usage?from=2024-02-29&to=2024-03-01').set('Authorization', u.auth).expect(200);
  });

  it('allows 100 requests per minute per user, with headers counting down, then 429', async () => {
    const u = await aiUser();
    let last: request.Response | undefined;
    for (let i = 1; i <= 100; i += 1) {
      last = await request(svc.callback).get('/ai/resources').set('Authorization', u.auth);
      expect(last.status).toBe(200);
      expect(last.headers['x-ratelimit-remaining']).toBe(String(100 - i));
    }
    expect(last!.headers['x-ratelimit-limit']).toBe('100');
    expect(Number(last!.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    const limited = await request(svc.callback).get('/ai/resources').set('Authorization', u.auth).expect(429);
    expect(limited.body).toEqual({ success: false, error: 'Rate limit exceeded: 100 AI requests per minute', code: 'RATE_LIMITED' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    // Another user is not affected, and a second process shares the count (it is in MongoDB) once
    // the first has added its local counts (every RATE_LIMIT_SYNC_MS, 1 s).
    const other = await aiUser();
    await request(svc.callback).get('/ai/resources').set('Authorization', other.auth).expect(200);
    const second = await startAiService();
    try {
      const status = () => request(second.callback).get('/ai/resources').set('Authorization', u.auth).then((r) => r.status);
      expect(await eventually(status, 429, 5_000)).toBe(429);
    } finally {
      await second.close();
    }
  });

  it('answers 503 when no AI provider is configured', async () => {
    const bare = await startAiService(testConfig({ OPENAI_API_KEY: '' }));
    try {
      const u = await aiUser();
      const res = await post(bare, '/ai/chat', u.auth, { prompt: 'hi' }).expect(503);
      expect(res.body).toEqual({ success: false, error: 'AI provider is not configured', code: 'DEPENDENCY_UNAVAILABLE', details: { dependency: 'ai-provider' } });
      await post(bare, '/ai/chat-with-tools', u.auth, { prompt: 'hi', tools: ['format_json'] }).expect(503);
      await post(bare, '/ai/chat', u.auth, { prompt: 'hi', stream: true }).expect(503);
    } finally {
      await bare.close();
    }
  });
});
