/**
 * Worked examples of the AI routes (api/shared/route.ts RouteExample), on Tuesday 2026-11-24: a
 * reader asks about the day's financial news, and an editor has registered a market-summary agent
 * (`resumo-mercado`) with an HTTP tool that quotes B3 shares (`cotacao_b3`) and a context provider
 * with the week's economic calendar (`agenda-economica`). Built-in agents and tools are
 * models/ai/agent.rules.ts and tool.rules.ts.
 */
import type { z } from 'zod';
import { BUILTIN_AGENTS, BUILTIN_AGENT_NAMES } from '../../models/ai/agent.rules';
import { LEGACY_STDIO_REFUSAL } from '../../models/ai/registry.repo';
import { BUILTIN_TOOLS, BUILTIN_TOOL_NAMES } from '../../models/ai/tool.rules';
import type {
  AiAgent,
  AiAgentList,
  AiContextProvider,
  AiContextProviderList,
  AiRegisteredTool,
  AiResources,
  AiToolList,
  AiUsageByUserView,
  AiUsageView,
  ChatResult,
  ProviderBody,
  ToolBody,
} from './contracts';

export const agentName = 'resumo-mercado';
export const toolName = 'cotacao_b3';
export const providerName = 'agenda-economica';

// ---- Registry -----------------------------------------------------------------------------------

/** POST /ai/agents: the agent registered (RegisterAgentRequest). */
export const agentRegistration = {
  name: agentName,
  description: 'Resume o mercado do dia: Ibovespa, ações da B3, juros e câmbio.',
  systemPrompt:
    'Você é o analista de mercado da newsletter. Responda em português do Brasil, em até três frases, citando os tickers. ' +
    'Use cotacao_b3 para cotações e search_database para as matérias do dia. Não faça recomendações de investimento.',
  model: 'mini',
  temperature: 0.3,
  tools: ['get_current_date', 'search_database', toolName],
  contextProviders: [providerName],
};

/** POST /ai/tools: an HTTP tool that quotes one B3 share. */
export const toolRegistration = {
  name: toolName,
  description: 'Cotação mais recente de uma ação da B3 pelo ticker (PETR4, VALE3, ITUB4), com a variação do dia em %.',
  parameters: {
    type: 'object',
    properties: { ticker: { type: 'string', pattern: '^[A-Z]{4}[0-9]{1,2}$', maxLength: 6, description: 'Ticker da B3, como PETR4' } },
    required: ['ticker'],
    additionalProperties: false,
  },
  endpoint: 'https://cotacoes.exemplo.com.br/v1/b3/cotacao',
  timeoutMs: 5_000,
} satisfies z.input<typeof ToolBody>;

/** POST /ai/context-providers: the week's economic calendar over Streamable HTTP. */
export const providerRegistration = {
  name: providerName,
  description: 'Agenda econômica da semana: reuniões do Copom, divulgações do IPCA e balanços de empresas da B3.',
  transport: 'http',
  url: 'https://mcp.agenda.exemplo.com.br/mcp',
  resources: ['agenda://semana'],
} satisfies z.input<typeof ProviderBody>;

/** The agent as registered (AiAgent), and as listed after the built-ins. */
export const registeredAgent = { ...agentRegistration, builtin: false } satisfies z.input<typeof AiAgent>;
/** PATCH /ai/agents/resumo-mercado: a steadier temperature, and the same tools. */
export const agentUpdate = { temperature: 0.2, tools: ['get_current_date', 'search_database', toolName] };
export const updatedAgent = { ...registeredAgent, ...agentUpdate } satisfies z.input<typeof AiAgent>;
export const agentList = [...BUILTIN_AGENTS.map((a) => ({ ...a, builtin: true })), registeredAgent] satisfies z.input<typeof AiAgentList>;

/** PATCH /ai/tools/cotacao_b3: a shorter timeout. */
export const toolUpdate = { timeoutMs: 8_000 };
export const updatedTool = { ...toolRegistration, ...toolUpdate } satisfies z.input<typeof AiRegisteredTool>;
export const toolList = [
  ...BUILTIN_TOOLS.map((t) => ({ ...t, kind: 'builtin' as const })),
  { ...toolRegistration, kind: 'http' as const },
] satisfies z.input<typeof AiToolList>;

/** PATCH /ai/context-providers/agenda-economica: the Copom calendar read too. */
export const providerUpdate = { resources: ['agenda://semana', 'agenda://copom'] };
export const updatedProvider = { ...providerRegistration, ...providerUpdate } satisfies z.input<typeof AiContextProvider>;
/** The calendar, a stdio server the operator configured, and a stdio provider registered with its own command (refused). */
export const providerList = [
  providerRegistration,
  {
    name: 'guia-de-estilo',
    description: 'Guia de estilo da redação: grafia de tickers, siglas e números.',
    transport: 'stdio' as const,
    server: 'guia-redacao',
    resources: ['guia://estilo'],
  },
  { name: 'planilha-legada', description: '', transport: 'stdio' as const, resources: [], refused: LEGACY_STDIO_REFUSAL },
] satisfies z.input<typeof AiContextProviderList>;

// ---- Runs ---------------------------------------------------------------------------------------

