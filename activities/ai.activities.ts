/**
 * Activities of the AI chat workflow: one model call, one tool call, reading context providers.
 * Provider failures become ApplicationFailures whose type says whether Temporal may retry:
 * 429 waits the provider's Retry-After (nextRetryDelay), 5xx and timeouts back off, 4xx never retry.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Connection } from 'mongoose';
import { capContext } from '../models/ai/agent.rules';
import { AI_FAILURES, type ContextProviderSpec } from '../models/ai/chat.rules';
import {
  calculatePrice,
  checkArguments,
  currentDate,
  formatJson,
  ticketScope,
  ticketScopeFilter,
  type SearchSource,
  type ToolCaller,
  type ToolSpec,
} from '../models/ai/tool.rules';
import { createAiUsageRepo } from '../models/ai/usage.repo';
import type { LlmClient, LlmError, LlmRequest, LlmResponse, Usage } from '../models/infra/llm';
import { classifyLlmError } from '../models/infra/llm';
import { readMcpContext, type StdioServers } from '../models/infra/mcp';
import { type Outbound, readCapped } from '../models/infra/outbound';
import type { Plan } from '../models/shared/plan.rules';
import type { AiActivities } from '../workflows/ai/activities';

export interface AiActivityDeps {
  conn: Connection;
  llm: LlmClient;
  outbound: Outbound;
  /** The stdio MCP servers the operator configured (AI_MCP_STDIO_PROVIDERS): the only programs providers start. */
  mcpStdioProviders: StdioServers;
}

const TOOL_RESPONSE_MAX_BYTES = 100_000;
const MCP_TIMEOUT_MS = 20_000;

/** Read-only, allow-listed search: which collection, which fields are matched and returned. */
const SEARCHABLE: Record<SearchSource, { collection: string; match: string[]; project: Record<string, 1> }> = {
  articles: {
    collection: 'articles',
    match: ['title', 'subtitle', 'summary'],
    project: { title: 1, subtitle: 1, summary: 1, primarySector: 1, sourceName: 1, publishedAt: 1 },
  },
  // Requester e-mails and free-text descriptions stay out of the model's reach.
  tickets: {
    collection: 'tickets',
    match: ['main', 'issue'],
    project: { main: 1, issue: 1, status: 1, newsletter: 1, createdAt: 1 },
  },
};

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function toApplicationFailure(err: LlmError): ApplicationFailure {
  switch (err.kind) {
    case 'not_configured':
      return ApplicationFailure.create({ message: err.message, type: AI_FAILURES.notConfigured, nonRetryable: true });
    case 'misconfigured':
      return ApplicationFailure.create({ message: err.message, type: AI_FAILURES.misconfigured, nonRetryable: true });
    case 'rejected':
      return ApplicationFailure.create({ message: err.message, type: AI_FAILURES.rejected, nonRetryable: true, details: [{ status: err.options.status }] });
    case 'rate_limited':
      return ApplicationFailure.create({
        message: err.message,
        type: AI_FAILURES.rateLimited,
        ...(err.options.retryAfterMs !== undefined ? { nextRetryDelay: Math.max(err.options.retryAfterMs, 100) } : {}),
      });
    default:
      return ApplicationFailure.create({ message: err.message, type: AI_FAILURES.unavailable });
  }
}

