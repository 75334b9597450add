import OpenAI from 'openai';
import { capContext, systemWithContext, BUILTIN_AGENTS } from '../../models/ai/agent.rules';
import { resolveModel, acceptedModelNames } from '../../models/ai/model.rules';
import { BUILTIN_TOOLS, checkArguments, currentDate, formatJson, calculatePrice, ticketScope, ticketScopeFilter } from '../../models/ai/tool.rules';
import { classifyLlmError, retryAfterMs } from '../../models/infra/llm';
import { refuseProvider, stdioServer } from '../../models/infra/mcp';
import type { Outbound } from '../../models/infra/outbound';

const models = { mini: 'm-mini', advanced: 'm-adv', previous: 'm-prev', legacy: 'm-legacy' };

describe('model classes', () => {
  it('resolves class names, configured ids, and the mini default; rejects the rest', () => {
    expect(resolveModel(undefined, models)).toEqual({ modelClass: 'mini', id: 'm-mini' });
    expect(resolveModel('legacy', models)).toEqual({ modelClass: 'legacy', id: 'm-legacy' });
    expect(resolveModel('m-adv', models)).toEqual({ modelClass: 'advanced', id: 'm-adv' });
    expect(resolveModel('gpt-5', models)).toBeUndefined();
    expect(acceptedModelNames(models)).toEqual(['mini', 'advanced', 'previous', 'legacy', 'm-mini', 'm-adv', 'm-prev', 'm-legacy']);
  });
});

describe('built-in tools', () => {
  it('gives São Paulo time as formatted text, ISO 8601 with offset, and epoch ms', () => {
    const now = new Date('2026-11-21T15:04:05.678Z');
    const d = currentDate(now);
    expect(d.timestamp).toBe(now.getTime());
    expect(d.iso).toBe('2026-11-21T12:04:05.678-03:00');
    expect(Date.parse(d.iso)).toBe(now.getTime());
    expect(d.formatted).toMatch(/21 de novembro de 2026/);
  });

  it('formats or reports JSON', () => {
    expect(formatJson({ json: '{"a":1}' })).toEqual({ valid: true, formatted: '{\n  "a": 1\n}' });
    expect(formatJson({ json: '{a:1}' })).toMatchObject({ valid: false, error: expect.any(String) });
  });

  it('prices plans monthly and yearly (twelve months for ten)', () => {
    expect(calculatePrice({ plan: 'starter', quantity: 2, billingPeriod: 'monthly' })).toMatchObject({ unitPrice: 99, subtotal: 198, discount: 0, total: 198 });
    expect(calculatePrice({ plan: 'business', quantity: 1, billingPeriod: 'yearly' })).toMatchObject({ unitPrice: 17988, discount: 2998, total: 14990 });
  });

  it('validates arguments against each tool\'s JSON schema', () => {
    const price = BUILTIN_TOOLS.find((t) => t.name === 'calculate_price')!;
    expect(checkArguments(price, '{"plan":"pro","quantity":1,"billingPeriod":"monthly"}')).toEqual({ ok: true, value: { plan: 'pro', quantity: 1, billingPeriod: 'monthly' } });
    expect(checkArguments(price, '{"plan":"pro"}')).toMatchObject({ ok: false, error: expect.stringMatching(/quantity/) });
    expect(checkArguments(price, '[1]')).toEqual({ ok: false, error: 'arguments must be a JSON object' });
    expect(checkArguments(price, '{')).toEqual({ ok: false, error: 'arguments are not valid JSON' });
    const date = BUILTIN_TOOLS.find((t) => t.name === 'get_current_date')!;
    expect(checkArguments(date, '')).toEqual({ ok: true, value: {} });
  });
});

describe('agents and context', () => {
  it('ships the four built-in agents with tools that exist', () => {
    expect(BUILTIN_AGENTS.map((a) => a.name)).toEqual(['support-assistant', 'analytics-assistant', 'content-writer', 'tech-support']);
    const tools = BUILTIN_TOOLS.map((t) => t.name);
    for (const a of BUILTIN_AGENTS) for (const t of a.tools) expect(tools).toContain(t);
  });

  it('caps provider context at 10,000 characters and says so', () => {
    expect(capContext('short')).toEqual({ text: 'short', truncated: false });
    const capped = capContext('y'.repeat(12_345));
    expect(capped.truncated).toBe(true);
    expect(capped.text.startsWith('y'.repeat(10_000) + '\n[truncated: this context was cut to 10000 characters of 12345]')).toBe(true);
  });

  it('appends each provider\'s context to the system prompt', () => {
    const s = systemWithContext('Be brief.', [{ provider: 'docs', text: 'ABC', truncated: true }]);
    expect(s).toBe('Be brief.\n\nContext from the configured providers (use it when relevant):\n\n<context provider="docs" truncated="true">\nABC\n</context>');
    expect(systemWithContext('Be brief.', [])).toBe('Be brief.');
  });
});

