/**
 * aiChatWorkflow on the time-skipping test server with its activities mocked (no provider, no
 * database): the tool-calling loop, its limit, context providers, usage recording, the retry
 * policy of model calls (4xx never, 429 after Retry-After, 5xx with backoff) and cancellation.
 */
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ActivityFailure, ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { AI_FAILURES, type ChatRunInput, type ContextProviderSpec } from '../../models/ai/chat.rules';
import type { ToolSpec } from '../../models/ai/tool.rules';
import type { ChatMessage, LlmRequest, LlmResponse, ToolCall, Usage } from '../../models/infra/llm';
import { aiChatWorkflow } from '../../workflows/ai/chat.workflow';
import { workflowIds } from '../../workflows/ids';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const suite = workflowSuite();

const dateTool: ToolSpec = { kind: 'builtin', name: 'get_current_date', description: 'Current date', parameters: { type: 'object', properties: {} } };
const weatherTool: ToolSpec = {
  kind: 'http',
  name: 'weather',
  description: 'Weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  endpoint: 'https://tools.example/weather',
  timeoutMs: 5_000,
};

const usage = (n: number): Usage => ({ promptTokens: n, completionTokens: 2 * n, totalTokens: 3 * n });
const answer = (content: string, n = 10): LlmResponse => ({ content, toolCalls: [], usage: usage(n), finishReason: 'stop', model: 'gpt-test-2026' });
const asks = (toolCalls: ToolCall[], n = 10): LlmResponse => ({ content: '', toolCalls, usage: usage(n), finishReason: 'tool_calls', model: 'gpt-test-2026' });

type ToolRun = { spec: ToolSpec; call: { name: string; arguments: string }; userId: string };
type UsageRecord = { key: string; userId: string; model: string; agent?: string; usage: Usage; modelCalls: number };

/** Mocks of the AI activities; `replies` answers model calls in turn (a function may throw). */
function activities(replies: (LlmResponse | ((req: LlmRequest) => Promise<LlmResponse>))[]) {
  const requests: LlmRequest[] = [];
  const local: Record<string, boolean> = {};
  return {
    requests,
    /** Whether each tool ran as a local activity, by tool name. */
    local,
    callModel: jest.fn(async ({ request }: { request: LlmRequest }): Promise<LlmResponse> => {
      requests.push(request);
      const next = replies[Math.min(requests.length - 1, replies.length - 1)]!;
      return typeof next === 'function' ? await next(request) : next;
    }),
    runTool: jest.fn(async ({ spec, call }: ToolRun) => {
      local[spec.name] = Context.current().info.isLocal;
      const args = JSON.parse(call.arguments) as Record<string, unknown>;
      return { arguments: args, result: spec.name === 'weather' ? { city: args.city, celsius: 31 } : { date: '2026-11-24' }, timestamp: 1_764_000_000_000 };
    }),
    recordUsage: jest.fn(async (_input: UsageRecord) => undefined),
    readContextProviders: jest.fn(async (specs: ContextProviderSpec[]) => specs.map((s) => ({ provider: s.name, text: `facts from ${s.name}`, truncated: false }))),
  };
}

function input(overrides: Partial<ChatRunInput> = {}): ChatRunInput {
  return {
    userId: 'user-1',
    requestId: randomUUID(),
    model: 'gpt-test',
    messages: [{ role: 'user', content: 'What day is it?' }],
    tools: [],
    contextProviders: [],
    maxToolIterations: 5,
    ...overrides,
  };
}

async function chat(acts: ReturnType<typeof activities>, args: ChatRunInput) {
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const workflowId = workflowIds.aiChat(args.userId, args.requestId);
  const outcome = await run(() => suite.client.execute(aiChatWorkflow, { taskQueue, workflowId, args: [args] }).catch((err: unknown) => err));
  return { outcome, workflowId };
}

