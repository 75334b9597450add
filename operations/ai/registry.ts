/**
 * The AI registry, the use cases (quiz-ai-chat-api.md §4.3; docs/decisions.md "AI chat"):
 * registering, changing and deleting agents, HTTP tools and MCP context providers. Built-in names
 * cannot be registered, changed or deleted; an agent names only tools and providers that exist; a
 * tool's parameters are a JSON Schema of an object; endpoints pass the outbound allow-list; a
 * stdio provider names a server the operator configured, never a command or arguments; what an
 * agent uses cannot be deleted.
 */
import type { Config } from '../../models/config';
import { AppError, notFound } from '../../models/errors';
import { refuseProvider } from '../../models/infra/mcp';
import type { Outbound } from '../../models/infra/outbound';
import { isBuiltinAgent, type AgentDefinition } from '../../models/ai/agent.rules';
import type { AiRegistryRepo, RegisteredProvider, RegisteredTool } from '../../models/ai/registry.repo';
import { argumentValidator, isBuiltinTool } from '../../models/ai/tool.rules';

export interface RegistryDeps {
  ai: { registry: AiRegistryRepo; outbound: Outbound };
  config: Pick<Config, 'ai'>;
}

function checkParameters(parameters: Record<string, unknown>): void {
  if (parameters.type !== 'object') throw new AppError('VALIDATION_FAILED', 'Invalid request: body.parameters: must be a JSON Schema with type "object"');
  try {
    argumentValidator(parameters);
  } catch (err) {
    throw new AppError('VALIDATION_FAILED', `Invalid request: body.parameters: not a valid JSON Schema: ${(err as Error).message}`);
  }
}

function checkEndpoint(deps: RegistryDeps, endpoint: string): void {
  const reason = deps.ai.outbound.refuse(endpoint);
  if (reason) throw new AppError('VALIDATION_FAILED', `Invalid request: body.endpoint: ${reason}`);
}

/**
 * A stdio provider names a configured server (AI_MCP_STDIO_PROVIDERS) and nothing else; an http
 * one an allow-listed https url. Whatever else a body carries is refused (the schemas already
 * refuse a command or arguments: nothing the API writes becomes part of a command line).
 */
function checkProvider(deps: RegistryDeps, spec: Pick<RegisteredProvider, 'transport' | 'server' | 'url'> & { command?: unknown; args?: unknown }): void {
  if (spec.command !== undefined || spec.args !== undefined) {
    throw new AppError('VALIDATION_FAILED', 'Invalid request: body: a context provider cannot name a command or arguments; a stdio provider names a server the operator configured (AI_MCP_STDIO_PROVIDERS)');
  }
  if (spec.transport === 'stdio' && spec.url !== undefined) throw new AppError('VALIDATION_FAILED', 'Invalid request: body.url: a stdio provider has no url');
  if (spec.transport === 'http' && spec.server !== undefined) throw new AppError('VALIDATION_FAILED', 'Invalid request: body.server: an http provider has no server');
  const reason = refuseProvider({ transport: spec.transport, server: spec.server, url: spec.url }, { outbound: deps.ai.outbound, stdioServers: deps.config.ai.mcpStdioProviders });
  if (reason) throw new AppError('VALIDATION_FAILED', `Invalid request: ${reason}`);
}

async function checkReferences(deps: RegistryDeps, tools: string[] | undefined, providers: string[] | undefined): Promise<void> {
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

async function unused(deps: RegistryDeps, kind: 'tool' | 'context provider', field: 'tools' | 'contextProviders', name: string): Promise<void> {
  const users = await deps.ai.registry.agentsUsing(field, name);
  if (users.length) throw new AppError('CONFLICT', `${kind} ${name} is used by agent(s): ${users.join(', ')}`);
}

export async function registerAgent(deps: RegistryDeps, agent: AgentDefinition, by: string) {
  if (isBuiltinAgent(agent.name)) throw new AppError('CONFLICT', `${agent.name} is a built-in agent`);
  await checkReferences(deps, agent.tools, agent.contextProviders);
  if (!(await deps.ai.registry.createAgent(agent, by))) throw new AppError('CONFLICT', `agent ${agent.name} already exists`);
  return await deps.ai.registry.findAgent(agent.name);
}

export async function updateAgent(deps: RegistryDeps, name: string, patch: Partial<Omit<AgentDefinition, 'name'>>, by: string) {
  builtinGuard('agent', name, isBuiltinAgent(name));
  await checkReferences(deps, patch.tools, patch.contextProviders);
  return (await deps.ai.registry.updateAgent(name, patch, by)) ?? notFound(`agent ${name}`);
}

export async function deleteAgent(deps: RegistryDeps, name: string): Promise<void> {
  builtinGuard('agent', name, isBuiltinAgent(name));
  if (!(await deps.ai.registry.deleteAgent(name))) notFound(`agent ${name}`);
}

export async function registerTool(deps: RegistryDeps, tool: RegisteredTool, by: string): Promise<void> {
  if (isBuiltinTool(tool.name)) throw new AppError('CONFLICT', `${tool.name} is a built-in tool`);
  checkParameters(tool.parameters);
  checkEndpoint(deps, tool.endpoint);
  if (!(await deps.ai.registry.createTool(tool, by))) throw new AppError('CONFLICT', `tool ${tool.name} already exists`);
}

export async function updateTool(deps: RegistryDeps, name: string, patch: Partial<Omit<RegisteredTool, 'name'>>, by: string) {
  builtinGuard('tool', name, isBuiltinTool(name));
  if (patch.parameters) checkParameters(patch.parameters);
  if (patch.endpoint) checkEndpoint(deps, patch.endpoint);
  return (await deps.ai.registry.updateTool(name, patch, by)) ?? notFound(`tool ${name}`);
}

export async function deleteTool(deps: RegistryDeps, name: string): Promise<void> {
  builtinGuard('tool', name, isBuiltinTool(name));
  await unused(deps, 'tool', 'tools', name);
  if (!(await deps.ai.registry.deleteTool(name))) notFound(`tool ${name}`);
}

export async function registerProvider(deps: RegistryDeps, provider: RegisteredProvider, by: string): Promise<void> {
  checkProvider(deps, provider);
  if (!(await deps.ai.registry.createProvider(provider, by))) throw new AppError('CONFLICT', `context provider ${provider.name} already exists`);
}

/** A stdio provider stored with its own command (before issue 35) becomes usable again only by naming a server. */
export async function updateProvider(deps: RegistryDeps, name: string, patch: Partial<Pick<RegisteredProvider, 'description' | 'server' | 'url' | 'resources'>>, by: string) {
  const [current] = await deps.ai.registry.findProviders([name]);
  if (!current) notFound(`context provider ${name}`);
  checkProvider(deps, { transport: current.transport, server: current.server, url: current.url, ...patch });
  return (await deps.ai.registry.updateProvider(name, patch, by)) ?? notFound(`context provider ${name}`);
}

export async function deleteProvider(deps: RegistryDeps, name: string): Promise<void> {
  await unused(deps, 'context provider', 'contextProviders', name);
  if (!(await deps.ai.registry.deleteProvider(name))) notFound(`context provider ${name}`);
}
