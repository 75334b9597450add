/** Shapes shared by the AI routes, the chat workflow and its activities (pure). */
import type { ChatMessage, ResponseFormat, Usage } from '../infra/llm';
import type { ToolCaller, ToolSpec } from './tool.rules';

export const MAX_TOOL_ITERATIONS = 5;

export interface ContextProviderSpec {
  name: string;
  transport: 'stdio' | 'http';
  /** stdio: the name of a server the operator configured (AI_MCP_STDIO_PROVIDERS); its command line comes from there. */
  server?: string;
  /**
   * @deprecated Runs started before issue 35 carried a stdio provider's command and arguments
   * (chosen through the API). Kept so their histories replay; such a provider is refused, never started.
   */
  command?: string;
  /** @deprecated See `command`. */
  args?: string[];
  url?: string;
  /** Resource URIs to read; every listed resource when empty. */
  resources: string[];
}

export interface ChatRunInput {
  userId: string;
  requestId: string;
  /** Provider model id (already resolved from the class). */
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  responseFormat?: ResponseFormat;
  tools: ToolSpec[];
  contextProviders: ContextProviderSpec[];
  maxToolIterations: number;
  /** Agent name, when the run is an agent's (for the Temporal UI and usage). */
  agent?: string;
  /**
   * The caller's e-mail and permissions: tools read only what the caller may (search_database's
   * tickets). Absent from runs started before it was carried: those get the narrowest scope.
   */
  caller?: ToolCaller;
}

export interface ToolResult {
  toolName: string;
  arguments: Record<string, unknown> | string;
  result: unknown;
  /** Epoch milliseconds when the tool finished. */
  timestamp: number;
}

export interface ChatRunResult {
  content: string;
  toolResults: ToolResult[];
  usage: Usage;
  finishReason: string;
  model: string;
  /** Model calls made (1 + tool rounds). */
  modelCalls: number;
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/** Failure types of AI activities (ApplicationFailure.type), mapped to HTTP by the API. */
export const AI_FAILURES = {
  notConfigured: 'AI_PROVIDER_NOT_CONFIGURED',
  misconfigured: 'AI_PROVIDER_MISCONFIGURED',
  rejected: 'AI_PROVIDER_REJECTED',
  rateLimited: 'AI_PROVIDER_RATE_LIMITED',
  unavailable: 'AI_PROVIDER_UNAVAILABLE',
} as const;

export const NON_RETRYABLE_AI_FAILURES = [AI_FAILURES.notConfigured, AI_FAILURES.misconfigured, AI_FAILURES.rejected];
