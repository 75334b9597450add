/**
 * Registration of agents, HTTP tools and MCP context providers (permission ai.edit; listing needs
 * ai.view). Stored in MongoDB; built-in names cannot be registered, changed or deleted.
 */
import type { z } from 'zod';
import * as registry from '../../operations/ai/registry';
import { BUILTIN_TOOLS } from '../../models/ai/tool.rules';
import { bearer } from '../shared/auth';
import { definedFields, reply, routeFactory } from '../shared/route';
import type { QuizDeps } from '../quiz/deps';
import { AI_EDIT, AI_VIEW, aiRateLimit } from './chat.routes';
import {
  AgentNameParams,
  type AiLimits,
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

const route = routeFactory<QuizDeps>();
const tags = ['ai registry'];

/**
 * One kind of registration (agents, HTTP tools, MCP context providers) at `path`: its register,
 * update and delete routes (permission ai.edit), each running its operation. `register` answers
 * what the 201 carries; the 201's message names the kind (`tool registered`).
 */
interface RegistryKind<C extends z.ZodType, U extends z.ZodType<object>> {
  path: string;
  kind: string;
  params: typeof AgentNameParams;
  register: { summary: string; description?: string; body: C; run: (deps: QuizDeps, body: z.output<C>, by: string) => Promise<unknown> };
  update: { summary: string; description?: string; body: U; run: (deps: QuizDeps, name: string, patch: Partial<z.output<U>>, by: string) => Promise<unknown> };
  remove: { summary: string; errors: number[]; run: (deps: QuizDeps, name: string) => Promise<void> };
}

function editRoutes<C extends z.ZodType, U extends z.ZodType<object>>(r: RegistryKind<C, U>) {
  const edit = { tags, auth: bearer(AI_EDIT), rateLimit: aiRateLimit };
  return [
    route({
      method: 'post',
      path: r.path,
      summary: r.register.summary,
      description: r.register.description,
      ...edit,
      body: r.register.body,
      status: 201,
      errors: [409, 429],
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
      errors: [404, 429],
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
      handler: async ({ deps }) => deps.ai.registry.listAgents(),
    }),
    ...editRoutes({
      path: '/ai/agents',
      kind: 'agent',
      params: AgentNameParams,
      register: { summary: 'Register an agent', body: agentBody(limits), run: registry.registerAgent },
      update: { summary: 'Update a registered agent', body: agentPatch(limits), run: registry.updateAgent },
      remove: { summary: 'Delete a registered agent', errors: [404, 429], run: registry.deleteAgent },
    }),

    // ---- tools
    route({
      method: 'get',
      path: '/ai/tools',
      summary: 'List tools (built-in and registered HTTP tools)',
      tags,
      auth: bearer(AI_VIEW),
      rateLimit: aiRateLimit,
      handler: async ({ deps }) => [
        ...BUILTIN_TOOLS.map((t) => ({ ...t, kind: 'builtin' as const })),
        ...(await deps.ai.registry.listTools()).map((t) => ({ ...t, kind: 'http' as const })),
      ],
    }),
    ...editRoutes({
      path: '/ai/tools',
      kind: 'tool',
      params: ToolNameParams,
      register: {
        summary: 'Register an HTTP tool',
        description: 'The platform POSTs validated arguments as JSON to the https endpoint (host on AI_TOOL_HOST_ALLOWLIST) and gives the JSON answer to the model.',
        body: ToolBody,
        run: answeringBody(registry.registerTool),
      },
      update: { summary: 'Update a registered HTTP tool', body: ToolPatch, run: registry.updateTool },
      remove: { summary: 'Delete a registered HTTP tool', errors: [404, 409, 429], run: registry.deleteTool },
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
      handler: async ({ deps }) => deps.ai.registry.listProviders(),
    }),
    ...editRoutes({
      path: '/ai/context-providers',
      kind: 'context provider',
      params: ProviderNameParams,
      register: {
        summary: 'Register an MCP context provider',
        description:
          'A Model Context Protocol server read before an agent answers: stdio (`server`: the name of a server the operator ' +
          'configured in AI_MCP_STDIO_PROVIDERS; a command or arguments are refused with 400) or Streamable HTTP (https, ' +
          'allow-listed host). Its resources (all, or the listed URIs) are injected, 10,000 characters at most.',
        body: ProviderBody,
        run: answeringBody(registry.registerProvider),
      },
      update: {
        summary: 'Update an MCP context provider',
        description: 'Naming a `server` also makes a refused stdio provider (one registered with its own command) usable again.',
        body: ProviderPatch,
        run: registry.updateProvider,
      },
      remove: { summary: 'Delete an MCP context provider', errors: [404, 409, 429], run: registry.deleteProvider },
    }),
  ];
}
