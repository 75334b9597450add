/**
 * Registration of agents, HTTP tools and MCP context providers (permission ai.edit; listing needs
 * ai.view). Stored in MongoDB; built-in names cannot be registered, changed or deleted. And the
 * AI administrators' report of everyone's use per user and model (ai.edit, as the registry's
 * changes).
 */
import type { z } from 'zod';
import * as registry from '../../operations/ai/registry';
import { usageByUserAndModel } from '../../operations/ai/usage';
import { BUILTIN_TOOLS } from '../../models/ai/tool.rules';
import { bearer } from '../shared/auth';
import { definedFields, reply, routeFactory, type RouteExample } from '../shared/route';
import type { QuizDeps } from '../quiz/deps';
import { AI_EDIT, AI_VIEW, aiRateLimit } from './chat.routes';
import {
  AgentNameParams,
  AiAgent,
  AiAgentList,
  AiContextProvider,
  AiContextProviderList,
  type AiLimits,
  AiRegisteredTool,
  AiToolList,
  AiUsageByUserQuery,
  AiUsageByUserView,
  ProviderBody,
  ProviderNameParams,
  ProviderPatch,
  RegistryEntryDeleted,
  ToolBody,
  ToolNameParams,
  ToolPatch,
  agentBody,
  agentPatch,
} from './contracts';
import {
  agentList,
  agentName,
  agentRegistration,
  agentUpdate,
  aiUsageByUser,
  providerList,
  providerName,
  providerRegistration,
  providerUpdate,
  registeredAgent,
  toolList,
  toolName,
  toolRegistration,
  toolUpdate,
  updatedAgent,
  updatedProvider,
  updatedTool,
} from './examples';

const route = routeFactory<QuizDeps>();
const tags = ['ai registry'];

/**
 * The AI's administrative operations (under /ai/admin): the registry editors' permission, ai.edit,
 * documented under `adminBearer` (the same JWT) as every administrative operation is, apart from
 * the operations that permission also opens outside /ai/admin (OWASP API5: an admin endpoint's
 * security is its own).
 */
const aiAdmin = { ...bearer(AI_EDIT), scheme: 'adminBearer' as const };

type Params = z.input<typeof AgentNameParams>;
type None = Record<string, never>;

/**
 * One kind of registration (agents, HTTP tools, MCP context providers) at `path`: its register,
 * update and delete routes (permission ai.edit), each running its operation. `register` answers
 * what the 201 carries and `update` the entry updated, both as `view`; the 201's message names
 * the kind (`tool registered`). Each route's `example` is its worked example (route.ts RouteExample).
 */
interface RegistryKind<C extends z.ZodType, U extends z.ZodType<object>, R extends z.ZodType> {
  path: string;
  kind: string;
  params: typeof AgentNameParams;
  view: R;
  register: {
    summary: string;
    description?: string;
    body: C;
    run: (deps: QuizDeps, body: z.output<C>, by: string) => Promise<z.input<R>>;
    example: RouteExample<None, None, z.input<C>, z.input<R>>;
  };
  update: {
    summary: string;
    description?: string;
    body: U;
    run: (deps: QuizDeps, name: string, patch: Partial<z.output<U>>, by: string) => Promise<z.input<R>>;
    example: RouteExample<Params, None, z.input<U>, z.input<R>>;
  };
  remove: { summary: string; errors: number[]; run: (deps: QuizDeps, name: string) => Promise<void>; example: RouteExample<Params, None, undefined, z.input<typeof RegistryEntryDeleted>> };
}

function editRoutes<C extends z.ZodType, U extends z.ZodType<object>, R extends z.ZodType>(r: RegistryKind<C, U, R>) {
  const edit = { tags, auth: bearer(AI_EDIT), rateLimit: aiRateLimit };
  return [
    route({
      method: 'post',
      path: r.path,
      summary: r.register.summary,
      description: r.register.description,
      ...edit,
      body: r.register.body,
      response: r.view,
      status: 201,
      errors: [409, 429],
      example: r.register.example,
      handler: async ({ body, auth, deps }) => reply({ status: 201, message: `${r.kind} registered`, data: await r.register.run(deps, body, auth.sub) }),
    }),
    route({
      method: 'patch',
      path: `${r.path}/:name`,
      summary: r.update.summary,
      description: r.update.description,
      ...edit,
      params: r.params,
      body: r.update.body,
      response: r.view,
      errors: [404, 429],
      example: r.update.example,
      handler: async ({ params, body, auth, deps }) => await r.update.run(deps, params.name, definedFields(body), auth.sub),
    }),
    route({
      method: 'delete',
      path: `${r.path}/:name`,
      summary: r.remove.summary,
      ...edit,
      params: r.params,
      response: RegistryEntryDeleted,
      errors: r.remove.errors,
      example: r.remove.example,
      handler: async ({ params, deps }) => {
        await r.remove.run(deps, params.name);
        return { deleted: params.name };
      },
    }),
  ];
}

/** A registration whose operation answers nothing: the 201 carries the body registered. */
const answeringBody =
  <T>(register: (deps: QuizDeps, body: T, by: string) => Promise<void>) =>
  async (deps: QuizDeps, body: T, by: string) => {
    await register(deps, body, by);
    return body;
  };

