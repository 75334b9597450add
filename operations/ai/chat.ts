/**
 * AI chat, the use cases (quiz-ai-chat-api.md §4.3; docs/decisions.md "AI chat"): one model reply,
 * a reply with tools, an agent's run. Each runs as a Temporal workflow (`ai-chat-<userId>-<id>`,
 * so operators find a user's runs in the Temporal UI) and is waited for; the caller's abort signal
 * (a client that went away) cancels the run, which an execution timeout bounds anyway.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Principal } from '../../models/auth/token.rules';
import type { Config } from '../../models/config';
import { AppError, notFound } from '../../models/errors';
import type { ChatMessage } from '../../models/infra/llm';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { aiChatWorkflow } from '../../workflows/ai/chat.workflow';
import { aiNotConfigured, chatFailure } from '../../models/ai/ai-failures';
import { MAX_TOOL_ITERATIONS, type ChatRunInput, type ChatRunResult } from '../../models/ai/chat.rules';
import { resolveModel, type ModelMap } from '../../models/ai/model.rules';
import type { AiRegistryRepo } from '../../models/ai/registry.repo';
import { requireBudget, type BudgetDeps } from './usage';

export interface ChatDeps extends BudgetDeps {
  ai: BudgetDeps['ai'] & { llm: { configured: boolean }; registry: Pick<AiRegistryRepo, 'findAgent' | 'resolveTools' | 'resolveProviders'> };
  temporal: { client: Pick<Client, 'workflow'> };
  config: Pick<Config, 'temporal' | 'ai'>;
}

/** How a run is tied to the request that asked for it. */
export interface RunOptions {
  requestId: string;
  /** Aborted when the caller no longer waits: the run is cancelled. */
  signal?: AbortSignal;
  /** Told the workflow id as soon as the run started (the API sends it as X-Workflow-Id). */
  onStarted?: (workflowId: string) => void;
}

export type ChatRun = ChatRunResult & { workflowId: string };
type RunInput = Omit<ChatRunInput, 'userId' | 'requestId' | 'maxToolIterations' | 'caller'>;

export function requireProvider(llm: { configured: boolean }): void {
  if (!llm.configured) throw aiNotConfigured();
}

export function messagesFor(prompt: string, systemPrompt: string | undefined): ChatMessage[] {
  return [...(systemPrompt ? [{ role: 'system' as const, content: systemPrompt }] : []), { role: 'user' as const, content: prompt }];
}

/**
 * Runs one chat as a workflow and waits for its result (AI failures as the APIs' errors). The run
 * carries who asked (their e-mail and permissions): its tools read only what they may. A user whose
 * daily token budget is spent gets 429 (operations/usage.ts) and nothing is started.
 */
export async function runChat(deps: ChatDeps, caller: Principal, input: RunInput, opts: RunOptions): Promise<ChatRun> {
  requireProvider(deps.ai.llm);
  const userId = caller.sub;
  // A user whose daily token budget is spent starts nothing (429 until the next UTC midnight).
  await requireBudget(deps, userId);
  const runId = randomUUID().slice(0, 12);
  const workflowId = workflowIds.aiChat(userId, runId);
  const handle = await deps.temporal.client.workflow.start(aiChatWorkflow, {
    taskQueue: taskQueueName(deps.config.temporal.taskQueuePrefix, TASK_QUEUES.ai),
    workflowId,
    args: [
      {
        ...input,
        userId,
        caller: { ...(caller.email ? { email: caller.email } : {}), permissions: caller.permissions },
        requestId: opts.requestId || runId,
        maxToolIterations: MAX_TOOL_ITERATIONS,
      },
    ],
    workflowExecutionTimeout: '10 minutes',
  });
  opts.onStarted?.(workflowId);
  const cancel = () => void handle.cancel().catch(() => undefined);
  opts.signal?.addEventListener('abort', cancel, { once: true });
  try {
    return { ...(await handle.result()), workflowId };
  } catch (err) {
    throw chatFailure(err);
  } finally {
    opts.signal?.removeEventListener('abort', cancel);
  }
}

export interface ChatWithToolsInput {
  model: string;
  prompt: string;
  systemPrompt?: string | undefined;
  temperature?: number | undefined;
  maxTokens: number;
  /** Built-in or registered tool names; an unknown one is 400. */
  tools: string[];
}

/** A reply for which the model may call the named tools (at most MAX_TOOL_ITERATIONS rounds). */
export async function chatWithTools(deps: ChatDeps, caller: Principal, input: ChatWithToolsInput, opts: RunOptions): Promise<ChatRun> {
  const { specs, unknown } = await deps.ai.registry.resolveTools(input.tools);
  if (unknown.length) throw new AppError('VALIDATION_FAILED', `Unknown tool(s): ${unknown.join(', ')}`);
  return await runChat(
    deps,
    caller,
    {
      model: input.model,
      messages: messagesFor(input.prompt, input.systemPrompt),
      ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
      maxTokens: input.maxTokens,
      tools: specs,
      contextProviders: [],
    },
    opts,
  );
}

/** An agent's run: its system prompt, model (the mini class when its own is unknown), temperature, tools and context providers. */
export async function askAgent(deps: ChatDeps, caller: Principal, input: { name: string; prompt: string; models: ModelMap; maxTokens: number }, opts: RunOptions): Promise<ChatRun> {
  const agent = (await deps.ai.registry.findAgent(input.name)) ?? notFound(`agent ${input.name}`);
  const [{ specs }, providers] = await Promise.all([deps.ai.registry.resolveTools(agent.tools), deps.ai.registry.resolveProviders(agent.contextProviders)]);
  return await runChat(
    deps,
    caller,
    {
      model: resolveModel(agent.model, input.models)?.id ?? input.models.mini,
      messages: messagesFor(input.prompt, agent.systemPrompt),
      temperature: agent.temperature,
      maxTokens: input.maxTokens,
      tools: specs,
      contextProviders: providers,
      agent: agent.name,
    },
    opts,
  );
}
