/**
 * Registration of agents, HTTP tools and MCP context providers (permission ai.edit; listing needs
 * ai.view). Stored in MongoDB; built-in names cannot be registered, changed or deleted.
 */
import { z } from 'zod';
import * as registry from '../../models/ai/operations/registry';
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
  ToolBody,
  ToolNameParams,
  ToolPatch,
  agentBody,
  agentPatch,
} from './schemas';

const route = routeFactory<QuizDeps>();
const tags = ['ai registry'];

export function registryRoutes(limits: AiLimits) {
  const AgentBody = agentBody(limits);
  const AgentPatch = agentPatch(limits);
  const deleted = z.object({ deleted: z.string().max(64) });

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
    route({
      method: 'post',
      path: '/ai/agents',
      summary: 'Register an agent',
      tags,
      auth: bearer(AI_EDIT),
      rateLimit: aiRateLimit,
      body: AgentBody,
      status: 201,
      errors: [409, 429],
      handler: async ({ body, auth, deps }) => reply({ status: 201, message: 'agent registered', data: await registry.registerAgent(deps, body, auth.sub) }),
    }),
    route({
      method: 'patch',
      path: '/ai/agents/:name',
      summary: 'Update a registered agent',
      tags,
      auth: bearer(AI_EDIT),
      rateLimit: aiRateLimit,
      params: AgentNameParams,
      body: AgentPatch,
      errors: [404, 429],
      handler: async ({ params, body, auth, deps }) => await registry.updateAgent(deps, params.name, definedFields(body), auth.sub),
    }),
    route({
      method: 'delete',
      path: '/ai/agents/:name',
      summary: 'Delete a registered agent',
      tags,
      auth: bearer(AI_EDIT),
      rateLimit: aiRateLimit,
      params: AgentNameParams,
      response: deleted,
      errors: [404, 429],
      handler: async ({ params, deps }) => {
        await registry.deleteAgent(deps, params.name);
        return { deleted: params.name };
      },
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
    route({
      method: 'post',
      path: '/ai/tools',
      summary: 'Register an HTTP tool',
      description: 'The platform POSTs validated arguments as JSON to the https endpoint (host on AI_TOOL_HOST_ALLOWLIST) and gives the JSON answer to the model.',
      tags,
      auth: bearer(AI_EDIT),
      rateLimit: aiRateLimit,
      body: ToolBody,
      status: 201,
      errors: [409, 429],
      handler: async ({ body, auth, deps }) => {
        await registry.registerTool(deps, body, auth.sub);
        return reply({ status: 201, message: 'tool registered', data: body });
      },
    }),
    route({
      method: 'patch',
      path: '/ai/tools/:name',
      summary: 'Update a registered HTTP tool',
      tags,
      auth: bearer(AI_EDIT),
      rateLimit: aiRateLimit,
      params: ToolNameParams,
      body: ToolPatch,
      errors: [404, 429],
      handler: async ({ params, body, auth, deps }) => await registry.updateTool(deps, params.name, definedFields(body), auth.sub),
    }),
    route({
      method: 'delete',
      path: '/ai/tools/:name',
      summary: 'Delete a registered HTTP tool',
      tags,
      auth: bearer(AI_EDIT),
      rateLimit: aiRateLimit,
      params: ToolNameParams,
      response: deleted,
      errors: [404, 409, 429],
      handler: async ({ params, deps }) => {
        await registry.deleteTool(deps, params.name);
        return { deleted: params.name };
      },
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
    route({
      method: 'post',
      path: '/ai/context-providers',
      summary: 'Register an MCP context provider',
      description:
        'A Model Context Protocol server read before an agent answers: stdio (`server`: the name of a server the operator ' +
        'configured in AI_MCP_STDIO_PROVIDERS; a command or arguments are refused with 400) or Streamable HTTP (https, ' +
        'allow-listed host). Its resources (all, or the listed URIs) are injected, 10,000 characters at most.',
      tags,
      auth: bearer(AI_EDIT),
      rateLimit: aiRateLimit,
      body: ProviderBody,
      status: 201,
      errors: [409, 429],
      handler: async ({ body, auth, deps }) => {
        await registry.registerProvider(deps, body, auth.sub);
        return reply({ status: 201, message: 'context provider registered', data: body });
      },
    }),
    route({
      method: 'patch',
      path: '/ai/context-providers/:name',
      summary: 'Update an MCP context provider',
      description: 'Naming a `server` also makes a refused stdio provider (one registered with its own command) usable again.',
      tags,
      auth: bearer(AI_EDIT),
      rateLimit: aiRateLimit,
      params: ProviderNameParams,
      body: ProviderPatch,
      errors: [404, 429],
      handler: async ({ params, body, auth, deps }) => await registry.updateProvider(deps, params.name, definedFields(body), auth.sub),
    }),
    route({
      method: 'delete',
      path: '/ai/context-providers/:name',
      summary: 'Delete an MCP context provider',
      tags,
      auth: bearer(AI_EDIT),
      rateLimit: aiRateLimit,
      params: ProviderNameParams,
      response: deleted,
      errors: [404, 409, 429],
      handler: async ({ params, deps }) => {
        await registry.deleteProvider(deps, params.name);
        return { deleted: params.name };
      },
    }),
  ];
}
