/**
 * Agents, tools and context providers: the built-ins (code) and the registered ones (MongoDB),
 * seen through one lookup. Built-in names cannot be registered, updated or deleted.
 */
import type { Connection, Model } from 'mongoose';
import { BUILTIN_AGENTS, isBuiltinAgent, type AgentDefinition } from './agent.rules';
import type { ContextProviderSpec } from './chat.rules';
import { BUILTIN_TOOLS, isBuiltinTool, type ToolSpec } from './tool.rules';
import { isDuplicateKey } from '../infra/mongo';
import {
  aiAgentModel,
  aiContextProviderModel,
  aiToolModel,
  type AiAgentDoc,
  type AiContextProviderDoc,
  type AiToolDoc,
} from './registry.model';

export interface RegisteredTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  endpoint: string;
  timeoutMs: number;
}

export interface RegisteredProvider {
  name: string;
  description: string;
  transport: 'stdio' | 'http';
  /** stdio: the name of a server the operator configured (AI_MCP_STDIO_PROVIDERS). */
  server?: string;
  url?: string;
  resources: string[];
}

/** A provider as listed: a stdio registration from before issue 35 (its own command) says why it never runs. */
export type ListedProvider = RegisteredProvider & { refused?: string };

export const LEGACY_STDIO_REFUSAL =
  'registered with its own command and arguments before stdio servers were named by the operator: it is never started; ' +
  'PATCH it with server (a name from AI_MCP_STDIO_PROVIDERS) or delete it';

const isLegacyStdio = (d: AiContextProviderDoc) => d.transport === 'stdio' && (d.command !== undefined || (d.args?.length ?? 0) > 0 || !d.server);

export const agentFromDoc = (d: AiAgentDoc): AgentDefinition & { builtin: false } => ({
  name: d._id,
  description: d.description,
  systemPrompt: d.systemPrompt,
  model: d.model,
  temperature: d.temperature,
  tools: d.tools,
  contextProviders: d.contextProviders,
  builtin: false,
});

export const toolFromDoc = (d: AiToolDoc): RegisteredTool => ({
  name: d._id,
  description: d.description,
  parameters: JSON.parse(d.parametersJson) as Record<string, unknown>,
  endpoint: d.endpoint,
  timeoutMs: d.timeoutMs,
});

/** The registration, never its legacy command or arguments: those are not carried anywhere. */
export const providerFromDoc = (d: AiContextProviderDoc): ListedProvider => ({
  name: d._id,
  description: d.description,
  transport: d.transport,
  ...(d.server && !isLegacyStdio(d) ? { server: d.server } : {}),
  ...(d.url ? { url: d.url } : {}),
  resources: d.resources,
  ...(isLegacyStdio(d) ? { refused: LEGACY_STDIO_REFUSAL } : {}),
});

