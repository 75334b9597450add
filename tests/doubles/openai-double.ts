/**
 * An OpenAI-compatible test double: speaks the real chat-completions wire protocol (tool_calls,
 * usage, finish_reason, streamed SSE chunks) and can be scripted to answer 429, 500, slowly, or
 * with tool calls.
 *
 * Scripts are kept per `user` (the platform sends the calling user's id as `user`), so test files
 * running in parallel never consume each other's steps. Without a script the double answers
 * "echo: <last user message>" (or, when a JSON response format is asked for, JSON in that format,
 * with OpenAI's 400 for a strict schema outside what structured outputs support). `npm test` runs one as a process (openai-double.main.ts); tests
 * drive it through its control API, `/__control/*`, with the client at the end of this file.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { sentimentLabel } from '../../models/news/article.rules';
import type { ModelEnrichment } from '../../models/news/enrichment.rules';

export type Step =
  | { kind: 'reply'; content: string; finishReason?: string; delayMs?: number; usage?: { prompt: number; completion: number } }
  | { kind: 'tool_calls'; calls: { name: string; arguments: unknown }[]; delayMs?: number }
  | { kind: 'error'; status: number; retryAfter?: string; message?: string; delayMs?: number }
  /** Echo the whole request back as JSON content (to inspect what the platform sent). */
  | { kind: 'echo_request'; delayMs?: number }
  /**
   * Stateless and never used up: asks for the tool until the conversation holds a tool result,
   * then answers `reply` (after `replyDelayMs`). Models a conversation that may be replayed.
   */
  | { kind: 'tool_then_reply'; tool: string; arguments: unknown; reply: string; replyDelayMs?: number; delayMs?: number }
  /** The answer the double gives without a script (an enrichment, a quiz, an echo), after `delayMs`: a slow provider. */
  | { kind: 'default'; delayMs: number };

/** A step as answered (a `default` step becomes the answer it stands for). */
type Answer = Exclude<Step, { kind: 'default' }>;

interface ChatBody {
  model: string;
  messages: { role: string; content?: string | null; tool_call_id?: string }[];
  stream?: boolean;
  user?: string;
  tools?: unknown[];
  stream_options?: { include_usage?: boolean };
  response_format?: { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; json_schema: { name: string; schema?: unknown; strict?: boolean | null } };
}

type Schema = Record<string, unknown>;
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords OpenAI's structured outputs accept in a strict schema. */
const STRICT_KEYWORDS = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', 'description', 'title', '$defs', 'definitions', '$ref']);

/**
 * What OpenAI answers 400 for in a strict schema (structured outputs): the root is an object;
 * every object lists all its properties as required and sets additionalProperties: false; only the
 * supported keywords appear. Undefined when the schema is acceptable.
 */
export function strictSchemaProblem(schema: unknown, at = '(root)'): string | undefined {
  if (!isSchema(schema)) return `${at}: a schema must be an object`;
  if (at === '(root)' && schema.type !== 'object') return `schema must be a JSON Schema of 'type: "object"', got 'type: "${String(schema.type)}"'`;
  const unsupported = Object.keys(schema).find((k) => !STRICT_KEYWORDS.has(k));
  if (unsupported) return `${at}: '${unsupported}' is not permitted`;
  if (schema.type === 'object') {
    const props = isSchema(schema.properties) ? schema.properties : {};
    if (schema.additionalProperties !== false) return `${at}: 'additionalProperties' is required to be supplied and to be false`;
    const required = Array.isArray(schema.required) ? schema.required : [];
    const missing = Object.keys(props).find((k) => !required.includes(k));
    if (missing) return `${at}: 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'`;
    for (const [k, v] of Object.entries(props)) {
      const problem = strictSchemaProblem(v, `${at}.${k}`);
      if (problem) return problem;
    }
  }
  if (schema.items !== undefined) return strictSchemaProblem(schema.items, `${at}.items`);
  if (Array.isArray(schema.anyOf)) for (const [i, v] of schema.anyOf.entries()) {
    const problem = strictSchemaProblem(v, `${at}.anyOf[${i}]`);
    if (problem) return problem;
  }
  return undefined;
}