/** The ApplicationFailure a failed run ends with (a local activity's comes unwrapped; the API unwraps either). */
function failureOf(outcome: unknown): ApplicationFailure {
  expect(outcome).toBeInstanceOf(WorkflowFailedError);
  let cause = (outcome as WorkflowFailedError).cause;
  while (cause instanceof ActivityFailure) cause = cause.cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

it('a reply without tool calls ends the run after one model call, with the request as asked and its usage recorded', async () => {
  const acts = activities([answer('It is Tuesday.', 7)]);
  const args = input({ temperature: 0.2, maxTokens: 300, responseFormat: { type: 'json_object' } as ChatRunInput['responseFormat'] });
  const { outcome, workflowId } = await chat(acts, args);

  expect(outcome).toEqual({ content: 'It is Tuesday.', toolResults: [], usage: usage(7), finishReason: 'stop', model: 'gpt-test-2026', modelCalls: 1 });
  expect(acts.requests).toEqual([{ model: 'gpt-test', messages: args.messages, user: 'user-1', temperature: 0.2, maxTokens: 300, responseFormat: { type: 'json_object' } }]);
  expect(acts.runTool).not.toHaveBeenCalled();
  expect(acts.readContextProviders).not.toHaveBeenCalled();
  expect(acts.recordUsage.mock.calls).toEqual([[{ key: workflowId, userId: 'user-1', model: 'gpt-test-2026', usage: usage(7), modelCalls: 1 }]]);
});

it('runs the tools the model asks for (built-ins locally, registered HTTP tools as activities) and gives their results back', async () => {
  const acts = activities([
    asks([
      { id: 'call-1', name: 'get_current_date', arguments: '{}' },
      { id: 'call-2', name: 'weather', arguments: '{"city":"Recife"}' },
    ], 5),
    answer('Tuesday, 31 °C in Recife.', 20),
  ]);
  const args = input({ tools: [dateTool, weatherTool], agent: 'travel-helper' });
  const { outcome, workflowId } = await chat(acts, args);

  expect(outcome).toEqual({
    content: 'Tuesday, 31 °C in Recife.',
    toolResults: [
      { toolName: 'get_current_date', arguments: {}, result: { date: '2026-11-24' }, timestamp: 1_764_000_000_000 },
      { toolName: 'weather', arguments: { city: 'Recife' }, result: { city: 'Recife', celsius: 31 }, timestamp: 1_764_000_000_000 },
    ],
    usage: usage(25),
    finishReason: 'stop',
    model: 'gpt-test-2026',
    modelCalls: 2,
  });
  expect(acts.local).toEqual({ get_current_date: true, weather: false });
  expect(acts.runTool.mock.calls.map(([r]) => [r.spec.name, r.call, r.userId])).toEqual([
    ['get_current_date', { name: 'get_current_date', arguments: '{}' }, 'user-1'],
    ['weather', { name: 'weather', arguments: '{"city":"Recife"}' }, 'user-1'],
  ]);
  // The model is offered the tools' definitions only (never an endpoint), both times.
  for (const req of acts.requests) expect(req.tools).toEqual([dateTool, weatherTool].map(({ name, description, parameters }) => ({ name, description, parameters })));
  expect(acts.requests[1]!.messages.slice(1)).toEqual([
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call-1', type: 'function', function: { name: 'get_current_date', arguments: '{}' } },
        { id: 'call-2', type: 'function', function: { name: 'weather', arguments: '{"city":"Recife"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call-1', content: '{"date":"2026-11-24"}' },
    { role: 'tool', tool_call_id: 'call-2', content: '{"city":"Recife","celsius":31}' },
  ] satisfies ChatMessage[]);
  expect(acts.recordUsage.mock.calls).toEqual([[{ key: workflowId, userId: 'user-1', model: 'gpt-test-2026', usage: usage(25), modelCalls: 2, agent: 'travel-helper' }]]);
});

it('a call of a tool that was not offered runs nothing and tells the model the tool is unknown', async () => {
  const acts = activities([asks([{ id: 'c1', name: 'drop_tables', arguments: '{}' }]), answer('Sorry.')]);
  const { outcome } = await chat(acts, input({ tools: [dateTool] }));

  expect(acts.runTool).not.toHaveBeenCalled();
  expect(acts.requests[1]!.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: '{"error":"unknown tool: drop_tables"}' });
  expect(outcome).toMatchObject({ content: 'Sorry.', modelCalls: 2, toolResults: [{ toolName: 'drop_tables', arguments: '{}', result: { error: 'unknown tool: drop_tables' } }] });
});

it('stops at maxToolIterations tool rounds with finishReason max_tool_iterations', async () => {
  const acts = activities([asks([{ id: 'again', name: 'get_current_date', arguments: '{}' }], 1)]);
  const { outcome, workflowId } = await chat(acts, input({ tools: [dateTool], maxToolIterations: 2 }));

  expect(acts.callModel).toHaveBeenCalledTimes(3);
  expect(acts.runTool).toHaveBeenCalledTimes(2);
  expect(outcome).toMatchObject({ finishReason: 'max_tool_iterations', modelCalls: 3, usage: usage(3) });
  expect((outcome as { toolResults: unknown[] }).toolResults).toHaveLength(2);
  expect(acts.recordUsage.mock.calls).toEqual([[{ key: workflowId, userId: 'user-1', model: 'gpt-test-2026', usage: usage(3), modelCalls: 3 }]]);
});

it('tool calls are ignored when no tool was offered: the first reply is the answer', async () => {
  const acts = activities([{ ...asks([{ id: 'c1', name: 'get_current_date', arguments: '{}' }]), content: 'Probably Tuesday.' }]);
  const { outcome } = await chat(acts, input());

  expect(acts.requests[0]).not.toHaveProperty('tools');
  expect(acts.runTool).not.toHaveBeenCalled();
  expect(outcome).toMatchObject({ content: 'Probably Tuesday.', finishReason: 'tool_calls', modelCalls: 1, toolResults: [] });
});

it('context providers are read once and added to the existing system prompt', async () => {
  const acts = activities([answer('ok')]);
  const providers: ContextProviderSpec[] = [{ name: 'docs', transport: 'http', url: 'https://mcp.example/docs', resources: [] }];
  await chat(acts, input({ contextProviders: providers, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] }));

  expect(acts.readContextProviders.mock.calls).toEqual([[providers]]);
  const [system, user] = acts.requests[0]!.messages;
  expect(system).toEqual({ role: 'system', content: expect.stringContaining('Be brief.') });
  expect(system!.content).toContain('<context provider="docs">\nfacts from docs\n</context>');
  expect(user).toEqual({ role: 'user', content: 'Hi' });
});