describe('provider error classification', () => {
  const apiError = (status: number, headers: Record<string, string> = {}) =>
    OpenAI.APIError.generate(status, { error: { message: `status ${status}` } }, undefined, new Headers(headers));

  it('retries 429 after Retry-After, 5xx and timeouts; never 400 or 401', () => {
    expect(classifyLlmError(apiError(429, { 'retry-after': '3' }))).toMatchObject({ kind: 'rate_limited', retryable: true, options: { retryAfterMs: 3000 } });
    expect(classifyLlmError(apiError(503))).toMatchObject({ kind: 'unavailable', retryable: true });
    expect(classifyLlmError(new OpenAI.APIConnectionTimeoutError())).toMatchObject({ kind: 'timeout', retryable: true });
    expect(classifyLlmError(apiError(400))).toMatchObject({ kind: 'rejected', retryable: false, message: 'AI provider rejected the request: status 400' });
    expect(classifyLlmError(apiError(401))).toMatchObject({ kind: 'misconfigured', retryable: false });
  });

  it('reads Retry-After as seconds, as an HTTP date, or retry-after-ms', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sat, 21 Nov 2026 12:00:04 GMT' }), now)).toBe(4000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }), now)).toBe(250);
    expect(retryAfterMs(new Headers({}), now)).toBeUndefined();
  });
});

// Issue 35: search_database read every requester's tickets for any ai.view holder.
describe("search_database's ticket scope", () => {
  it('reads every requester\'s tickets for a support agent (or *), never asking about e-mail', () => {
    expect(ticketScope({ permissions: ['ai.view', 'support.agent'] })).toEqual({ kind: 'all' });
    expect(ticketScope({ email: 'a@example.com', permissions: ['*'] })).toEqual({ kind: 'all' });
    expect(ticketScopeFilter({ kind: 'all' })).toEqual({});
  });

  it("reads only the caller's own e-mail's tickets, never deleted ones, for anyone else", () => {
    expect(ticketScope({ email: 'Leitor@Example.com', permissions: ['ai.view', 'support.manager'] })).toEqual({ kind: 'own', email: 'leitor@example.com' });
    expect(ticketScopeFilter({ kind: 'own', email: 'leitor@example.com' })).toEqual({ email: 'leitor@example.com', deletedAt: null });
  });

  it('reads nothing without an e-mail, or without a caller (a run started before callers were carried)', () => {
    expect(ticketScope({ permissions: ['ai.view'] })).toEqual({ kind: 'none' });
    expect(ticketScope(undefined)).toEqual({ kind: 'none' });
    expect(ticketScopeFilter({ kind: 'none' })).toBeUndefined();
  });
});

// Issue 35: a stdio provider's command and arguments were the API caller's to choose.
describe('MCP providers', () => {
  const outbound = { refuse: (url: string) => (url.startsWith('https://allowed.example/') ? undefined : 'not on the allow-list') } as Outbound;
  const o = { outbound, stdioServers: { docs: { command: 'node', args: ['docs.js'] } } };

  it('starts a stdio provider only as a server the operator configured, by name', () => {
    expect(refuseProvider({ transport: 'stdio', server: 'docs' }, o)).toBeUndefined();
    expect(refuseProvider({ transport: 'stdio', server: 'kb' }, o)).toBe('stdio server kb is not configured (AI_MCP_STDIO_PROVIDERS: docs)');
    expect(refuseProvider({ transport: 'stdio', server: 'kb' }, { outbound, stdioServers: {} })).toMatch(/AI_MCP_STDIO_PROVIDERS is empty/);
    expect(refuseProvider({ transport: 'stdio' }, o)).toMatch(/needs server/);
  });

  it('refuses a command or arguments, even beside a configured server (registrations and runs from before)', () => {
    expect(refuseProvider({ transport: 'stdio', server: 'docs', command: 'node' }, o)).toMatch(/cannot name a command or arguments/);
    expect(refuseProvider({ transport: 'stdio', server: 'docs', args: ['-e', '1'] }, o)).toMatch(/cannot name a command or arguments/);
    expect(refuseProvider({ transport: 'stdio', command: 'node', args: [] }, o)).toMatch(/cannot name a command or arguments/);
  });

  it('finds configured servers by their own names only', () => {
    expect(stdioServer(o.stdioServers, 'docs')).toEqual({ command: 'node', args: ['docs.js'] });
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', undefined]) expect(stdioServer(o.stdioServers, name)).toBeUndefined();
    expect(refuseProvider({ transport: 'stdio', server: 'constructor' }, o)).toMatch(/is not configured/);
  });

  it('checks an http provider against the outbound allow-list (an old run\'s empty args change nothing)', () => {
    expect(refuseProvider({ transport: 'http', url: 'https://allowed.example/mcp', args: [] }, o)).toBeUndefined();
    expect(refuseProvider({ transport: 'http', url: 'https://evil.example/mcp' }, o)).toBe('not on the allow-list');
    expect(refuseProvider({ transport: 'http' }, o)).toBe('an http provider needs a url');
  });
});
