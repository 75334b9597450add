/**
 * One AI chat run: read the agent's context providers, then call the model; while it asks for
 * tools (at most MAX_TOOL_ITERATIONS rounds) run them and call it again. Each model call and each
 * tool call is an activity, so a crash resumes where it stopped and provider failures are retried
 * by Temporal (429 after the provider's Retry-After, 5xx and timeouts with backoff; never 4xx).
 */
import { CancellationScope, log, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { AiActivities } from './activities';
import { addUsage, NON_RETRYABLE_AI_FAILURES, type ChatRunInput, type ChatRunResult, type ToolResult } from '../../models/ai/chat.rules';
import type { ChatMessage, Usage } from '../../models/infra/llm';
import { systemWithContext } from '../../models/ai/agent.rules';
import { RETRY, withNonRetryable } from '../retry-policies';


// Model calls and built-in tools are local activities: they run in the worker that runs the
// workflow, so a tool round costs no task-queue round trips (docs/benchmarks.md: 186 → 22 ms per
// round). They keep activity semantics: a retry policy (429 waits Retry-After, 5xx and timeouts back
// off, 4xx never), cancellation, results recorded in history. A worker that dies mid-run loses the
// workflow task in progress; another worker takes it over after the workflow task timeout and
// re-runs the calls not yet recorded, which is harmless for them (model calls and built-in tools
// have no side effects). Registered HTTP tools may have side effects: ordinary activities, so a
// completed call is never repeated.
const model = proxyLocalActivities<AiActivities>({
  // The provider request itself times out at 60 s (AI_REQUEST_TIMEOUT_MS); this bounds the attempt.
  startToCloseTimeout: '75 seconds',
  retry: withNonRetryable(RETRY.modelCall, NON_RETRYABLE_AI_FAILURES),
});

const tools = proxyLocalActivities<AiActivities>({
  startToCloseTimeout: '30 seconds',
  retry: RETRY.few,
});

const httpTools = proxyActivities<AiActivities>({
  // A registered tool's own timeout is at most 60 s; failures come back to the model as tool errors.
  startToCloseTimeout: '90 seconds',
  retry: RETRY.few,
});

// Reading MCP servers may take seconds (a stdio server starts): an ordinary activity, once per run.
const context = proxyActivities<AiActivities>({
  startToCloseTimeout: '60 seconds',
  retry: RETRY.few,
});

export async function aiChatWorkflow(input: ChatRunInput): Promise<ChatRunResult> {
  const { workflowId } = workflowInfo();
  const messages: ChatMessage[] = [...input.messages];

  if (input.contextProviders.length > 0) {
    const contexts = await context.readContextProviders(input.contextProviders);
    const first = messages[0];
    const basePrompt = first?.role === 'system' && typeof first.content === 'string' ? first.content : undefined;
    const system = systemWithContext(basePrompt, contexts);
    if (basePrompt !== undefined) messages[0] = { role: 'system', content: system ?? '' };
    else if (system) messages.unshift({ role: 'system', content: system });
  }

  const offered = input.tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
  const toolResults: ToolResult[] = [];
  let usage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  let modelCalls = 0;
  let lastModel = input.model;

  try {
    return await loop();
  } finally {
    // Tokens spent count even when the run fails or is cancelled part-way.
    if (modelCalls > 0) {
      await CancellationScope.nonCancellable(() =>
        tools.recordUsage({ key: workflowId, userId: input.userId, model: lastModel, usage, modelCalls, ...(input.agent ? { agent: input.agent } : {}) }),
      );
    }
  }

  async function loop(): Promise<ChatRunResult> {
    for (let round = 0; ; round += 1) {
      const reply = await model.callModel({
        request: {
          model: input.model,
          messages,
          user: input.userId,
          ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
          ...(input.maxTokens !== undefined ? { maxTokens: input.maxTokens } : {}),
          ...(input.responseFormat ? { responseFormat: input.responseFormat } : {}),
          ...(offered.length ? { tools: offered } : {}),
        },
      });
      usage = addUsage(usage, reply.usage);
      modelCalls += 1;
      lastModel = reply.model;
      const done = (finishReason: string): ChatRunResult => ({
        content: reply.content,
        toolResults,
        usage,
        finishReason,
        model: reply.model,
        modelCalls: round + 1,
      });

      if (reply.toolCalls.length === 0 || offered.length === 0) return done(reply.finishReason);
      if (round >= input.maxToolIterations) {
        log.warn('tool iteration limit reached', { rounds: round, limit: input.maxToolIterations });
        return done('max_tool_iterations');
      }

      messages.push({
        role: 'assistant',
        content: reply.content || null,
        tool_calls: reply.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      });
      const outcomes = await Promise.all(
        reply.toolCalls.map((call) => {
          const spec = input.tools.find((t) => t.name === call.name);
          return spec
            ? (spec.kind === 'http' ? httpTools : tools).runTool({
                spec,
                call: { name: call.name, arguments: call.arguments },
                userId: input.userId,
                // Tools read only what the caller may; a run from before this was carried has none (the narrowest scope).
                ...(input.caller ? { caller: input.caller } : {}),
              })
            : Promise.resolve({ arguments: call.arguments, result: { error: `unknown tool: ${call.name}` }, timestamp: Date.now() });
        }),
      );
      reply.toolCalls.forEach((call, i) => {
        const outcome = outcomes[i]!;
        toolResults.push({ toolName: call.name, arguments: outcome.arguments, result: outcome.result, timestamp: outcome.timestamp });
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(outcome.result) });
      });
    }
  }
}