/** POST /ai/chat: a plain reply, no tools. */
export const chatReply = {
  content:
    'Manter a Selic em 10,75% significa que o Banco Central vê a inflação (IPCA) ainda acima da meta e prefere juros altos por mais tempo. ' +
    'Para o investidor, a renda fixa continua atrativa e o crédito segue caro para empresas e famílias.',
  toolResults: [],
  usage: { promptTokens: 64, completionTokens: 71, totalTokens: 135 },
  finishReason: 'stop',
} satisfies z.input<typeof ChatResult>;

/** POST /ai/chat-with-tools: the model asked for today's date, then searched the articles. */
export const chatWithToolsReply = {
  content:
    'Hoje (24/11) uma matéria trata do tema: "Petrobras aprova R$ 1,12 por ação em dividendos extraordinários", do Valor Econômico, ' +
    'publicada às 7h05. Ela detalha o pagamento e a alta de 3,4% da PETR4 no pré-mercado.',
  toolResults: [
    {
      toolName: 'get_current_date',
      arguments: {},
      result: { formatted: 'terça-feira, 24 de novembro de 2026 às 08:32:03', iso: '2026-11-24T08:32:03.412-03:00', timestamp: 1795519923412 },
      timestamp: 1795519923415,
    },
    {
      toolName: 'search_database',
      arguments: { source: 'articles', query: 'Petrobras dividendos', limit: 5 },
      result: {
        source: 'articles',
        count: 1,
        items: [
          {
            id: '3b8f2d41-7c6e-4a19-b5d0-8e2f1a9c4d67',
            title: 'Petrobras aprova R$ 1,12 por ação em dividendos extraordinários',
            subtitle: 'Pagamento soma R$ 14,6 bilhões e ações sobem 3,4% no pré-mercado',
            summary: 'O conselho da Petrobras aprovou dividendos extraordinários de R$ 1,12 por ação, pagos em dezembro.',
            primarySector: 'ENE',
            sourceName: 'Valor Econômico',
            publishedAt: '2026-11-24T10:05:00.000Z',
          },
        ],
      },
      timestamp: 1795519924980,
    },
  ],
  usage: { promptTokens: 1_284, completionTokens: 112, totalTokens: 1_396 },
  finishReason: 'stop',
} satisfies z.input<typeof ChatResult>;

/** POST /ai/agent/resumo-mercado: the agent quoted PETR4 with its registered tool. */
export const agentReply = {
  content:
    'A PETR4 sobe 3,4%, a R$ 38,42, depois do anúncio de R$ 1,12 por ação em dividendos extraordinários. ' +
    'É a maior alta do Ibovespa hoje; o mercado aguarda o IPCA-15 de novembro, divulgado nesta manhã.',
  toolResults: [
    {
      toolName,
      arguments: { ticker: 'PETR4' },
      result: { ticker: 'PETR4', preco: 38.42, variacao: 3.4, moeda: 'BRL', horario: '2026-11-24T14:05:00.000Z' },
      timestamp: 1795529103120,
    },
  ],
  usage: { promptTokens: 2_310, completionTokens: 88, totalTokens: 2_398 },
  finishReason: 'stop',
} satisfies z.input<typeof ChatResult>;

export const aiResources = {
  agents: [...BUILTIN_AGENT_NAMES, agentName],
  tools: [...BUILTIN_TOOL_NAMES, toolName],
} satisfies z.input<typeof AiResources>;

export const aiUsage = {
  from: '2026-11-23',
  to: '2026-11-24',
  days: [
    { day: '2026-11-23', requests: 14, promptTokens: 18_240, completionTokens: 5_312, totalTokens: 23_552 },
    { day: '2026-11-24', requests: 6, promptTokens: 7_130, completionTokens: 2_011, totalTokens: 9_141 },
  ],
  totals: { requests: 20, promptTokens: 25_370, completionTokens: 7_323, totalTokens: 32_693 },
  budget: { day: '2026-11-24', dailyTokens: 500_000, usedTokens: 9_141, remainingTokens: 490_859, resetsAt: '2026-11-25T00:00:00.000Z' },
} satisfies z.input<typeof AiUsageView>;

/**
 * GET /ai/admin/usage?from=2026-11-01&to=2026-11-24: November so far, every user, per user and
 * model (the largest first); three of the first page's rows, of 14 in all.
 */
export const aiUsageByUser = {
  from: '2026-11-01',
  to: '2026-11-24',
  user: null,
  rows: [
    { userId: 'usr_em_4b1f0c2d9e8a7b6c5d4e3f21', model: 'gpt-4o', requests: 212, promptTokens: 301_448, completionTokens: 88_917, totalTokens: 390_365 },
    { userId: 'usr_em_cc5e872af5e567ad37bb8946', model: 'gpt-4o-mini', requests: 164, promptTokens: 188_020, completionTokens: 41_733, totalTokens: 229_753 },
    { userId: 'usr_wa_5511987654321a9c3e7f02b', model: 'gpt-4o-mini', requests: 58, promptTokens: 52_311, completionTokens: 12_904, totalTokens: 65_215 },
  ],
  totals: { requests: 611, promptTokens: 743_902, completionTokens: 189_266, totalTokens: 933_168 },
  pagination: { page: 1, limit: 3, total: 14, totalPages: 5 },
} satisfies z.input<typeof AiUsageByUserView>;
