/**
 * The registry's forms checked as the API checks them (api/ai/contracts.ts: agentBody, ToolBody,
 * ProviderBody and their patches; models/ai/agent.rules.ts), so that a mistake is told beside its
 * field, in the reader's language, before anything is sent. The API checks everything again: its
 * refusal (a 400 or a 409) is shown too. Each check answers an i18n key (and its values) per field.
 */
import { AGENT_NAME, NAME_MAX } from '../../../../models/ai/agent.rules';
import { MODEL_CLASSES } from '../../../../models/ai/model.rules';

/** models/ai/tool.rules.ts TOOL_NAME (that file also holds the tools' code, which the page does not load). */
export const TOOL_NAME = /^[a-z][a-z0-9_]{1,63}$/;
export { AGENT_NAME, MODEL_CLASSES, NAME_MAX };

export const LIMITS = {
  agentDescription: 500,
  systemPrompt: 20_000,
  agentTools: 20,
  agentProviders: 10,
  toolDescription: 1_000,
  url: 2_048,
  timeoutMin: 100,
  timeoutMax: 60_000,
  providerDescription: 500,
  resources: 50,
  prompt: 100_000,
  schemaKey: 200,
} as const;

export type Problem = { key: string; values?: Record<string, unknown> };
export type Problems<F extends string> = Partial<Record<F, Problem>>;

/** An address (the API also requires its host on the outbound allow-list, and https, and says so). */
const address = (value: string): Problem | undefined => {
  if (!value.trim()) return { key: 'errors.required' };
  if (value.length > LIMITS.url) return { key: 'errors.tooLong', values: { max: LIMITS.url } };
  try {
    const url = new URL(value.trim());
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return { key: 'errors.url' };
  } catch {
    return { key: 'errors.url' };
  }
  return undefined;
};

export interface AgentForm {
  name: string;
  description: string;
  systemPrompt: string;
  model: string;
  temperature: string;
  tools: string[];
  contextProviders: string[];
}
export type AgentField = keyof AgentForm;

export function checkAgent(f: AgentForm, o: { isNew: boolean; taken: readonly string[] }): Problems<AgentField> {
  const p: Problems<AgentField> = {};
  if (o.isNew) {
    if (!f.name) p.name = { key: 'errors.required' };
    else if (f.name.length > NAME_MAX || !AGENT_NAME.test(f.name)) p.name = { key: 'errors.agentName' };
    else if (o.taken.includes(f.name)) p.name = { key: 'errors.nameTaken' };
  }
  if (f.description.length > LIMITS.agentDescription) p.description = { key: 'errors.tooLong', values: { max: LIMITS.agentDescription } };
  if (!f.systemPrompt.trim()) p.systemPrompt = { key: 'errors.required' };
  else if (f.systemPrompt.length > LIMITS.systemPrompt) p.systemPrompt = { key: 'errors.tooLong', values: { max: LIMITS.systemPrompt } };
  const t = Number(f.temperature);
  if (f.temperature.trim() === '' || !Number.isFinite(t) || t < 0 || t > 2) p.temperature = { key: 'errors.temperature' };
  if (!f.model) p.model = { key: 'errors.required' };
  if (f.tools.length > LIMITS.agentTools) p.tools = { key: 'errors.tooMany', values: { max: LIMITS.agentTools } };
  if (f.contextProviders.length > LIMITS.agentProviders) p.contextProviders = { key: 'errors.tooMany', values: { max: LIMITS.agentProviders } };
  return p;
}

export interface ToolForm {
  name: string;
  description: string;
  parameters: string;
  endpoint: string;
  timeoutMs: string;
}
export type ToolField = keyof ToolForm;

/** The parameters' JSON Schema as written: a JSON object (keys at most 200 characters), or the problem. */
export function parseParameters(text: string): { value: Record<string, unknown> } | { problem: Problem } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: { key: 'errors.json' } };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { problem: { key: 'errors.jsonObject' } };
  if (Object.keys(value).some((k) => k.length > LIMITS.schemaKey)) return { problem: { key: 'errors.jsonKey', values: { max: LIMITS.schemaKey } } };
  if ((value as Record<string, unknown>).type !== 'object') return { problem: { key: 'errors.schemaType' } };
  return { value: value as Record<string, unknown> };
}

/** `isNew`: every field is required; otherwise an empty endpoint keeps the stored one. */
export function checkTool(f: ToolForm, o: { isNew: boolean; taken: readonly string[] }): Problems<ToolField> {
  const p: Problems<ToolField> = {};
  if (o.isNew) {
    if (!f.name) p.name = { key: 'errors.required' };
    else if (!TOOL_NAME.test(f.name)) p.name = { key: 'errors.toolName' };
    else if (o.taken.includes(f.name)) p.name = { key: 'errors.nameTaken' };
  }
  if (!f.description.trim()) p.description = { key: 'errors.required' };
  else if (f.description.length > LIMITS.toolDescription) p.description = { key: 'errors.tooLong', values: { max: LIMITS.toolDescription } };
  const params = parseParameters(f.parameters);
  if ('problem' in params) p.parameters = params.problem;
  if (o.isNew || f.endpoint.trim()) {
    const problem = address(f.endpoint);
    if (problem) p.endpoint = problem;
  }
  const ms = Number(f.timeoutMs);
  if (!Number.isInteger(ms) || ms < LIMITS.timeoutMin || ms > LIMITS.timeoutMax) p.timeoutMs = { key: 'errors.timeout', values: { min: LIMITS.timeoutMin, max: LIMITS.timeoutMax } };
  return p;
}

export interface ProviderForm {
  name: string;
  description: string;
  transport: 'stdio' | 'http';
  server: string;
  url: string;
  resources: string;
}
export type ProviderField = keyof ProviderForm;

/** The resources as written, one URI a line (blank lines left out). */
export const resourceLines = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** `isNew`: the transport's field is required; otherwise an empty URL keeps the stored one. */
export function checkProvider(f: ProviderForm, o: { isNew: boolean; taken: readonly string[] }): Problems<ProviderField> {
  const p: Problems<ProviderField> = {};
  if (o.isNew) {
    if (!f.name) p.name = { key: 'errors.required' };
    else if (f.name.length > NAME_MAX || !AGENT_NAME.test(f.name)) p.name = { key: 'errors.providerName' };
    else if (o.taken.includes(f.name)) p.name = { key: 'errors.nameTaken' };
  }
  if (f.description.length > LIMITS.providerDescription) p.description = { key: 'errors.tooLong', values: { max: LIMITS.providerDescription } };
  if (f.transport === 'stdio') {
    if (!f.server) {
      if (o.isNew) p.server = { key: 'errors.required' };
    } else if (f.server.length > NAME_MAX || !AGENT_NAME.test(f.server)) p.server = { key: 'errors.serverName' };
  } else if (o.isNew || f.url.trim()) {
    const problem = address(f.url);
    if (problem) p.url = problem;
  }
  const lines = resourceLines(f.resources);
  if (lines.length > LIMITS.resources) p.resources = { key: 'errors.tooMany', values: { max: LIMITS.resources } };
  else if (lines.some((l) => l.length > LIMITS.url)) p.resources = { key: 'errors.tooLong', values: { max: LIMITS.url } };
  return p;
}