/** The simplest value a schema admits (what a model held to the schema would write). */
function instanceOf(schema: unknown, depth = 0): unknown {
  if (!isSchema(schema) || depth > 10) return {};
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  for (const k of ['anyOf', 'oneOf'] as const) {
    const options = schema[k];
    if (Array.isArray(options) && options.length) return instanceOf(options[0], depth + 1);
  }
  if (Array.isArray(schema.allOf)) return instanceOf(Object.assign({}, ...schema.allOf.filter(isSchema), { allOf: undefined }), depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const num = (k: string) => (typeof schema[k] === 'number' ? (schema[k] as number) : undefined);
  switch (type) {
    case 'string': {
      if (schema.format === 'date-time') return new Date().toISOString();
      if (schema.format === 'date') return new Date().toISOString().slice(0, 10);
      if (schema.format === 'email') return 'leitor@example.com';
      if (schema.format === 'uri') return 'https://example.com/';
      return 'a'.repeat(num('minLength') ?? 0);
    }
    case 'integer':
    case 'number': {
      const low = num('minimum') ?? (num('exclusiveMinimum') !== undefined ? Math.floor(num('exclusiveMinimum')!) + 1 : undefined);
      const high = num('maximum') ?? (num('exclusiveMaximum') !== undefined ? Math.ceil(num('exclusiveMaximum')!) - 1 : undefined);
      return low ?? (high !== undefined ? Math.min(0, high) : 0);
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return Array.from({ length: num('minItems') ?? 0 }, () => instanceOf(schema.items, depth + 1));
    default: {
      const props = isSchema(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      return Object.fromEntries(required.map((k) => [k, instanceOf(props[k], depth + 1)]));
    }
  }
}

/**
 * The unscripted answer, in the format asked for: text echoes the prompt; json_object is a JSON
 * object; json_schema is the simplest value of the schema, or OpenAI's 400 for a strict schema it
 * does not support. Two tasks are known by name, as a model would do them: `edition_quiz` (the quiz
 * generation's format) gets ten questions quoting the edition in the prompt, so the platform run
 * without a script (`npm run fuzz`, a developer's `npm start` pointed at the double) makes quizzes;
 * `article_enrichment` (the news enrichment's format) gets a keyword-rule reading of the article.
 */
function defaultReply(body: ChatBody): Answer {
  const format = body.response_format;
  if (format?.type === 'json_object') return { kind: 'reply', content: JSON.stringify({ echo: lastUserMessage(body) }) };
  if (format?.type === 'json_schema') {
    const problem = format.json_schema.strict ? strictSchemaProblem(format.json_schema.schema) : undefined;
    if (problem) return { kind: 'error', status: 400, message: `Invalid schema for response_format '${format.json_schema.name}': ${problem}` };
    if (format.json_schema.name === 'edition_quiz') return { kind: 'reply', content: JSON.stringify(editionQuiz(lastUserMessage(body))) };
    if (format.json_schema.name === 'article_enrichment') return { kind: 'reply', content: JSON.stringify(articleEnrichment(firstUserMessage(body))) };
    return { kind: 'reply', content: JSON.stringify(instanceOf(format.json_schema.schema)) };
  }
  return { kind: 'reply', content: `echo: ${lastUserMessage(body)}` };
}

export interface OpenAiDouble {
  url: string;
  server: Server;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

export async function startOpenAiDouble(port = 0): Promise<OpenAiDouble> {
  const scripts = new Map<string, Step[]>();
  const requests = new Map<string, ChatBody[]>();
  let callSeq = 0;

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://double');
      if (url.pathname === '/__control/script' && req.method === 'POST') {
        const { user, steps } = JSON.parse(await readBody(req)) as { user: string; steps: Step[] };
        scripts.set(user, [...(scripts.get(user) ?? []), ...steps]);
        return json(res, 200, { queued: scripts.get(user)!.length });
      }
      if (url.pathname === '/__control/requests' && req.method === 'GET') {
        return json(res, 200, requests.get(url.searchParams.get('user') ?? '') ?? []);
      }
      if (url.pathname === '/__control/reset' && req.method === 'POST') {
        const user = url.searchParams.get('user') ?? '';
        scripts.delete(user);
        requests.delete(user);
        return json(res, 200, {});
      }
      if (url.pathname !== '/v1/chat/completions' || req.method !== 'POST') {
        return json(res, 404, { error: { message: `no route ${req.method} ${url.pathname}`, type: 'invalid_request_error' } });
      }
      if (!/^Bearer \S+/.test(req.headers.authorization ?? '')) {
        return json(res, 401, { error: { message: 'missing API key', type: 'invalid_request_error' } });
      }
      const body = JSON.parse(await readBody(req)) as ChatBody;
      const user = body.user ?? '';
      requests.set(user, [...(requests.get(user) ?? []), body]);
      const queue = scripts.get(user) ?? [];
      const next: Step = (queue[0]?.kind === 'tool_then_reply' ? queue[0] : queue.shift()) ?? defaultReply(body);
      let step: Answer = next.kind === 'default' ? { ...defaultReply(body), delayMs: next.delayMs } : next;
      if (step.kind === 'tool_then_reply') {
        const answered = body.messages.some((m) => m.role === 'tool');
        step = answered
          ? { kind: 'reply', content: step.reply, ...(step.replyDelayMs ? { delayMs: step.replyDelayMs } : {}) }
          : { kind: 'tool_calls', calls: [{ name: step.tool, arguments: step.arguments }] };
      }
      if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
      if (res.destroyed) return;

      if (step.kind === 'error') {
        const headers: Record<string, string> = step.retryAfter ? { 'Retry-After': step.retryAfter } : {};
        const type = step.status === 400 ? 'invalid_request_error' : 'scripted';
        return json(res, step.status, { error: { message: step.message ?? `scripted ${step.status}`, type } }, headers);
      }
      const id = `chatcmpl-${++callSeq}`;
      const created = Math.floor(Date.now() / 1000);
      const promptTokens = tokens(JSON.stringify(body.messages));
      if (step.kind === 'tool_calls') {
        const toolCalls = step.calls.map((c, i) => ({
          id: `call_${callSeq}_${i}`,
          type: 'function',
          function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
        }));
        const completion = tokens(JSON.stringify(toolCalls));
        return json(res, 200, {
          id,
          object: 'chat.completion',
          created,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: toolCalls }, finish_reason: 'tool_calls' }],
          usage: { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion },
        });
      }
      const content = step.kind === 'echo_request' ? JSON.stringify(body) : step.content;
      const finishReason = step.kind === 'reply' ? (step.finishReason ?? 'stop') : 'stop';
      const prompt = step.kind === 'reply' && step.usage ? step.usage.prompt : promptTokens;
      const completion = step.kind === 'reply' && step.usage ? step.usage.completion : tokens(content);
      const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
      if (body.stream) {
        res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
        const send = (chunk: unknown) => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        const base = { id, object: 'chat.completion.chunk', created, model: body.model };
        send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
        for (const piece of content.match(/.{1,8}/gs) ?? []) {
          send({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
        }
        send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finishReason }] });
        if (body.stream_options?.include_usage) send({ ...base, choices: [], usage });
        res.end('data: [DONE]\n\n');
        return;
      }
      return json(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
        usage,
      });
    } catch (err) {
      json(res, 500, { error: { message: (err as Error).message, type: 'double_error' } });
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Ten questions about the edition after the prompt's first line, each quoting a passage of it. */
function editionQuiz(prompt: string): unknown {
  const text = prompt.slice(prompt.indexOf('\n\n') + 2).replace(/\s+/g, ' ').trim();
  const span = Math.min(200, Math.max(20, Math.floor(text.length / 10)));
  return {
    questions: Array.from({ length: 10 }, (_, i) => ({
      question: `O que a edição diz no trecho ${i + 1}?`,
      options: [0, 1, 2, 3].map((o) => ({ text: `Trecho ${i + 1}, opção ${o + 1}`, correct: o === i % 4 })),
      evidence: text.slice(Math.min(i * span, Math.max(0, text.length - span)), Math.min(i * span, Math.max(0, text.length - span)) + span),
    })),
  };
}

/**
 * Companies and institutions the double recognises (names as written, then aliases; tickers as
 * traded on B3), with the sector a company's mention votes for.
 */
const KNOWN_ENTITIES: { name: string; aliases: string[]; ticker: string | null; type: 'COMPANY' | 'INSTITUTION'; sector: string | null }[] = [
  ...(
    [
      ['Petrobras', 'PETR4', 'ENE', ['Petrobrás', 'Petróleo Brasileiro']],
      ['PRIO', 'PRIO3', 'ENE', []],
      ['Eletrobras', 'ELET3', 'ENE', []],
      ['Equatorial', 'EQTL3', 'ENE', ['Equatorial Energia']],
      ['Vale', 'VALE3', 'MAT', []],
      ['Gerdau', 'GGBR4', 'MAT', []],
      ['Suzano', 'SUZB3', 'MAT', []],
      ['Itaú Unibanco', 'ITUB4', 'FIN', ['Itaú']],
      ['Bradesco', 'BBDC4', 'FIN', []],
      ['Banco do Brasil', 'BBAS3', 'FIN', []],
      ['Santander Brasil', 'SANB11', 'FIN', ['Santander']],
      ['BTG Pactual', 'BPAC11', 'FIN', ['BTG']],
      ['B3', 'B3SA3', 'FIN', []],
      ['Ambev', 'ABEV3', 'CON', []],
      ['Magazine Luiza', 'MGLU3', 'CON', ['Magalu']],
      ['Lojas Renner', 'LREN3', 'CON', ['Renner']],
      ['Assaí', 'ASAI3', 'CON', []],
      ['WEG', 'WEGE3', 'IND', []],
      ['Embraer', 'EMBR3', 'DEF', []],
      ['JBS', 'JBSS3', 'AGR', []],
      ['BRF', 'BRFS3', 'AGR', []],
      ['SLC Agrícola', 'SLCE3', 'AGR', []],
      ['Rumo', 'RAIL3', 'TRA', []],
      ['Vivo', 'VIVT3', 'COM', ['Telefônica Brasil']],
      ['TIM', 'TIMS3', 'COM', []],
      ['Totvs', 'TOTS3', 'TEC', ['TOTVS']],
      ['Locaweb', 'LWSA3', 'TEC', []],
      ["Rede D'Or", 'RDOR3', 'SAU', ['Rede D’Or']],
      ['Hapvida', 'HAPV3', 'SAU', []],
      ['Raia Drogasil', 'RADL3', 'SAU', ['RD Saúde']],
      ['Cyrela', 'CYRE3', 'IMO', []],
      ['MRV', 'MRVE3', 'IMO', []],
      ['Localiza', 'RENT3', 'SER', []],
      ['Cogna', 'COGN3', 'EDU', []],
      ['Sabesp', 'SBSP3', 'AMB', []],
      ['CVC Brasil', 'CVCB3', 'TUR', ['CVC']],
    ] as const
  ).map(([name, ticker, sector, aliases]) => ({ name, aliases: [...aliases], ticker, type: 'COMPANY' as const, sector })),
  ...(
    [
      ['Banco Central', ['Banco Central do Brasil', 'Bacen', 'BC']],
      ['Copom', ['Comitê de Política Monetária']],
      ['CVM', ['Comissão de Valores Mobiliários']],
      ['IBGE', []],
      ['Cade', []],
      ['ANP', []],
      ['Aneel', []],
      ['Anatel', []],
      ['ANS', []],
      ['Anvisa', []],
      ['STF', ['Supremo Tribunal Federal']],
      ['Tesouro Nacional', []],
      ['Receita Federal', []],
      ['Conab', []],
      ['ANTT', []],
    ] as const
  ).map(([name, aliases]) => ({ name, aliases: [...aliases], ticker: null, type: 'INSTITUTION' as const, sector: null })),
];

/** Words (folded, matched at word starts) that vote for a sector or a topic, in order of precedence. */
const SECTOR_WORDS: [string, string[]][] = [
  ['FIN', ['banco', 'bancos', 'bancari', 'credito', 'seguradora', 'copom', 'selic', 'juros', 'cambio', 'dolar', 'fintech', 'inadimplencia', 'gestora']],
  ['ENE', ['petroleo', 'gas natural', 'combustive', 'energia$', 'apagao', 'gasolina', 'diesel', 'energia eletrica', 'transmissao', 'eletrica', 'pre-sal', 'refinaria', 'barris']],
  ['MAT', ['minerio', 'mineracao', 'mineradora', 'siderurg', 'celulose', 'cimento']],
  ['CON', ['varejo', 'varejista', 'lojas', 'consumo', 'supermercado', 'bebida', 'comercio eletronico']],
  ['AGR', ['safra', 'soja', 'milho$', 'agronegocio', 'frigorifico', 'gado', 'carne bovina', 'frango', 'graos', 'fazendas$']],
  ['TEC', ['software', 'tecnologia', 'startup', 'data center', 'inteligencia artificial', 'nuvem', 'hacker', 'ciberataque']],
  ['SAU', ['hospita', 'saude', 'farmaceutica', 'medicamento', 'sinistralidade']],
  ['IMO', ['imobiliari', 'incorporadora', 'construtora', 'minha casa minha vida', 'imoveis']],
  ['TRA', ['ferrovia', 'ferroviari', 'rodovia', 'logistica', 'porto', 'pedagio']],
  ['COM', ['telecom', 'telefonia', '5g$', 'operadora de telefonia', 'banda larga']],
  ['GOV', ['ipca', 'inflacao', 'pib', 'desemprego', 'deficit', 'arrecadacao', 'reforma tributaria', 'contas publicas']],
  ['IND', ['industria', 'maquinas', 'montadora', 'metalurgic', 'motores']],
  ['TUR', ['turismo', 'companhia aerea', 'viage', 'passagens aereas', 'aviacao']],
  ['EDU', ['educacao', 'ensino', 'faculdade', 'universidade', 'alunos']],
  ['AMB', ['saneamento', 'agua e esgoto', 'desmatamento']],
  ['CRY', ['bitcoin', 'cripto', 'stablecoin', 'ativos virtuais']],
  ['DEF', ['defesa', 'militar', 'forca aerea']],
  ['SER', ['locacao', 'aluguel de carros']],
];
const TOPIC_WORDS: [string, string[]][] = [
  ['DIV', ['dividendo', 'juros sobre capital proprio', 'jcp$', 'proventos']],
  ['BUYBACK', ['recompra']],
  ['IPO', ['ipo$', 'oferta publica inicial', 'abertura de capital', 'follow-on']],
  ['M&A', ['aquisicao', 'fusao', 'oferta de compra', 'adquirir', 'compra da', 'compra de participacao', 'venda de participacao']],
  ['RATES', ['copom', 'selic', 'juros basicos', 'politica monetaria', 'fed$']],
  ['EARN', ['lucro', 'prejuizo', 'resultado', 'receita liquida', 'balanco', 'ebitda']],
  ['DEBT', ['debenture', 'divida', 'recuperacao judicial', 'rating', 'credores']],
  ['LEGAL', ['processo', 'justica', 'tribunal', 'multa', 'condena', 'investigacao', 'acao judicial']],
  ['REG', ['regulament', 'regra', 'norma', 'resolucao', 'aprova', 'tarifa', 'reajuste']],
  ['GUIDANCE', ['projecao', 'guidance', 'plano de investimento', 'metas$']],
  ['MACRO', ['ipca', 'inflacao', 'pib', 'desemprego', 'ibge', 'deficit', 'cambio']],
  ['ESG', ['desmatamento', 'esg$', 'carbono', 'sustentabilidade']],
  ['LABOR', ['greve', 'demissoes', 'sindicato', 'trabalhadores']],
  ['CONTRACT', ['contrato', 'leilao', 'concessao', 'encomenda']],
  ['MGMT', ['presidente-executivo', 'ceo$', 'renuncia', 'conselho de administracao', 'diretor-presidente']],
  ['PRODUCT', ['producao', 'lancamento', 'lanca', 'preco', 'produto']],
];
const POSITIVE_WORDS = ['alta$', 'altas$', 'sobe', 'subiu', 'avanc', 'cresce', 'crescimento', 'recorde', 'supera', 'lucro', 'ganho', 'expansao', 'melhora', 'valoriza', 'otimismo', 'forte', 'acima do esperado', 'aprova'];
const NEGATIVE_WORDS = ['queda', 'cai$', 'caem$', 'caiu', 'recua', 'prejuizo', 'perda', 'multa', 'crise', 'recuperacao judicial', 'rebaix', 'inadimplencia', 'abaixo do esperado', 'piora', 'greve', 'suspende', 'investigacao', 'condena', 'deficit', 'fraude', 'demissoes', 'pior', 'fraco', 'fraca', 'decepciona', 'pressiona', 'preocupa'];

const foldText = (s: string) => s.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Occurrences of a folded word start (`banc` counts "bancos", not "abancado"); a whole word when it ends in `$`. */
const countStarts = (folded: string, word: string) => {
  const whole = word.endsWith('$');
  const pattern = `(?<![\\p{L}\\p{N}])${escape(whole ? word.slice(0, -1) : word)}${whole ? '(?![\\p{L}\\p{N}])' : ''}`;
  return folded.match(new RegExp(pattern, 'gu'))?.length ?? 0;
};

/** The code with the most votes (title words count three times); the first of the list on a tie. */
function vote(table: [string, string[]][], title: string, body: string, extra: Map<string, number> = new Map()): [string, number][] {
  return table
    .map(([code, ws]): [string, number] => [code, ws.reduce((n, w) => n + 3 * countStarts(title, w) + countStarts(body, w), 0) + (extra.get(code) ?? 0)])
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
}

/** Mentions of the known entities, longest name first so "Banco do Brasil" is not also "Brasil". */
function findKnown(text: string): Map<number, number> {
  const taken: boolean[] = [];
  const counts = new Map<number, number>();
  const forms = KNOWN_ENTITIES.flatMap((e, i) => [e.name, ...e.aliases, ...(e.ticker ? [e.ticker] : [])].map((f) => ({ f, i }))).sort((a, b) => b.f.length - a.f.length);
  for (const { f, i } of forms) {
    for (const m of text.matchAll(new RegExp(`(?<![\\p{L}\\p{N}])${escape(f)}(?![\\p{L}\\p{N}])`, 'gu'))) {
      const [start, end] = [m.index, m.index + f.length];
      if (taken.slice(start, end).some(Boolean)) continue;
      for (let k = start; k < end; k++) taken[k] = true;
      counts.set(i, (counts.get(i) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * A keyword-rule enrichment of the article in the prompt (the tags buildEnrichmentMessages
 * writes): sector, topic and sentiment by word lists, entities from a table of known names,
 * breaking when the title starts with URGENTE or the text mentions a fato relevante, and the
 * translations as the Portuguese text with "[EN] " before the English one.
 */
function articleEnrichment(prompt: string): ModelEnrichment {
  const field = (name: string) => {
    const value = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(prompt)?.[1]?.trim() ?? '';
    return value === '(nenhum)' || value === '' ? null : value;
  };
  const title = field('titulo') ?? '';
  const subtitle = field('subtitulo');
  const summary = field('resumo');
  const text = field('texto') ?? '';
  const all = [title, subtitle, summary, text].filter(Boolean).join('\n\n');
  const [foldedTitle, foldedAll] = [foldText(title), foldText(all)];

  const found = findKnown(all);
  const inTitle = findKnown(title);
  const companyVotes = new Map<string, number>();
  for (const [i, n] of found) {
    const sector = KNOWN_ENTITIES[i]!.sector;
    if (sector) companyVotes.set(sector, (companyVotes.get(sector) ?? 0) + 2 * n + 3 * (inTitle.get(i) ?? 0));
  }
  const hint = /costuma cobrir o setor ([A-Z]{3})/.exec(prompt)?.[1];
  const sectors = vote(SECTOR_WORDS, foldedTitle, foldedAll, companyVotes);
  const topics = vote(TOPIC_WORDS, foldedTitle, foldedAll);
  const primarySector = (sectors[0]?.[0] ?? hint ?? 'FIN') as ModelEnrichment['classification']['primarySector'];
  const primaryTopic = (topics[0]?.[0] ?? 'MACRO') as ModelEnrichment['classification']['primaryTopic'];

  const count = (ws: string[]) => ws.reduce((n, w) => n + countStarts(foldedAll, w) + 2 * countStarts(foldedTitle, w), 0);
  const [pos, neg] = [count(POSITIVE_WORDS), count(NEGATIVE_WORDS)];
  const score = Math.round(((pos - neg) / (pos + neg + 2)) * 100) / 100;
  const breaking = /^urgente/.test(foldedTitle) || foldedAll.includes('fato relevante');

  const entities = [...found].map(([i, n]) => {
    const e = KNOWN_ENTITIES[i]!;
    return { name: e.name, type: e.type, ticker: e.ticker, cnpj: null, mentionCount: n, inTitle: inTitle.has(i), sentiment: score };
  });
  const tickers = entities.flatMap((e) => (e.ticker ? [e.ticker] : []));
  const words = foldedAll.split(/[^a-z0-9-]+/).filter((w) => w.length >= 7);
  const frequent = [...new Set(words)].sort((a, b) => words.filter((w) => w === b).length - words.filter((w) => w === a).length).slice(0, 8);
  const en = (s: string | null) => (s === null ? null : `[EN] ${s}`);
  return {
    classification: {
      primarySector,
      secondarySectors: sectors.slice(1, 3).map(([c]) => c) as ModelEnrichment['classification']['secondarySectors'],
      primaryTopic,
      topics: topics.slice(1, 3).map(([c]) => c) as ModelEnrichment['classification']['topics'],
      contentType: breaking ? 'BREAKING' : 'NEWS',
      urgencyLevel: breaking ? 'CRITICAL' : Math.abs(score) >= 0.5 ? 'HIGH' : 'MEDIUM',
      isBreaking: breaking,
    },
    sentiment: { score, label: sentimentLabel(score), confidence: 0.6 },
    marketImpact: {
      level: breaking ? 'HIGH' : tickers.length ? 'MEDIUM' : 'LOW',
      horizon: breaking ? 'INTRADAY' : 'SHORT_TERM',
      scope: tickers.length ? 'COMPANY' : primarySector === 'GOV' || primaryTopic === 'RATES' ? 'ECONOMY' : 'SECTOR',
      confidence: 0.5,
      affectedTickers: tickers,
    },
    entities: entities.slice(0, 30),
    translations: { pt: { title, subtitle, summary }, en: { title: `[EN] ${title}`, subtitle: en(subtitle), summary: en(summary) } },
    scores: {
      relevance: Math.min(100, 40 + 10 * tickers.length + (breaking ? 20 : 0)),
      credibility: 70,
      depth: Math.min(100, Math.round(words.length / 3)),
      timeliness: breaking ? 95 : 70,
      originality: 50,
    },
    keywords: [...new Set([...entities.map((e) => e.name.toLowerCase()), ...frequent])].slice(0, 15),
  };
}

function firstUserMessage(body: ChatBody): string {
  return body.messages.find((m) => m.role === 'user')?.content ?? '';
}

function lastUserMessage(body: ChatBody): string {
  const users = body.messages.filter((m) => m.role === 'user');
  return users[users.length - 1]?.content ?? '';
}

/** Test-side client of a running double's control API. */
export function openAiDoubleControl(baseUrl: string) {
  const root = baseUrl.replace(/\/v1\/?$/, '');
  return {
    async script(user: string, steps: Step[]): Promise<void> {
      const res = await fetch(`${root}/__control/script`, { method: 'POST', body: JSON.stringify({ user, steps }) });
      if (!res.ok) throw new Error(`double refused script: ${res.status}`);
    },
    async requests(user: string): Promise<ChatBody[]> {
      return (await (await fetch(`${root}/__control/requests?user=${encodeURIComponent(user)}`)).json()) as ChatBody[];
    },
    async reset(user: string): Promise<void> {
      await fetch(`${root}/__control/reset?user=${encodeURIComponent(user)}`, { method: 'POST' });
    },
  };
}
