/**
 * AI chat endpoints (quiz-ai-chat-api.md §4.3): chat (optionally streamed), chat with tools,
 * agents, the resource listing and the caller's token usage.
 */
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import type { ChatRunResult } from '../../models/ai/chat.rules';
import { compileCallerSchema } from '../../models/ai/json-schema.rules';
import { resolveModel } from '../../models/ai/model.rules';
import { BUILTIN_TOOL_NAMES } from '../../models/ai/tool.rules';
import type { Principal } from '../../models/auth/token.rules';
import { AppError } from '../../models/errors';
import { type LlmError, type ResponseFormat, classifyLlmError } from '../../models/infra/llm';
import { aiNotConfigured, aiUnavailable } from '../../models/ai/ai-failures';
import { askAgent, chatWithTools, messagesFor, requireProvider, runChat } from '../../operations/ai/chat';
import { requireBudget, usageReport } from '../../operations/ai/usage';
import { bearer } from '../shared/auth';
import { RAW, routeFactory } from '../shared/route';
import type { QuizDeps } from '../quiz/deps';
import { runOptions } from './run';
import {
  AgentNameParams,
  AgentRunBody,
  type AiLimits,
  AiResources,
  AiUsageView,
  ChatResult,
  UsageQuery,
  chatBody,
  chatWithToolsBody,
} from './contracts';
import { agentName, agentReply, aiResources, aiUsage, chatReply, chatWithToolsReply } from './examples';

const route = routeFactory<QuizDeps>();
export const AI_VIEW = 'ai.view';
export const AI_EDIT = 'ai.edit';

/** 100 requests per minute per user, counted in MongoDB (spec §8). */
export const aiRateLimit = async ({ ctx, auth, deps }: { ctx: Context; auth: Principal; deps: QuizDeps }) =>
  deps.ai.limiter.consume(ctx, `user:${auth.sub}`);

/** The reply must satisfy the requested format; a provider that ignores it is treated as failing. */
function checkFormat(content: string, format: ResponseFormat | undefined): void {
  if (!format || format.type === 'text') return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    throw new AppError('DEPENDENCY_UNAVAILABLE', 'AI provider returned a reply that is not valid JSON', { details: { dependency: 'ai-provider' } });
  }
  if (format.type === 'json_schema') {
    const validate = compileCallerSchema(format.schema);
    if (!validate(parsed)) {
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'AI provider returned a reply that does not satisfy the response schema', {
        details: { dependency: 'ai-provider', issues: validate.errors?.map((e) => `${e.instancePath || '(root)'} ${e.message}`) },
      });
    }
  }
}

function validateSchemaOrThrow(format: ResponseFormat | undefined): void {
  if (format?.type !== 'json_schema') return;
  try {
    compileCallerSchema(format.schema);
  } catch (err) {
    throw new AppError('VALIDATION_FAILED', `Invalid request: body.responseFormat.schema: ${(err as Error).message}`);
  }
}

const publicResult = (r: ChatRunResult) => ({ content: r.content, toolResults: r.toolResults, usage: r.usage, finishReason: r.finishReason });

/** Server-Sent Events straight from the provider: `delta` events, then `result` (or `error`). */
async function streamChat(
  deps: QuizDeps,
  ctx: Context,
  userId: string,
  request: Parameters<QuizDeps['ai']['llm']['stream']>[0],
  format: ResponseFormat | undefined,
): Promise<typeof RAW> {
  requireProvider(deps.ai.llm);
  await requireBudget(deps, userId);
  const abort = new AbortController();
  const events = deps.ai.llm.stream(request, { signal: abort.signal });
  // Fetch the first event before committing to 200, so an early failure is a normal JSON error.
  let first: IteratorResult<Awaited<ReturnType<typeof events.next>>['value']>;
  try {
    first = await events.next();
  } catch (err) {
    throw streamError(classifyLlmError(err));
  }
  const out = new PassThrough();
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.body = out;
  ctx.res.once('close', () => abort.abort());
  const send = (event: string, data: unknown) => out.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  void (async () => {
    try {
      for (let next = first; !next.done; next = await events.next()) {
        const ev = next.value;
        if (ev.type === 'delta') send('delta', { content: ev.content });
        else {
          checkFormat(ev.response.content, format);
          await deps.ai.usage.record(`stream:${ctx.state.requestId}`, { userId, model: ev.response.model, usage: ev.response.usage });
          send('result', { success: true, data: { content: ev.response.content, toolResults: [], usage: ev.response.usage, finishReason: ev.response.finishReason } });
        }
      }
    } catch (err) {
      const e = err instanceof AppError ? err : streamError(classifyLlmError(err));
      send('error', { success: false, error: e.message, code: e.code });
    } finally {
      out.end();
    }
  })();
  return RAW;
}

function streamError(e: LlmError): AppError {
  if (e.kind === 'rejected') return new AppError('VALIDATION_FAILED', e.message);
  if (e.kind === 'not_configured') return aiNotConfigured();
  return aiUnavailable();
}

/** Told by each route that starts a run (operations/ai/usage.ts). */
const BUDGET_NOTE =
  ' A caller whose daily token budget (AI_DAILY_TOKENS_PER_USER, shown by GET /ai/usage) is spent gets 429, with Retry-After until the next UTC midnight, and nothing runs.';

