/**
 * One AI chat run: read the agent's context providers, then call the model; while it asks for
 * tools (at most MAX_TOOL_ITERATIONS rounds) run them and call it again. Each model call and each
 * tool call is an activity, so a crash resumes where it stopped and provider failures are retried
 * by Temporal (429 after the provider's Retry-After, 5xx and timeouts with backoff; never 4xx).
 */
import { log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createAiActivities } from '../../activities/ai.activities';
import { addUsage, NON_RETRYABLE_AI_FAILURES, type ChatRunInput, type ChatRunResult, type ToolResult } from '../../models/ai/chat.rules';
import type { ChatMessage, Usage } from '../../models/infra/llm';
import { systemWithContext } from '../../models/ai/agent.rules';

type AiActivities = ReturnType<typeof createAiActivities>;

const model = proxyActivities<AiActivities>({
  // The provider request itself times out at 60 s (AI_REQUEST_TIMEOUT_MS); this bounds the attempt.
  startToCloseTimeout: '75 seconds',
  heartbeatTimeout: '5 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '20 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: NON_RETRYABLE_AI_FAILURES,
  },
});

const tools = proxyActivities<AiActivities>({
  // A tool's own timeout is at most 60 s; failures come back to the model as tool errors.
  startToCloseTimeout: '90 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

export async function aiChatWorkflow(input: ChatRunInput): Promise<ChatRunResult> {
  const { workflowId } = workflowInfo();
  const messages: ChatMessage[] = [...input.messages];

  if (input.contextProviders.length > 0) {
    const contexts = await tools.readContextProviders(input.contextProviders);
    const first = messages[0];
    const basePrompt = first?.role === 'system' && typeof first.content === 'string' ? first.content : undefined;
    const system = systemWithContext(basePrompt, contexts);
    if (basePrompt !== undefined) messages[0] = { role: 'system', content: system ?? '' };
    else if (system) messages.unshift({ role: 'system', content: system });
  }

  const offered = input.tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
  const toolResults: ToolResult[] = [];
  let usage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

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
      usageKey: `${workflowId}:${round}`,
      userId: input.userId,
      ...(input.agent ? { agent: input.agent } : {}),
    });
    usage = addUsage(usage, reply.usage);
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
          ? tools.runTool({ spec, call: { name: call.name, arguments: call.arguments }, userId: input.userId })
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