it('context providers without a system prompt become one, put first', async () => {
  const acts = activities([answer('ok')]);
  await chat(acts, input({ contextProviders: [{ name: 'kb', transport: 'stdio', command: 'kb-server', resources: ['kb://faq'] }] }));

  const messages = acts.requests[0]!.messages;
  expect(messages).toHaveLength(2);
  expect(messages[0]).toEqual({ role: 'system', content: expect.stringContaining('<context provider="kb">\nfacts from kb\n</context>') });
  expect(messages[1]).toEqual({ role: 'user', content: 'What day is it?' });
});

it('a model call the provider rejects (4xx) is not retried: the run fails with its type and records no usage', async () => {
  const acts = activities([
    async () => {
      // Not marked non-retryable: the workflow's retry policy is what stops it.
      throw ApplicationFailure.create({ type: AI_FAILURES.rejected, message: 'invalid model' });
    },
  ]);
  const { outcome } = await chat(acts, input());

  expect(failureOf(outcome).type).toBe(AI_FAILURES.rejected);
  expect(acts.callModel).toHaveBeenCalledTimes(1);
  expect(acts.recordUsage).not.toHaveBeenCalled();
});

it('a run that fails after a tool round still records the tokens spent', async () => {
  const acts = activities([
    asks([{ id: 'c1', name: 'get_current_date', arguments: '{}' }], 4),
    async () => {
      throw ApplicationFailure.create({ type: AI_FAILURES.misconfigured, message: 'bad key', nonRetryable: true });
    },
  ]);
  const { outcome, workflowId } = await chat(acts, input({ tools: [dateTool] }));

  expect(failureOf(outcome).type).toBe(AI_FAILURES.misconfigured);
  expect(acts.callModel).toHaveBeenCalledTimes(2);
  expect(acts.recordUsage.mock.calls).toEqual([[{ key: workflowId, userId: 'user-1', model: 'gpt-test-2026', usage: usage(4), modelCalls: 1 }]]);
});