export function createAiActivities(deps: AiActivityDeps): AiActivities {
  const usage = createAiUsageRepo(deps.conn);

  /**
   * Articles are everyone's; tickets are read within the caller's scope (ticketScope): every
   * requester's for a support agent, else the caller's own; none without a caller or an e-mail.
   */
  async function searchDatabase(args: { source: SearchSource; query: string; limit?: number }, caller: ToolCaller | undefined) {
    const target = SEARCHABLE[args.source];
    const scope = args.source === 'tickets' ? ticketScope(caller) : undefined;
    const scoped = scope ? ticketScopeFilter(scope) : {};
    const scopeNote = scope ? { scope: scope.kind } : {};
    if (!scoped) {
      return { source: args.source, ...scopeNote, count: 0, items: [], note: 'tickets are visible only to their requester (by e-mail) and to support agents' };
    }
    const pattern = new RegExp(escapeRegex(args.query.trim()), 'i');
    const docs = await deps.conn.db!
      .collection(target.collection)
      .find({ ...scoped, $or: target.match.map((f) => ({ [f]: pattern })) }, { projection: target.project })
      .limit(args.limit ?? 10)
      .toArray();
    return { source: args.source, ...scopeNote, count: docs.length, items: docs.map(({ _id, ...rest }) => ({ id: String(_id), ...rest })) };
  }

  async function runBuiltin(name: string, args: Record<string, unknown>, caller: ToolCaller | undefined): Promise<unknown> {
    switch (name) {
      case 'get_current_date':
        return currentDate();
      case 'format_json':
        return formatJson(args as { json: string; indent?: number });
      case 'calculate_price':
        return calculatePrice(args as { plan: Plan; quantity: number; billingPeriod: 'monthly' | 'yearly' });
      case 'search_database':
        return await searchDatabase(args as { source: SearchSource; query: string; limit?: number }, caller);
      default:
        return { error: `unknown built-in tool: ${name}` };
    }
  }

  async function runHttp(spec: Extract<ToolSpec, { kind: 'http' }>, args: Record<string, unknown>): Promise<unknown> {
    let res: Response;
    try {
      res = await deps.outbound.fetch(spec.endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(args),
        signal: AbortSignal.timeout(spec.timeoutMs),
      });
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
      return { error: timedOut ? `tool did not answer within ${spec.timeoutMs} ms` : `tool endpoint could not be reached` };
    }
    let text: string;
    try {
      text = await readCapped(res, TOOL_RESPONSE_MAX_BYTES);
    } catch (err) {
      return { error: (err as Error).message };
    }
    if (!res.ok) return { error: `tool endpoint answered ${res.status}`, ...(text ? { body: text.slice(0, 500) } : {}) };
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return { text };
    }
  }

  return {
    async callModel(input: { request: LlmRequest }): Promise<LlmResponse> {
      // Heartbeats let Temporal notice a dead worker within the heartbeat timeout (not the 75 s
      // attempt timeout), and carry cancellation: a cancelled run aborts the provider call.
      const ctx = Context.current();
      const beat = ctx.info.isLocal ? undefined : setInterval(() => ctx.heartbeat(), 1_000);
      let reply: LlmResponse;
      try {
        reply = await deps.llm.complete(input.request, { signal: ctx.cancellationSignal });
      } catch (err) {
        throw toApplicationFailure(classifyLlmError(err));
      } finally {
        clearInterval(beat);
      }
      return reply;
    },

    /** One usage record per chat run, keyed by the workflow id (a retry writes nothing twice). */
    async recordUsage(input: { key: string; userId: string; model: string; agent?: string; usage: Usage; modelCalls: number }): Promise<void> {
      await usage.record(input.key, { userId: input.userId, model: input.model, agent: input.agent, usage: input.usage, modelCalls: input.modelCalls });
    },

    /**
     * Never throws for a bad call: the model gets `{error}` and may try again. Built-ins read only
     * what `caller` may (absent in runs from before it was carried: the narrowest scope).
     */
    async runTool(input: {
      spec: ToolSpec;
      call: { name: string; arguments: string };
      userId: string;
      caller?: ToolCaller;
    }): Promise<{ arguments: Record<string, unknown> | string; result: unknown; timestamp: number }> {
      const checked = checkArguments(input.spec, input.call.arguments);
      if (!checked.ok) return { arguments: input.call.arguments, result: { error: checked.error }, timestamp: Date.now() };
      const result = input.spec.kind === 'builtin' ? await runBuiltin(input.spec.name, checked.value, input.caller) : await runHttp(input.spec, checked.value);
      return { arguments: checked.value, result, timestamp: Date.now() };
    },

    /**
     * A provider that fails contributes a note instead of its context; the chat goes on. A stdio
     * provider starts its configured server only: one carrying a command (a run or registration
     * from before issue 35) is refused with a note, never started.
     */
    async readContextProviders(specs: ContextProviderSpec[]): Promise<{ provider: string; text: string; truncated: boolean }[]> {
      return await Promise.all(
        specs.map(async (spec) => {
          try {
            const text = await readMcpContext(spec, { outbound: deps.outbound, stdioServers: deps.mcpStdioProviders, timeoutMs: MCP_TIMEOUT_MS });
            return { provider: spec.name, ...capContext(text) };
          } catch (err) {
            return { provider: spec.name, text: `[context provider unavailable: ${(err as Error).message}]`, truncated: false };
          }
        }),
      );
    },
  };
}
