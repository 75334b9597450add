/**
 * The staff console's Quiz, AI and Operations pages' pure parts (web/src/staff/{ai,ops}): the
 * registry's forms are checked as the API checks them (the same verdict as api/ai/contracts.ts's
 * schemas on the same bodies), addresses that may carry a credential are masked, and the links by
 * business id are the ones models/ops/temporal-ui.rules.ts makes.
 */
import { agentBody, ProviderBody, ToolBody } from '../../api/ai/contracts';
import { businessIdQuery as modelQuery, queryLiteral as modelLiteral, workflowsLink as modelLink } from '../../models/ops/temporal-ui.rules';
import { maskUrl } from '../../web/src/staff/ai/secrets';
import { checkAgent, checkProvider, checkTool, resourceLines, type AgentForm, type ProviderForm, type ToolForm } from '../../web/src/staff/ai/validate';
import { businessIdQuery, queryLiteral, workflowsLink } from '../../web/src/staff/ops/temporal';

const limits = { models: { mini: 'gpt-4o-mini', advanced: 'gpt-4o', previous: 'gpt-4-turbo', legacy: 'gpt-3.5-turbo' }, maxTokens: 4_000 };
const ok = (problems: object) => Object.values(problems).every((p) => p === undefined);

describe("the agent form, checked as the API's body", () => {
  const base: AgentForm = { name: 'resumo-mercado', description: '', systemPrompt: 'Resuma o mercado.', model: 'mini', temperature: '0.7', tools: [], contextProviders: [] };
  const cases: Partial<AgentForm>[] = [
    {},
    { name: 'Resumo' },
    { name: 'r' },
    { name: '9resumo' },
    { name: 'resumo_mercado' },
    { name: `r${'a'.repeat(63)}` },
    { name: `r${'a'.repeat(64)}` },
    { systemPrompt: '   ' },
    { systemPrompt: 'x'.repeat(20_000) },
    { systemPrompt: 'x'.repeat(20_001) },
    { description: 'd'.repeat(500) },
    { description: 'd'.repeat(501) },
    { temperature: '2' },
    { temperature: '2.1' },
    { temperature: '-0.1' },
    { temperature: '0' },
    { tools: Array.from({ length: 20 }, (_, i) => `t${i}`) },
    { tools: Array.from({ length: 21 }, (_, i) => `t${i}`) },
    { contextProviders: Array.from({ length: 11 }, (_, i) => `p${i}`) },
  ];
  it.each(cases)('%o', (change) => {
    const form = { ...base, ...change };
    const api = agentBody(limits).safeParse({ ...form, temperature: Number(form.temperature) }).success;
    expect({ change, page: ok(checkAgent(form, { isNew: true, taken: [] })) }).toEqual({ change, page: api });
  });
  it('refuses a name already taken, before the API does (409)', () => {
    expect(checkAgent(base, { isNew: true, taken: ['resumo-mercado'] }).name).toEqual({ key: 'errors.nameTaken' });
  });
});

describe("the tool form, checked as the API's body", () => {
  const base: ToolForm = { name: 'cotacao_b3', description: 'Cotação de uma ação da B3', parameters: '{"type":"object"}', endpoint: 'https://127.0.0.1/cotacao', timeoutMs: '10000' };
  const cases: Partial<ToolForm>[] = [
    {},
    { name: 'cotacao-b3' },
    { name: 'Cotacao' },
    { description: ' ' },
    { description: 'd'.repeat(1_001) },
    { endpoint: 'not a url' },
    { endpoint: `https://127.0.0.1/${'a'.repeat(2_100)}` },
    { timeoutMs: '99' },
    { timeoutMs: '60000' },
    { timeoutMs: '60001' },
    { timeoutMs: '150.5' },
    { parameters: '[]' },
    { parameters: '{' },
  ];
  it.each(cases)('%o', (change) => {
    const form = { ...base, ...change };
    let parameters: unknown;
    try {
      parameters = JSON.parse(form.parameters);
    } catch {
      parameters = form.parameters;
    }
    const api = ToolBody.safeParse({ ...form, parameters, timeoutMs: Number(form.timeoutMs) }).success;
    expect({ change, page: ok(checkTool(form, { isNew: true, taken: [] })) }).toEqual({ change, page: api });
  });
  it('asks for a JSON Schema of an object (the registry refuses another type), and keeps the endpoint when an edit leaves it empty', () => {
    expect(checkTool({ ...base, parameters: '{"type":"string"}' }, { isNew: true, taken: [] }).parameters).toEqual({ key: 'errors.schemaType' });
    expect(ok(checkTool({ ...base, endpoint: '' }, { isNew: false, taken: [] }))).toBe(true);
    expect(checkTool({ ...base, endpoint: '' }, { isNew: true, taken: [] }).endpoint).toEqual({ key: 'errors.required' });
  });
});

describe("the context provider form, checked as the API's body", () => {
  const base: ProviderForm = { name: 'agenda-economica', description: '', transport: 'stdio', server: 'style-guide', url: '', resources: '' };
  const cases: Partial<ProviderForm>[] = [
    {},
    { server: '' },
    { server: 'Style Guide' },
    { name: 'agenda_economica' },
    { transport: 'http', url: 'https://127.0.0.1/mcp' },
    { transport: 'http', url: '' },
    { transport: 'http', url: 'mcp' },
    { description: 'd'.repeat(501) },
    { resources: 'agenda://semana\n\n  agenda://copom  ' },
    { resources: Array.from({ length: 51 }, (_, i) => `r://${i}`).join('\n') },
  ];
  it.each(cases)('%o', (change) => {
    const form = { ...base, ...change };
    const body =
      form.transport === 'stdio'
        ? { name: form.name, description: form.description, transport: 'stdio', ...(form.server ? { server: form.server } : {}), resources: resourceLines(form.resources) }
        : { name: form.name, description: form.description, transport: 'http', ...(form.url ? { url: form.url } : {}), resources: resourceLines(form.resources) };
    const api = ProviderBody.safeParse(body).success;
    expect({ change, page: ok(checkProvider(form, { isNew: true, taken: [] })) }).toEqual({ change, page: api });
  });
});

describe('addresses that may carry a credential', () => {
  it.each([
    ['https://mcp.example.com/sse', 'https://mcp.example.com/sse'],
    ['https://mcp.example.com/sse?token=abc123&region=sp', 'https://mcp.example.com/sse?token=•••&region=•••'],
    ['https://user:p4ss@mcp.example.com:8443/mcp#k', 'https://•••@mcp.example.com:8443/mcp#•••'],
    ['not a url with s3cr3t', '•••'],
  ])('%s is shown as %s', (raw, shown) => {
    expect(maskUrl(raw)).toBe(shown);
    expect(maskUrl(raw)).not.toMatch(/abc123|p4ss|s3cr3t/);
  });
});

describe('the links by business id', () => {
  it("are the model's (models/ops/temporal-ui.rules.ts, which the page imports)", () => {
    for (const v of ['news-source-42', 'a"b\\c', '']) {
      expect(queryLiteral(v)).toBe(modelLiteral(v));
      expect(businessIdQuery(v)).toBe(modelQuery(v));
      expect(businessIdQuery(v, 'newsSourceWorkflow')).toBe(modelQuery(v, 'newsSourceWorkflow'));
    }
    expect(workflowsLink('http://127.0.0.1:8233', 'de fault', 'q = "x"')).toBe(modelLink('http://127.0.0.1:8233', 'de fault', 'q = "x"'));
  });
});
