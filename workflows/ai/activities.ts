/** The activities the AI chat workflow calls (activities/ai.activities.ts). */
import type { LlmRequest, LlmResponse, Usage } from '../../models/infra/llm';
import type { ContextProviderSpec } from '../../models/ai/chat.rules';
import type { ToolCaller, ToolSpec } from '../../models/ai/tool.rules';

export interface AiActivities {
  callModel(input: { request: LlmRequest }): Promise<LlmResponse>;
  recordUsage(input: { key: string; userId: string; model: string; agent?: string | undefined; usage: Usage; modelCalls: number }): Promise<void>;
  runTool(input: { spec: ToolSpec; call: { name: string; arguments: string }; userId: string; caller?: ToolCaller | undefined }): Promise<{ arguments: string | Record<string, unknown>; result: unknown; timestamp: number }>;
  readContextProviders(specs: ContextProviderSpec[]): Promise<{ provider: string; text: string; truncated: boolean }[]>;
}
