/**
 * The AI area's contracts (quiz-ai-chat-api.md §2.3, §4.3; served by the quiz service): the views
 * its routes answer with and the requests they take, each registered with an id so that the
 * OpenAPI document names it once. The bodies that name models are built from the configuration,
 * so the accepted models and the token ceiling are validated and documented.
 */
import { z } from 'zod';
import { AGENT_NAME, AgentDefinition, NAME_MAX, TEMPERATURE } from '../../models/ai/agent.rules';
import { LEGACY_STDIO_REFUSAL } from '../../models/ai/registry.repo';
import { TOOL_NAME } from '../../models/ai/tool.rules';
import { Count, Text } from '../shared/views';
import { acceptedModelNames, type ModelMap } from '../../models/ai/model.rules';
import { wholeNumber } from '../../models/params.rules';
import { Pagination } from '../quiz/contracts';

export interface AiLimits {
  models: ModelMap;
  maxTokens: number;
}

/** Keys of a JSON Schema object (a tool's parameters, a reply's schema). */
const KEY_MAX = 200;
const URL_MAX = 2_048;

const prompt = z.string().max(100_000).trim().min(1, 'prompt must not be empty').describe('The user message');

export const ResponseFormatSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text') }),
    z.strictObject({ type: z.literal('json_object') }),
    z.strictObject({
      type: z.literal('json_schema'),
      name: z.string().max(64).regex(/^[A-Za-z0-9_-]{1,64}$/).default('response'),
      schema: z.record(z.string().max(KEY_MAX), z.unknown()).describe('JSON Schema the reply must satisfy'),
      strict: z.boolean().optional(),
    }),
  ])
  .describe('text (default), json_object, or json_schema with the schema the reply must satisfy');

export function modelSchema(limits: AiLimits) {
  const accepted = acceptedModelNames(limits.models);
  return z
    .string()
    .max(200)
    .refine((m) => accepted.includes(m), { message: `model must be one of: ${accepted.join(', ')}` })
    .optional()
    .describe(`A model class (mini: default, advanced, previous, legacy) or a configured id: ${accepted.join(', ')}`);
}

export function chatBody(limits: AiLimits) {
  return z.strictObject({
    prompt,
    model: modelSchema(limits),
    temperature: TEMPERATURE.optional(),
    maxTokens: z.number().int().min(1).max(limits.maxTokens, `maxTokens must be at most ${limits.maxTokens}`).optional(),
    systemPrompt: z.string().max(20_000).optional().describe('Instructions placed before the prompt'),
    responseFormat: ResponseFormatSchema.optional(),
    stream: z.boolean().optional().describe('Stream the reply as Server-Sent Events: delta events, then a result event'),
  }).meta({ id: 'ChatRequest' });
}

export function chatWithToolsBody(limits: AiLimits) {
  return z.strictObject({
    prompt,
    tools: z
      .array(z.string().min(1).max(NAME_MAX))
      .min(1, 'tools must name at least one tool')
      .max(20)
      .refine((t) => new Set(t).size === t.length, 'tools must not repeat a name'),
    temperature: TEMPERATURE.optional(),
    model: modelSchema(limits),
    maxTokens: z.number().int().min(1).max(limits.maxTokens, `maxTokens must be at most ${limits.maxTokens}`).optional(),
    systemPrompt: z.string().max(20_000).optional(),
  }).meta({ id: 'ChatWithToolsRequest' });
}

export const AgentRunBody = z.strictObject({ prompt }).meta({ id: 'AgentRunRequest' });
export const AgentNameParams = z.object({ name: z.string().max(NAME_MAX).regex(AGENT_NAME, 'not a valid agent name') }).meta({ id: 'AgentNameParams' });
export const ToolNameParams = z.object({ name: z.string().max(NAME_MAX).regex(TOOL_NAME, 'not a valid tool name') }).meta({ id: 'ToolNameParams' });
export const ProviderNameParams = z.object({ name: z.string().max(NAME_MAX).regex(AGENT_NAME, 'not a valid provider name') }).meta({ id: 'ContextProviderNameParams' });

export const ToolResultSchema = z.object({
  toolName: z.string().describe('as the model named it'),
  arguments: z.unknown(),
  result: z.unknown(),
  timestamp: z.number().int().min(0).max(253_402_300_799_999).describe('Epoch milliseconds'),
});

