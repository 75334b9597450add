/**
 * Registered agents, HTTP tools and MCP context providers (ai.edit). Names are the ids. Tool
 * parameter schemas are stored as JSON text: JSON Schema keys such as `$ref` are not safe as
 * field names in every MongoDB-protocol database.
 */
import { type Connection, Schema } from 'mongoose';
import { modelOn } from '../infra/mongo';
import type { AgentDefinition } from './agent.rules';

interface Audit {
  createdBy: string;
  updatedBy: string;
  createdAt: Date;
  updatedAt: Date;
}

/** An agent's fields (agent.rules.ts AgentDefinition) under its name as the id. */
export interface AiAgentDoc extends Audit, Omit<AgentDefinition, 'name'> {
  _id: string;
}

export interface AiToolDoc extends Audit {
  _id: string;
  description: string;
  parametersJson: string;
  endpoint: string;
  timeoutMs: number;
}

export interface AiContextProviderDoc extends Audit {
  _id: string;
  description: string;
  transport: 'stdio' | 'http';
  /** stdio: the name of a server the operator configured (AI_MCP_STDIO_PROVIDERS). */
  server?: string;
  /**
   * @deprecated A stdio provider registered before issue 35 named its own command and arguments.
   * Such a registration is listed as refused and never started; PATCHing `server` replaces them.
   */
  command?: string;
  /** @deprecated See `command`. */
  args?: string[];
  url?: string;
  resources: string[];
}

const audit = { createdBy: { type: String, required: true }, updatedBy: { type: String, required: true } };
const options = { versionKey: false as const, timestamps: true };

const AgentSchema = new Schema<AiAgentDoc>(
  {
    _id: { type: String, required: true },
    description: { type: String, default: '' },
    systemPrompt: { type: String, required: true },
    model: { type: String, required: true },
    temperature: { type: Number, required: true },
    tools: { type: [String], default: [] },
    contextProviders: { type: [String], default: [] },
    ...audit,
  },
  { ...options, collection: 'ai_agents' },
);

const ToolSchema = new Schema<AiToolDoc>(
  {
    _id: { type: String, required: true },
    description: { type: String, required: true },
    parametersJson: { type: String, required: true },
    endpoint: { type: String, required: true },
    timeoutMs: { type: Number, required: true },
    ...audit,
  },
  { ...options, collection: 'ai_tools' },
);

const ProviderSchema = new Schema<AiContextProviderDoc>(
  {
    _id: { type: String, required: true },
    description: { type: String, default: '' },
    transport: { type: String, enum: ['stdio', 'http'], required: true },
    server: { type: String },
    // Read only to refuse registrations from before issue 35; nothing new is written to them.
    command: { type: String },
    args: { type: [String], default: undefined },
    url: { type: String },
    resources: { type: [String], default: [] },
    ...audit,
  },
  { ...options, collection: 'ai_context_providers' },
);

export const aiAgentModel = (conn: Connection) => modelOn(conn, 'AiAgent', AgentSchema);
export const aiToolModel = (conn: Connection) => modelOn(conn, 'AiTool', ToolSchema);
export const aiContextProviderModel = (conn: Connection) => modelOn(conn, 'AiContextProvider', ProviderSchema);
