/**
 * The AI administration's calls: the quiz service's AI routes served by the dashboard under the
 * staff session, /api/staff/ai/… (api/ai/registry.routes.ts, chat.routes.ts; views in
 * api/ai/contracts.ts). Listing needs ai.view, changes and the usage of everyone ai.edit (the
 * section's permission: an AI editor holds both).
 */
import { segment, staffApi } from '../api';

/** AiAgent */
export interface Agent {
  name: string;
  description: string;
  systemPrompt: string;
  /** A model class (mini, advanced, previous, legacy) or a configured provider id. */
  model: string;
  temperature: number;
  tools: string[];
  contextProviders: string[];
  builtin: boolean;
}

/** AiTool: a built-in tool, or a registered HTTP tool. */
export type Tool =
  | { kind: 'builtin'; name: string; description: string; parameters: unknown }
  | { kind: 'http'; name: string; description: string; parameters: unknown; endpoint: string; timeoutMs: number };

/** AiContextProvider: `server` (stdio) or `url` (http); `refused` says why an old stdio registration never runs. */
export interface Provider {
  name: string;
  description: string;
  transport: 'stdio' | 'http';
  server?: string;
  url?: string;
  resources: string[];
  refused?: string;
}

export interface AgentBody {
  name: string;
  description: string;
  systemPrompt: string;
  model: string;
  temperature: number;
  tools: string[];
  contextProviders: string[];
}
export type AgentPatch = Partial<Omit<AgentBody, 'name'>>;

export interface ToolBody {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  endpoint: string;
  timeoutMs: number;
}
export type ToolPatch = Partial<Omit<ToolBody, 'name'>>;

export type ProviderBody =
  | { name: string; description: string; transport: 'stdio'; server: string; resources: string[] }
  | { name: string; description: string; transport: 'http'; url: string; resources: string[] };
export interface ProviderPatch {
  description?: string;
  server?: string;
  url?: string;
  resources?: string[];
}

/** ChatResult */
export interface ChatResult {
  content: string;
  toolResults: { toolName: string; arguments: unknown; result: unknown; timestamp: number }[];
  usage: { promptTokens: number; completionTokens: number; totalTokens: number };
  finishReason: string;
}

export interface UsageCounts {
  requests: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** AiUsageByUser (GET /ai/admin/usage) */
export interface UsageByUser {
  from: string;
  to: string;
  user: string | null;
  rows: (UsageCounts & { userId: string; model: string })[];
  totals: UsageCounts;
  pagination: { page: number; limit: number; total: number; totalPages: number };
}

/** AiUsage (GET /ai/usage): the caller's own, with today's budget. */
export interface OwnUsage {
  from: string;
  to: string;
  totals: UsageCounts;
  budget: { day: string; dailyTokens: number; usedTokens: number; remainingTokens: number; resetsAt: string };
}

/** Rows of the usage report a page. */
export const USAGE_PAGE_SIZE = 20;

export const aiApi = {
  registerAgent: (body: AgentBody) => staffApi.post<Agent>('/ai/agents', body),
  updateAgent: (name: string, patch: AgentPatch) => staffApi.patch<Agent>(`/ai/agents/${segment(name)}`, patch),
  deleteAgent: (name: string) => staffApi.delete<{ deleted: string }>(`/ai/agents/${segment(name)}`),
  registerTool: (body: ToolBody) => staffApi.post<unknown>('/ai/tools', body),
  updateTool: (name: string, patch: ToolPatch) => staffApi.patch<unknown>(`/ai/tools/${segment(name)}`, patch),
  deleteTool: (name: string) => staffApi.delete<{ deleted: string }>(`/ai/tools/${segment(name)}`),
  registerProvider: (body: ProviderBody) => staffApi.post<unknown>('/ai/context-providers', body),
  updateProvider: (name: string, patch: ProviderPatch) => staffApi.patch<unknown>(`/ai/context-providers/${segment(name)}`, patch),
  deleteProvider: (name: string) => staffApi.delete<{ deleted: string }>(`/ai/context-providers/${segment(name)}`),
  runAgent: (name: string, prompt: string) => staffApi.post<ChatResult>(`/ai/agent/${segment(name)}`, { prompt }),
};