export const UsageSchema = z.object({ promptTokens: Count, completionTokens: Count, totalTokens: Count });

/** A model's reply: bounded in tokens (maxTokens) and tool rounds (MAX_TOOL_ITERATIONS), not in characters (.spectral.yaml). */
export const ChatResult = z
  .object({
    content: z.string(),
    toolResults: z.array(ToolResultSchema),
    usage: UsageSchema,
    finishReason: z.string().max(64).describe('stop, length, tool_calls, content_filter, or max_tool_iterations when the tool limit ended the run'),
  })
  .meta({ id: 'ChatResult' });

// A calendar day that exists (z.iso.date checks months, days and leap years, not just the shape).
const day = z.iso.date('expected a date YYYY-MM-DD that exists').max(10);
export const UsageQuery = z
  .object({ from: day.optional(), to: day.optional() })
  .refine((q) => !q.from || !q.to || q.from <= q.to, 'from must not be after to')
  .meta({ id: 'AiUsageQuery' });

/** The caller's daily token budget for today (operations/ai/usage.ts). */
export const DailyBudgetSchema = z
  .object({
    day: day.describe('Today, UTC'),
    dailyTokens: z.number().int().min(1).describe('Tokens (prompt + completion) a user may spend per UTC day (AI_DAILY_TOKENS_PER_USER)'),
    usedTokens: z.number().int().min(0).describe('Tokens spent today; a run that started with tokens left may take it past dailyTokens'),
    remainingTokens: z.number().int().min(0).describe('0 once spent: new runs answer 429 until resetsAt'),
    resetsAt: z.iso.datetime().max(30).describe('The next UTC midnight, when the budget renews'),
  })
  .meta({ id: 'AiDailyBudget' });

/** The caller's use per UTC day, with totals, and today's budget. */
export const AiUsageView = z.object({
  from: z.iso.date().max(10),
  to: z.iso.date().max(10),
  days: z.array(z.object({ day: z.iso.date().max(10), requests: Count, promptTokens: Count, completionTokens: Count, totalTokens: Count })).max(367).describe('days with use; the range spans at most 366 days'),
  totals: z.object({ requests: Count, promptTokens: Count, completionTokens: Count, totalTokens: Count }),
  budget: DailyBudgetSchema,
}).meta({ id: 'AiUsage' });

// ---- Usage per user and model (administrators, ai.edit) -------------------------------------------

/** Rows of the administrators' usage report a page (the default, and the most). */
export const USAGE_PAGE_DEFAULT = 20;
export const USAGE_PAGE_MAX = 100;