// A local activity's backoff shorter than a minute is waited out in the worker (the 1 s here is real).
it('a provider outage (5xx) is retried and the run goes on', async () => {
  let failures = 0;
  const acts = activities([
    async () => {
      if (failures++ === 0) throw ApplicationFailure.create({ type: AI_FAILURES.unavailable, message: 'provider answered 503' });
      return answer('back');
    },
  ]);
  const { outcome } = await chat(acts, input());

  expect(acts.callModel).toHaveBeenCalledTimes(2);
  expect(outcome).toMatchObject({ content: 'back', modelCalls: 1 });
});

it('a rate-limited model call waits the provider\'s Retry-After (a durable timer), then succeeds', async () => {
  let attempts = 0;
  const times: number[] = [];
  const acts = activities([
    async () => {
      times.push(await suite.env.currentTimeMs());
      if (attempts++ === 0) throw ApplicationFailure.create({ type: AI_FAILURES.rateLimited, message: '429', nextRetryDelay: '3 minutes' });
      return answer('after the wait');
    },
  ]);
  const { outcome } = await chat(acts, input());

  expect(outcome).toMatchObject({ content: 'after the wait' });
  expect(times).toHaveLength(2);
  expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(3 * 60_000);
});

it('a model call still rate-limited after 5 attempts fails the run', async () => {
  const acts = activities([
    async () => {
      throw ApplicationFailure.create({ type: AI_FAILURES.rateLimited, message: 'still 429', nextRetryDelay: '2 minutes' });
    },
  ]);
  const { outcome } = await chat(acts, input());

  expect(failureOf(outcome).type).toBe(AI_FAILURES.rateLimited);
  expect(acts.callModel).toHaveBeenCalledTimes(5);
  expect(acts.recordUsage).not.toHaveBeenCalled();
});

it('cancelling a run during a model call cancels the call and still records the usage of the calls made', async () => {
  let inSecondCall!: () => void;
  const secondCall = new Promise<void>((resolve) => (inSecondCall = resolve));
  let callAborted = false;
  const acts = activities([
    asks([{ id: 'c1', name: 'get_current_date', arguments: '{}' }], 6),
    async () => {
      inSecondCall();
      try {
        await Context.current().cancelled; // rejects when the run is cancelled
      } catch (err) {
        callAborted = err instanceof CancelledFailure;
        throw err;
      }
      return answer('never');
    },
  ]);
  const args = input({ tools: [dateTool] });
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const workflowId = workflowIds.aiChat(args.userId, args.requestId);
  const outcome = await run(async () => {
    // While a local activity runs, the worker holds the workflow task and sees the cancellation at
    // its next heartbeat, 80% of the workflow task timeout (8 s by default): shortened here.
    const handle = await suite.client.start(aiChatWorkflow, { taskQueue, workflowId, args: [args], workflowTaskTimeout: '2 seconds' });
    await secondCall;
    await handle.cancel();
    return await handle.result().catch((err: unknown) => err);
  });

  expect(outcome).toBeInstanceOf(WorkflowFailedError);
  expect((outcome as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect(acts.callModel).toHaveBeenCalledTimes(2);
  expect(callAborted).toBe(true); // the provider request is aborted, not left running
  expect(acts.recordUsage.mock.calls).toEqual([[{ key: workflowId, userId: 'user-1', model: 'gpt-test-2026', usage: usage(6), modelCalls: 1 }]]);
});