async function upsertNew<T>(M: Model<T>, doc: Record<string, unknown>): Promise<boolean> {
  try {
    await M.create(doc as never);
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

export function createAiRegistryRepo(conn: Connection) {
  const Agents = aiAgentModel(conn);
  const Tools = aiToolModel(conn);
  const Providers = aiContextProviderModel(conn);

  return {
    // ---- agents
    async listAgents(): Promise<(AgentDefinition & { builtin: boolean })[]> {
      const registered = await Agents.find().sort({ _id: 1 }).lean<AiAgentDoc[]>();
      return [...BUILTIN_AGENTS.map((a) => ({ ...a, builtin: true })), ...registered.map(agentFromDoc)];
    },
    async findAgent(name: string): Promise<(AgentDefinition & { builtin: boolean }) | undefined> {
      const builtin = BUILTIN_AGENTS.find((a) => a.name === name);
      if (builtin) return { ...builtin, builtin: true };
      const doc = await Agents.findById(name).lean<AiAgentDoc>();
      return doc ? agentFromDoc(doc) : undefined;
    },
    /** False when the name is taken. */
    createAgent: (a: AgentDefinition, by: string) =>
      isBuiltinAgent(a.name) ? Promise.resolve(false) : upsertNew(Agents, { _id: a.name, ...omitName(a), createdBy: by, updatedBy: by }),
    async updateAgent(name: string, patch: Partial<Omit<AgentDefinition, 'name'>>, by: string) {
      const doc = await Agents.findByIdAndUpdate(name, { $set: { ...patch, updatedBy: by } }, { returnDocument: 'after' }).lean<AiAgentDoc>();
      return doc ? agentFromDoc(doc) : undefined;
    },
    deleteAgent: async (name: string) => (await Agents.deleteOne({ _id: name })).deletedCount === 1,

    // ---- tools
    listTools: async () => (await Tools.find().sort({ _id: 1 }).lean<AiToolDoc[]>()).map(toolFromDoc),
    async findTools(names: string[]): Promise<RegisteredTool[]> {
      const wanted = names.filter((n) => !isBuiltinTool(n));
      if (wanted.length === 0) return [];
      return (await Tools.find({ _id: { $in: wanted } }).lean<AiToolDoc[]>()).map(toolFromDoc);
    },
    createTool: (t: RegisteredTool, by: string) =>
      isBuiltinTool(t.name)
        ? Promise.resolve(false)
        : upsertNew(Tools, { _id: t.name, description: t.description, parametersJson: JSON.stringify(t.parameters), endpoint: t.endpoint, timeoutMs: t.timeoutMs, createdBy: by, updatedBy: by }),
    async updateTool(name: string, patch: Partial<Omit<RegisteredTool, 'name'>>, by: string) {
      const { parameters, ...rest } = patch;
      const set = { ...rest, ...(parameters ? { parametersJson: JSON.stringify(parameters) } : {}), updatedBy: by };
      const doc = await Tools.findByIdAndUpdate(name, { $set: set }, { returnDocument: 'after' }).lean<AiToolDoc>();
      return doc ? toolFromDoc(doc) : undefined;
    },
    deleteTool: async (name: string) => (await Tools.deleteOne({ _id: name })).deletedCount === 1,

    // ---- context providers
    listProviders: async () => (await Providers.find().sort({ _id: 1 }).lean<AiContextProviderDoc[]>()).map(providerFromDoc),
    async findProviders(names: string[]): Promise<ListedProvider[]> {
      if (names.length === 0) return [];
      return (await Providers.find({ _id: { $in: names } }).lean<AiContextProviderDoc[]>()).map(providerFromDoc);
    },
    createProvider: (p: RegisteredProvider, by: string) =>
      upsertNew(Providers, {
        _id: p.name,
        description: p.description,
        transport: p.transport,
        ...(p.server !== undefined ? { server: p.server } : {}),
        ...(p.url !== undefined ? { url: p.url } : {}),
        resources: p.resources,
        createdBy: by,
        updatedBy: by,
      }),
    /** A new `server` also drops a legacy command and arguments (what makes an old registration usable again). */
    async updateProvider(name: string, patch: Partial<Pick<RegisteredProvider, 'description' | 'server' | 'url' | 'resources'>>, by: string) {
      const set = { ...pick(patch, ['description', 'server', 'url', 'resources']), updatedBy: by };
      const update = patch.server !== undefined ? { $set: set, $unset: { command: 1, args: 1 } } : { $set: set };
      const doc = await Providers.findByIdAndUpdate(name, update, { returnDocument: 'after' }).lean<AiContextProviderDoc>();
      return doc ? providerFromDoc(doc) : undefined;
    },
    deleteProvider: async (name: string) => (await Providers.deleteOne({ _id: name })).deletedCount === 1,
    /** Registered agents that use a provider or tool (deleting it would break them). */
    async agentsUsing(field: 'tools' | 'contextProviders', name: string): Promise<string[]> {
      return (await Agents.find({ [field]: name }, { _id: 1 }).lean<{ _id: string }[]>()).map((d) => d._id);
    },

    /** Every tool a run may offer, by name: built-ins first, then registered ones. Unknown names are returned apart. */
    async resolveTools(names: string[]): Promise<{ specs: ToolSpec[]; unknown: string[] }> {
      const registered = await this.findTools(names);
      const specs: ToolSpec[] = [];
      const unknown: string[] = [];
      for (const name of names) {
        const builtin = BUILTIN_TOOLS.find((t) => t.name === name);
        const reg = registered.find((t) => t.name === name);
        if (builtin) specs.push({ ...builtin, kind: 'builtin' });
        else if (reg) specs.push({ name, description: reg.description, parameters: reg.parameters, kind: 'http', endpoint: reg.endpoint, timeoutMs: reg.timeoutMs });
        else unknown.push(name);
      }
      return { specs, unknown };
    },

    /** What a run reads: a stdio provider by its server's name only (a legacy one names none and is refused when read). */
    async resolveProviders(names: string[]): Promise<ContextProviderSpec[]> {
      const found = await this.findProviders(names);
      return names.flatMap((n) => {
        const p = found.find((f) => f.name === n);
        return p ? [{ name: p.name, transport: p.transport, resources: p.resources, ...(p.server ? { server: p.server } : {}), ...(p.url ? { url: p.url } : {}) }] : [];
      });
    },
  };
}

function pick<T extends object, K extends keyof T>(v: T, keys: K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((k) => v[k] !== undefined).map((k) => [k, v[k]])) as Partial<Pick<T, K>>;
}

function omitName<T extends { name: string }>(v: T): Omit<T, 'name'> {
  const { name: _name, ...rest } = v;
  return rest;
}

export type AiRegistryRepo = ReturnType<typeof createAiRegistryRepo>;