export function registryRoutes(limits: AiLimits) {
  return [
    // ---- agents
    route({
      method: 'get',
      path: '/ai/agents',
      summary: 'List agents (built-in and registered)',
      tags,
      auth: bearer(AI_VIEW),
      rateLimit: aiRateLimit,
      response: AiAgentList,
      example: { response: agentList },
      handler: async ({ deps }) => deps.ai.registry.listAgents(),
    }),
    ...editRoutes({
      path: '/ai/agents',
      kind: 'agent',
      params: AgentNameParams,
      view: AiAgent,
      register: {
        summary: 'Register an agent',
        body: agentBody(limits),
        // The agent as stored; as registered should it be deleted before it is read back.
        run: async (deps, body, by) => (await registry.registerAgent(deps, body, by)) ?? { ...body, builtin: false },
        example: { body: agentRegistration, response: registeredAgent, message: 'agent registered' },
      },
      update: {
        summary: 'Update a registered agent',
        body: agentPatch(limits),
        run: registry.updateAgent,
        example: { params: { name: agentName }, body: agentUpdate, response: updatedAgent },
      },
      remove: { summary: 'Delete a registered agent', errors: [404, 429], run: registry.deleteAgent, example: { params: { name: agentName }, response: { deleted: agentName } } },
    }),

    // ---- tools
    route({
      method: 'get',
      path: '/ai/tools',
      summary: 'List tools (built-in and registered HTTP tools)',
      tags,
      auth: bearer(AI_VIEW),
      rateLimit: aiRateLimit,
      response: AiToolList,
      example: { response: toolList },
      handler: async ({ deps }) => [
        ...BUILTIN_TOOLS.map((t) => ({ ...t, kind: 'builtin' as const })),
        ...(await deps.ai.registry.listTools()).map((t) => ({ ...t, kind: 'http' as const })),
      ],
    }),
    ...editRoutes({
      path: '/ai/tools',
      kind: 'tool',
      params: ToolNameParams,
      view: AiRegisteredTool,
      register: {
        summary: 'Register an HTTP tool',
        description: 'The platform POSTs validated arguments as JSON to the https endpoint (host on AI_TOOL_HOST_ALLOWLIST) and gives the JSON answer to the model.',
        body: ToolBody,
        run: answeringBody(registry.registerTool),
        example: { body: toolRegistration, response: toolRegistration, message: 'tool registered' },
      },
      update: { summary: 'Update a registered HTTP tool', body: ToolPatch, run: registry.updateTool, example: { params: { name: toolName }, body: toolUpdate, response: updatedTool } },
      remove: { summary: 'Delete a registered HTTP tool', errors: [404, 409, 429], run: registry.deleteTool, example: { params: { name: toolName }, response: { deleted: toolName } } },
    }),

    // ---- context providers
    route({
      method: 'get',
      path: '/ai/context-providers',
      summary: 'List MCP context providers',
      description: 'A stdio provider registered with its own command before stdio servers were named by the operator is listed with `refused` (why it never runs).',
      tags,
      auth: bearer(AI_VIEW),
      rateLimit: aiRateLimit,
      response: AiContextProviderList,
      example: { response: providerList },
      handler: async ({ deps }) => deps.ai.registry.listProviders(),
    }),
    ...editRoutes({
      path: '/ai/context-providers',
      kind: 'context provider',
      params: ProviderNameParams,
      view: AiContextProvider,
      register: {
        summary: 'Register an MCP context provider',
        description:
          'A Model Context Protocol server read before an agent answers: stdio (`server`: the name of a server the operator ' +
          'configured in AI_MCP_STDIO_PROVIDERS; a command or arguments are refused with 400) or Streamable HTTP (https, ' +
          'allow-listed host). Its resources (all, or the listed URIs) are injected, 10,000 characters at most.',
        body: ProviderBody,
        run: answeringBody(registry.registerProvider),
        example: { body: providerRegistration, response: providerRegistration, message: 'context provider registered' },
      },
      update: {
        summary: 'Update an MCP context provider',
        description: 'Naming a `server` also makes a refused stdio provider (one registered with its own command) usable again.',
        body: ProviderPatch,
        run: registry.updateProvider,
        example: { params: { name: providerName }, body: providerUpdate, response: updatedProvider },
      },
      remove: { summary: 'Delete an MCP context provider', errors: [404, 409, 429], run: registry.deleteProvider, example: { params: { name: providerName }, response: { deleted: providerName } } },
    }),

    // ---- usage per user and model (administrators)
    route({
      method: 'get',
      path: '/ai/admin/usage',
      summary: 'Token usage per user and model (administrators)',
      description:
        "Every user's use of the AI (or one user's, with `user`) between `from` and `to` (UTC days, inclusive; default: the last 30 days; at most 366): " +
        'per user and model, the requests and the prompt, completion and total tokens, the largest total first, a page at a time, with the sums of the whole period. ' +
        'The same records as GET /ai/usage (one per chat request). Needs ai.edit.',
      tags: ['ai'],
      auth: aiAdmin,
      rateLimit: aiRateLimit,
      query: AiUsageByUserQuery,
      response: AiUsageByUserView,
      example: { query: { from: '2026-11-01', to: '2026-11-24', limit: 3 }, response: aiUsageByUser },
      handler: async ({ query, deps }) => await usageByUserAndModel(deps, query),
    }),
  ];
}