export function chatRoutes(limits: AiLimits) {
  const model = (requested: string | undefined) => {
    const resolved = resolveModel(requested, limits.models);
    if (!resolved) throw new AppError('VALIDATION_FAILED', `Unknown model: ${requested}`);
    return resolved.id;
  };

  return [
    route({
      method: 'post',
      path: '/ai/chat',
      summary: 'Chat completion',
      description:
        'One model reply to a prompt, with an optional system prompt, temperature, token limit and response format ' +
        '(text, JSON object, or a JSON schema the reply must satisfy). With `stream: true` the reply streams as Server-Sent Events. ' +
        "The schema's patterns run on a linear-time engine (RE2): one with backreferences or lookaround is refused (400)." +
        BUDGET_NOTE,
      tags: ['ai'],
      auth: bearer(AI_VIEW),
      rateLimit: aiRateLimit,
      body: chatBody(limits),
      response: ChatResult,
      alsoProduces: {
        mediaType: 'text/event-stream',
        description: 'With `stream: true`: `delta` events ({content}), then one `result` event (the JSON envelope) or an `error` event',
        // One Server-Sent Event (its `event` name and its `data` line, JSON text).
        schema: {
          type: 'object',
          required: ['event', 'data'],
          properties: { event: { enum: ['delta', 'result', 'error'] }, data: { type: 'string', contentMediaType: 'application/json' } },
        },
      },
      errors: [429, 503, 504],
      example: {
        body: {
          prompt: 'Explique em duas frases o que significa o Copom manter a Selic em 10,75% ao ano.',
          systemPrompt: 'Você é o analista de mercado da newsletter. Responda em português do Brasil, sem recomendar investimentos.',
          model: 'mini',
          temperature: 0.3,
          maxTokens: 300,
        },
        response: chatReply,
      },
      handler: async ({ body, auth, ctx, deps }) => {
        validateSchemaOrThrow(body.responseFormat);
        const request = {
          model: model(body.model),
          messages: messagesFor(body.prompt, body.systemPrompt),
          user: auth.sub,
          ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
          maxTokens: body.maxTokens ?? limits.maxTokens,
          ...(body.responseFormat ? { responseFormat: body.responseFormat } : {}),
        };
        if (body.stream) return await streamChat(deps, ctx, auth.sub, request, body.responseFormat);
        const { user: _user, ...rest } = request;
        const result = await runChat(deps, auth, { ...rest, tools: [], contextProviders: [] }, runOptions(ctx));
        checkFormat(result.content, body.responseFormat);
        return publicResult(result);
      },
    }),

    route({
      method: 'post',
      path: '/ai/chat-with-tools',
      summary: 'Chat with tools',
      description:
        'The model may call the named tools (built-in or registered); each model call and tool call runs as an activity of a ' +
        'Temporal workflow (`ai-chat-<userId>-<id>`, also returned in X-Workflow-Id). At most 5 tool rounds; after that the ' +
        'request ends with what it has and finishReason `max_tool_iterations`. `data.toolResults` lists every call.' +
        BUDGET_NOTE,
      tags: ['ai'],
      auth: bearer(AI_VIEW),
      rateLimit: aiRateLimit,
      body: chatWithToolsBody(limits),
      response: ChatResult,
      errors: [429, 503, 504],
      example: {
        body: { prompt: 'Quais matérias de hoje falam dos dividendos da Petrobras?', tools: ['get_current_date', 'search_database'], model: 'mini' },
        response: chatWithToolsReply,
      },
      handler: async ({ body, auth, ctx, deps }) =>
        publicResult(
          await chatWithTools(
            deps,
            auth,
            { model: model(body.model), prompt: body.prompt, systemPrompt: body.systemPrompt, temperature: body.temperature, maxTokens: body.maxTokens ?? limits.maxTokens, tools: body.tools },
            runOptions(ctx),
          ),
        ),
    }),

    route({
      method: 'post',
      path: '/ai/agent/:name',
      summary: 'Ask an agent',
      description: 'Runs the agent: its system prompt, model, temperature, tools and context providers (read first, 10,000 characters each at most).' + BUDGET_NOTE,
      tags: ['ai'],
      auth: bearer(AI_VIEW),
      rateLimit: aiRateLimit,
      params: AgentNameParams,
      body: AgentRunBody,
      response: ChatResult,
      errors: [404, 429, 503, 504],
      example: { params: { name: agentName }, body: { prompt: 'Como a PETR4 está reagindo hoje ao anúncio de dividendos?' }, response: agentReply },
      handler: async ({ params, body, auth, ctx, deps }) =>
        publicResult(await askAgent(deps, auth, { name: params.name, prompt: body.prompt, models: limits.models, maxTokens: limits.maxTokens }, runOptions(ctx))),
    }),

    route({
      method: 'get',
      path: '/ai/resources',
      summary: 'Agents and tools available',
      tags: ['ai'],
      auth: bearer(AI_VIEW),
      rateLimit: aiRateLimit,
      response: AiResources,
      example: { response: aiResources },
      handler: async ({ deps }) => {
        const [agents, tools] = await Promise.all([deps.ai.registry.listAgents(), deps.ai.registry.listTools()]);
        return { agents: agents.map((a) => a.name), tools: [...BUILTIN_TOOL_NAMES, ...tools.map((t) => t.name)] };
      },
    }),

    route({
      method: 'get',
      path: '/ai/usage',
      summary: "The caller's token usage per day, and today's budget",
      description:
        'Per UTC day, between `from` and `to` (default: the last 30 days), with totals; and `budget`, the caller\'s daily token ' +
        'budget (AI_DAILY_TOKENS_PER_USER) for today (UTC): used, remaining, and when it renews.',
      tags: ['ai'],
      auth: bearer(AI_VIEW),
      rateLimit: aiRateLimit,
      query: UsageQuery,
      response: AiUsageView,
      example: { query: { from: '2026-11-23', to: '2026-11-24' }, response: aiUsage },
      handler: async ({ query, auth, deps }) => await usageReport(deps, auth.sub, query),
    }),
  ];
}
