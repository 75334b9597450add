/**
 * Registration of agents, HTTP tools and MCP context providers (permission ai.edit; listing needs
 * ai.view). Stored in MongoDB; built-in names cannot be registered, changed or deleted.
 */
import { z } from 'zod';
import { isBuiltinAgent } from '../../models/ai/agent.rules';
import { argumentValidator, BUILTIN_TOOLS, isBuiltinTool } from '../../models/ai/tool.rules';
import { AppError, notFound } from '../../models/errors';
import { refuseProvider } from '../../models/infra/mcp';
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

function checkParameters(parameters: Record<string, unknown>): void {
  if (parameters.type !== 'object') throw new AppError('VALIDATION_FAILED', 'Invalid request: body.parameters: must be a JSON Schema with type "object"');
  try {
    argumentValidator(parameters);
  } catch (err) {
    throw new AppError('VALIDATION_FAILED', `Invalid request: body.parameters: not a valid JSON Schema: ${(err as Error).message}`);
  }
}

function checkEndpoint(deps: QuizDeps, endpoint: string): void {
  const reason = deps.ai.outbound.refuse(endpoint);
  if (reason) throw new AppError('VALIDATION_FAILED', `Invalid request: body.endpoint: ${reason}`);
}

async function checkReferences(deps: QuizDeps, tools: string[] | undefined, providers: string[] | undefined): Promise<void> {
  if (tools?.length) {
    const { unknown } = await deps.ai.registry.resolveTools(tools);
    if (unknown.length) throw new AppError('VALIDATION_FAILED', `Invalid request: body.tools: unknown tool(s): ${unknown.join(', ')}`);
  }
  if (providers?.length) {
    const found = await deps.ai.registry.findProviders(providers);
    const missing = providers.filter((p) => !found.some((f) => f.name === p));
    if (missing.length) throw new AppError('VALIDATION_FAILED', `Invalid request: body.contextProviders: unknown provider(s): ${missing.join(', ')}`);
  }
}

function builtinGuard(kind: 'agent' | 'tool', name: string, builtin: boolean): void {
  if (builtin) throw new AppError('FORBIDDEN', `${name} is a built-in ${kind} and cannot be changed or deleted`);
}

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
      handler: async ({ body, auth, deps }) => {
        if (isBuiltinAgent(body.name)) throw new AppError('CONFLICT', `${body.name} is a built-in agent`);
        await checkReferences(deps, body.tools, body.contextProviders);
        if (!(await deps.ai.registry.createAgent(body, auth.sub))) throw new AppError('CONFLICT', `agent ${body.name} already exists`);
        return reply({ status: 201, message: 'agent registered', data: await deps.ai.registry.findAgent(body.name) });
      },
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
      handler: async ({ params, body, auth, deps }) => {
        builtinGuard('agent', params.name, isBuiltinAgent(params.name));
        await checkReferences(deps, body.tools, body.contextProviders);
        const patch = definedFields(body);
        return (await deps.ai.registry.updateAgent(params.name, patch, auth.sub)) ?? notFound(`agent ${params.name}`);
      },
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
        builtinGuard('agent', params.name, isBuiltinAgent(params.name));
        if (!(await deps.ai.registry.deleteAgent(params.name))) notFound(`agent ${params.name}`);
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
        if (isBuiltinTool(body.name)) throw new AppError('CONFLICT', `${body.name} is a built-in tool`);
        checkParameters(body.parameters);
        checkEndpoint(deps, body.endpoint);
        if (!(await deps.ai.registry.createTool(body, auth.sub))) throw new AppError('CONFLICT', `tool ${body.name} already exists`);
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
      handler: async ({ params, body, auth, deps }) => {
        builtinGuard('tool', params.name, isBuiltinTool(params.name));
        if (body.parameters) checkParameters(body.parameters);
        if (body.endpoint) checkEndpoint(deps, body.endpoint);
        const patch = definedFields(body);
        return (await deps.ai.registry.updateTool(params.name, patch, auth.sub)) ?? notFound(`tool ${params.name}`);
      },
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
        builtinGuard('tool', params.name, isBuiltinTool(params.name));
        const users = await deps.ai.registry.agentsUsing('tools', params.name);
        if (users.length) throw new AppError('CONFLICT', `tool ${params.name} is used by agent(s): ${users.join(', ')}`);
        if (!(await deps.ai.registry.deleteTool(params.name))) notFound(`tool ${params.name}`);
        return { deleted: params.name };
      },
    }),

    // ---- context providers
    route({
      method: 'get',
      path: '/ai/context-providers',
      summary: 'List MCP context providers',
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
        'A Model Context Protocol server read before an agent answers: stdio (an allow-listed command) or Streamable HTTP ' +
        '(https, allow-listed host). Its resources (all, or the listed URIs) are injected, 10,000 characters at most.',
      tags,
      auth: bearer(AI_EDIT),
      rateLimit: aiRateLimit,
      body: ProviderBody,
      status: 201,
      errors: [409, 429],
      handler: async ({ body, auth, deps }) => {
        const reason = refuseProvider(body, { outbound: deps.ai.outbound, stdioCommands: deps.config.ai.mcpStdioCommands });
        if (reason) throw new AppError('VALIDATION_FAILED', `Invalid request: ${reason}`);
        if (!(await deps.ai.registry.createProvider(body, auth.sub))) throw new AppError('CONFLICT', `context provider ${body.name} already exists`);
        return reply({ status: 201, message: 'context provider registered', data: body });
      },
    }),
    route({
      method: 'patch',
      path: '/ai/context-providers/:name',
      summary: 'Update an MCP context provider',
      tags,
      auth: bearer(AI_EDIT),
      rateLimit: aiRateLimit,
      params: ProviderNameParams,
      body: ProviderPatch,
      errors: [404, 429],
      handler: async ({ params, body, auth, deps }) => {
        const [current] = await deps.ai.registry.findProviders([params.name]);
        if (!current) notFound(`context provider ${params.name}`);
        const patch = definedFields(body);
        const reason = refuseProvider({ ...current, ...patch }, { outbound: deps.ai.outbound, stdioCommands: deps.config.ai.mcpStdioCommands });
        if (reason) throw new AppError('VALIDATION_FAILED', `Invalid request: ${reason}`);
        return (await deps.ai.registry.updateProvider(params.name, patch, auth.sub)) ?? notFound(`context provider ${params.name}`);
      },
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
        const users = await deps.ai.registry.agentsUsing('contextProviders', params.name);
        if (users.length) throw new AppError('CONFLICT', `context provider ${params.name} is used by agent(s): ${users.join(', ')}`);
        if (!(await deps.ai.registry.deleteProvider(params.name))) notFound(`context provider ${params.name}`);
        return { deleted: params.name };
      },
    }),
  ];
}
