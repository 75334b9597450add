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
  command?: string;
  args: string[];
  url?: string;
  resources: string[];
}

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

export const providerFromDoc = (d: AiContextProviderDoc): RegisteredProvider => ({
  name: d._id,
  description: d.description,
  transport: d.transport,
  ...(d.command ? { command: d.command } : {}),
  args: d.args,
  ...(d.url ? { url: d.url } : {}),
  resources: d.resources,
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
    async findProviders(names: string[]): Promise<RegisteredProvider[]> {
      if (names.length === 0) return [];
      return (await Providers.find({ _id: { $in: names } }).lean<AiContextProviderDoc[]>()).map(providerFromDoc);
    },
    createProvider: (p: RegisteredProvider, by: string) => upsertNew(Providers, { _id: p.name, ...omitName(p), createdBy: by, updatedBy: by }),
    async updateProvider(name: string, patch: Partial<Omit<RegisteredProvider, 'name'>>, by: string) {
      const doc = await Providers.findByIdAndUpdate(name, { $set: { ...patch, updatedBy: by } }, { returnDocument: 'after' }).lean<AiContextProviderDoc>();
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

    async resolveProviders(names: string[]): Promise<ContextProviderSpec[]> {
      const found = await this.findProviders(names);
      return names.flatMap((n) => {
        const p = found.find((f) => f.name === n);
        return p ? [{ name: p.name, transport: p.transport, resources: p.resources, args: p.args, ...(p.command ? { command: p.command } : {}), ...(p.url ? { url: p.url } : {}) }] : [];
      });
    },
  };
}

function omitName<T extends { name: string }>(v: T): Omit<T, 'name'> {
  const { name: _name, ...rest } = v;
  return rest;
}

export type AiRegistryRepo = ReturnType<typeof createAiRegistryRepo>;