export const AiUsageByUserQuery = z
  .object({
    from: day.optional().describe('First UTC day (inclusive); default: 29 days before `to`'),
    to: day.optional().describe('Last UTC day (inclusive); default: today (UTC). The period spans at most 366 days'),
    user: z.string().max(200).trim().min(1).optional().describe("One user's id (a token's `sub`: `usr_em_…`); default: every user"),
    page: wholeNumber((n) => n.min(1).max(10_000)).default(1),
    limit: wholeNumber((n) => n.min(1).max(USAGE_PAGE_MAX)).default(USAGE_PAGE_DEFAULT),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, 'from must not be after to')
  .meta({ id: 'AiUsageByUserQuery' });

const usageCounts = {
  requests: Count.describe('chat requests (each with all its model calls and tool rounds)'),
  promptTokens: Count,
  completionTokens: Count,
  totalTokens: Count.describe('prompt + completion, as the provider reported them'),
};

/** GET /ai/admin/usage: per user and model, the largest total of tokens first, a page at a time. */
export const AiUsageByUserView = z
  .object({
    from: z.iso.date().max(10),
    to: z.iso.date().max(10),
    user: Text(200).nullable().describe('the user asked for; null for every user'),
    rows: z
      .array(z.object({ userId: Text(200), model: Text(200).describe('the provider model id the run used'), ...usageCounts }))
      .max(USAGE_PAGE_MAX)
      .describe('one per user and model with use in the period: the largest totalTokens first, then by user and model'),
    totals: z.object(usageCounts).describe('the sums of every row of the period (all pages)'),
    pagination: Pagination,
  })
  .meta({ id: 'AiUsageByUser' });

/** The agents and tools a caller may name (unbounded lists: .spectral.yaml). */
export const AiResources = z.object({ agents: z.array(z.string().max(64)), tools: z.array(z.string().max(64)) }).meta({ id: 'AiResources' });

/** What deleting a registered agent, tool or context provider answers. */
export const RegistryEntryDeleted = z.object({ deleted: z.string().max(64) }).meta({ id: 'RegistryEntryDeleted' });

/** A new agent (AgentDefinition): what is left out takes its default. */
export function agentBody(limits: AiLimits) {
  const f = AgentDefinition.shape;
  return z.strictObject({
    name: f.name,
    description: f.description.default(''),
    systemPrompt: f.systemPrompt,
    model: modelSchema(limits).default('mini'),
    temperature: f.temperature.default(0.7),
    tools: f.tools.default([]),
    contextProviders: f.contextProviders.default([]),
  }).meta({ id: 'RegisterAgentRequest' });
}

/** Changes to an agent: any of its fields but the name. */
export function agentPatch(limits: AiLimits) {
  return z
    .strictObject({ ...AgentDefinition.omit({ name: true }).partial().shape, model: modelSchema(limits) })
    .refine((b) => Object.keys(b).length > 0, 'at least one field is required')
    .meta({ id: 'UpdateAgentRequest' });
}

export const ToolBody = z.strictObject({
  name: z.string().max(NAME_MAX).regex(TOOL_NAME, 'name: lowercase letters, digits and _, 2 to 64 characters'),
  description: z.string().max(1_000).trim().min(1),
  parameters: z.record(z.string().max(KEY_MAX), z.unknown()).describe('JSON Schema of the arguments object'),
  endpoint: z.url().max(URL_MAX).describe('https URL the platform POSTs the arguments to; its host must be allow-listed'),
  timeoutMs: z.number().int().min(100).max(60_000).default(10_000),
}).meta({ id: 'RegisterToolRequest' });

export const ToolPatch = z
  .strictObject({
    description: z.string().max(1_000).trim().min(1).optional(),
    parameters: z.record(z.string().max(KEY_MAX), z.unknown()).optional(),
    endpoint: z.url().max(URL_MAX).optional(),
    timeoutMs: z.number().int().min(100).max(60_000).optional(),
  })
  .refine((b) => Object.keys(b).length > 0, 'at least one field is required')
  .meta({ id: 'UpdateToolRequest' });

/**
 * Unknown keys are refused; a command or arguments say why: stdio servers are the operator's
 * (AI_MCP_STDIO_PROVIDERS), a registration only names one.
 */
const providerKeys = {
  error: (issue: { code?: string; keys?: string[] }) =>
    issue.code === 'unrecognized_keys' && issue.keys?.some((k) => k === 'command' || k === 'args')
      ? 'a context provider cannot name a command or arguments; a stdio provider names a server the operator configured (AI_MCP_STDIO_PROVIDERS)'
      : undefined,
};
const providerName = z.string().max(NAME_MAX).regex(AGENT_NAME, 'name: lowercase letters, digits and -, 2 to 64 characters');
const stdioServer = z
  .string({
    error: (issue) =>
      issue.input === undefined
        ? 'required: a stdio provider names a server the operator configured (AI_MCP_STDIO_PROVIDERS), never a command or arguments'
        : undefined,
  })
  .max(NAME_MAX)
  .regex(AGENT_NAME, 'server: lowercase letters, digits and -, 2 to 64 characters')
  .describe('stdio: the name of an MCP server the operator configured (AI_MCP_STDIO_PROVIDERS); the command line is theirs, never the caller\'s');
const providerUrl = z.url().max(URL_MAX).describe('http: the Streamable HTTP endpoint (https, allow-listed host)');
const resources = z.array(z.string().min(1).max(URL_MAX)).max(50);

/** A registration over one transport: a name and a description, the transport's fields, the resources to read. */
const providerOver = <T extends z.ZodRawShape>(transport: T) =>
  z.strictObject(
    {
      name: providerName,
      description: z.string().max(500).default(''),
      ...transport,
      resources: resources.default([]).describe('Resource URIs to read; all listed ones when empty'),
    },
    providerKeys,
  );

export const ProviderBody = z
  .discriminatedUnion('transport', [
    providerOver({ transport: z.literal('stdio'), server: stdioServer }),
    providerOver({ transport: z.literal('http'), url: providerUrl }),
  ])
  .describe('stdio: a server the operator configured, by name; http: an https endpoint on an allow-listed host')
  .meta({ id: 'RegisterContextProviderRequest' });

export const ProviderPatch = z
  .strictObject(
    {
      description: z.string().max(500).optional(),
      server: stdioServer.optional(),
      url: providerUrl.optional(),
      resources: resources.optional(),
    },
    providerKeys,
  )
  .refine((b) => Object.keys(b).length > 0, 'at least one field is required')
  .meta({ id: 'UpdateContextProviderRequest' });

// ---- Registry views ------------------------------------------------------------------------------
// What the registry's routes answer: the repository's entries as they are (models/ai/registry.repo.ts
// maps each stored document to its registration, without its _id, audit fields or timestamps, and
// never a legacy provider's command or arguments), so no present function is needed.
//
// The lists have no maxItems: registrations have no limit in the spec or the code (the agents and
// tools, as in AiResources; the context providers likewise), so no true bound exists.

/** An agent (AgentDefinition), built-in or registered. */
export const AiAgent = z
  .object({
    ...AgentDefinition.shape,
    builtin: z.boolean().describe('A built-in agent (code): it cannot be changed or deleted'),
  })
  .meta({ id: 'AiAgent' });

/** GET /ai/agents: the four built-ins, then the registered agents by name. */
export const AiAgentList = z.array(AiAgent).describe('The built-in agents, then the registered ones by name; registrations are not limited');

/**
 * A tool's name, description and JSON Schema of its arguments (tool.rules.ts ToolDefinition). The
 * parameters are a JSON Schema its author wrote, any of its keywords: typed as any JSON value, as
 * a tool's arguments and results are (ChatResult), since no success answer holds an open object.
 */
const toolFields = {
  name: z.string().max(NAME_MAX).regex(TOOL_NAME),
  description: z.string().max(1_000),
  parameters: z.unknown().describe('JSON Schema of the arguments object (an object whose type is "object"), as registered'),
};
/** What a registered HTTP tool adds (registry.repo.ts RegisteredTool). */
const httpToolFields = {
  endpoint: z.url().max(URL_MAX).describe('https URL the platform POSTs the arguments to'),
  timeoutMs: z.number().int().min(100).max(60_000),
};

/** A registered HTTP tool, as registered or updated (without `kind`: the tool lists add it). */
export const AiRegisteredTool = z.object({ ...toolFields, ...httpToolFields }).meta({ id: 'AiRegisteredTool' });

/** A tool as listed: a built-in (code) or a registered HTTP tool. */
export const AiTool = z
  .discriminatedUnion('kind', [
    z.object({ ...toolFields, kind: z.literal('builtin') }),
    z.object({ ...toolFields, ...httpToolFields, kind: z.literal('http') }),
  ])
  .describe('builtin: runs in the platform; http: POSTs its arguments to its endpoint')
  .meta({ id: 'AiTool' });

/** GET /ai/tools: the built-ins, then the registered HTTP tools by name. */
export const AiToolList = z.array(AiTool).describe('The built-in tools, then the registered HTTP tools by name; registrations are not limited');

/**
 * An MCP context provider (registry.repo.ts ListedProvider): `server` (stdio) or `url` (http), as
 * the repository gives them; a stdio provider registered with its own command names no server and
 * says why it never runs in `refused` (only lists show one: updating it needs a server).
 */
export const AiContextProvider = z
  .object({
    name: z.string().max(NAME_MAX).regex(AGENT_NAME),
    description: z.string().max(500),
    transport: z.enum(['stdio', 'http']),
    server: z.string().max(NAME_MAX).regex(AGENT_NAME).optional().describe('stdio: the MCP server the operator configured (AI_MCP_STDIO_PROVIDERS); absent when refused'),
    url: z.url().max(URL_MAX).optional().describe('http: the Streamable HTTP endpoint'),
    resources: z.array(z.string().min(1).max(URL_MAX)).max(50).describe('Resource URIs read; all listed ones when empty'),
    refused: z.string().max(LEGACY_STDIO_REFUSAL.length).optional().describe('Why a stdio provider registered with its own command (before stdio servers were named by the operator) is never started'),
  })
  .meta({ id: 'AiContextProvider' });

/** GET /ai/context-providers: the registered providers by name. */
export const AiContextProviderList = z.array(AiContextProvider).describe('The registered context providers by name; registrations are not limited');
