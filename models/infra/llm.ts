/**
 * The platform's one LLM client (AI chat, support fast response, quiz generation): any
 * OpenAI-compatible endpoint, configured once from OPENAI_BASE_URL / OPENAI_API_KEY.
 *
 * The SDK never retries (maxRetries 0): Temporal owns retries, so a failure is classified here
 * (retryable or not, and how long the provider asked us to wait) and the activity reports it.
 */
import OpenAI from 'openai';
import type { Config } from '../config';

export type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export interface ModelTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

export interface LlmRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  tools?: ModelTool[];
  responseFormat?: ResponseFormat;
  /** The platform user on whose behalf the call is made (sent as `user` for abuse monitoring). */
  user?: string;
}

export interface ToolCall {
  id: string;
  name: string;
  /** Raw JSON text as the model produced it (may be invalid). */
  arguments: string;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface LlmResponse {
  content: string;
  toolCalls: ToolCall[];
  usage: Usage;
  finishReason: string;
  model: string;
}

export type StreamEvent = { type: 'delta'; content: string } | { type: 'done'; response: LlmResponse };

export type LlmErrorKind = 'not_configured' | 'rate_limited' | 'unavailable' | 'timeout' | 'rejected' | 'misconfigured';

export class LlmError extends Error {
  override name = 'LlmError';
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly options: { status?: number; retryAfterMs?: number } = {},
  ) {
    super(message);
  }

  get retryable(): boolean {
    return this.kind === 'rate_limited' || this.kind === 'unavailable' || this.kind === 'timeout';
  }
}

export interface LlmClient {
  readonly configured: boolean;
  complete(req: LlmRequest, opts?: { signal?: AbortSignal }): Promise<LlmResponse>;
  stream(req: LlmRequest, opts?: { signal?: AbortSignal }): AsyncGenerator<StreamEvent>;
}

export const emptyUsage = (): Usage => ({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });

/** Retry-After in seconds or as an HTTP date, or retry-after-ms; undefined when absent. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function classifyLlmError(err: unknown): LlmError {
  if (err instanceof LlmError) return err;
  if (err instanceof OpenAI.APIConnectionTimeoutError) return new LlmError('timeout', 'AI provider did not answer in time');
  if (err instanceof OpenAI.APIUserAbortError) return new LlmError('timeout', 'AI request was cancelled');
  if (err instanceof OpenAI.APIConnectionError) return new LlmError('unavailable', 'AI provider could not be reached');
  if (err instanceof OpenAI.APIError) {
    const status = err.status ?? 0;
    const providerMessage = (err.error as { message?: string } | undefined)?.message ?? err.message;
    if (status === 429) {
      const wait = retryAfterMs(err.headers);
      return new LlmError('rate_limited', 'AI provider is rate limiting us', { status, ...(wait !== undefined ? { retryAfterMs: wait } : {}) });
    }
    if (status === 408 || status === 409 || status >= 500) return new LlmError('unavailable', `AI provider answered ${status}`, { status });
    if (status === 401 || status === 403) return new LlmError('misconfigured', `AI provider refused our credentials (${status})`, { status });
    return new LlmError('rejected', `AI provider rejected the request: ${providerMessage}`, { status });
  }
  return new LlmError('unavailable', `AI provider call failed: ${(err as Error)?.message ?? String(err)}`);
}

function toParams(req: LlmRequest): OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming {
  const params: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming = { model: req.model, messages: req.messages };
  if (req.temperature !== undefined) params.temperature = req.temperature;
  if (req.maxTokens !== undefined) params.max_tokens = req.maxTokens;
  if (req.user) params.user = req.user;
  if (req.tools?.length) {
    params.tools = req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
  }
  const rf = req.responseFormat;
  if (rf?.type === 'json_object') params.response_format = { type: 'json_object' };
  if (rf?.type === 'json_schema') {
    params.response_format = { type: 'json_schema', json_schema: { name: rf.name, schema: rf.schema, strict: rf.strict ?? true } };
  }
  return params;
}

function usageOf(u: OpenAI.Completions.CompletionUsage | undefined | null): Usage {
  return u ? { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens, totalTokens: u.total_tokens } : emptyUsage();
}

export function createLlmClient(config: Pick<Config, 'ai'>): LlmClient {
  const { apiKey, baseUrl, requestTimeoutMs } = config.ai;
  const sdk = apiKey ? new OpenAI({ apiKey, baseURL: baseUrl ?? null, maxRetries: 0, timeout: requestTimeoutMs }) : undefined;
  const requireSdk = () => {
    if (!sdk) throw new LlmError('not_configured', 'AI provider is not configured');
    return sdk;
  };

  return {
    configured: sdk !== undefined,

    async complete(req, opts = {}) {
      const client = requireSdk();
      try {
        const res = await client.chat.completions.create(toParams(req), opts.signal ? { signal: opts.signal } : {});
        const choice = res.choices[0];
        const message = choice?.message;
        return {
          content: message?.content ?? '',
          toolCalls: (message?.tool_calls ?? []).flatMap((c) =>
            c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
          ),
          usage: usageOf(res.usage),
          finishReason: choice?.finish_reason ?? 'stop',
          model: res.model,
        };
      } catch (err) {
        throw classifyLlmError(err);
      }
    },

    async *stream(req, opts = {}) {
      const client = requireSdk();
      let content = '';
      let finishReason = 'stop';
      let usage = emptyUsage();
      let model = req.model;
      try {
        const stream = await client.chat.completions.create(
          { ...toParams(req), stream: true, stream_options: { include_usage: true } },
          opts.signal ? { signal: opts.signal } : {},
        );
        for await (const chunk of stream) {
          model = chunk.model || model;
          if (chunk.usage) usage = usageOf(chunk.usage);
          const choice = chunk.choices[0];
          const delta = choice?.delta?.content;
          if (delta) {
            content += delta;
            yield { type: 'delta', content: delta };
          }
          if (choice?.finish_reason) finishReason = choice.finish_reason;
        }
      } catch (err) {
        throw classifyLlmError(err);
      }
      yield { type: 'done', response: { content, toolCalls: [], usage, finishReason, model } };
    },
  };
}
