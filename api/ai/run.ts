/**
 * Runs one AI chat as a Temporal workflow and waits for it. The workflow id names the user
 * (`ai-chat-<userId>-<id>`), so operators find a user's runs in the Temporal UI. A client that
 * disconnects cancels its run; the run is bounded by an execution timeout anyway.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import { MAX_TOOL_ITERATIONS, type ChatRunInput, type ChatRunResult } from '../../models/ai/chat.rules';
import { chatFailure } from '../shared/ai-failures';
import { AppError } from '../../models/errors';
import type { aiChatWorkflow } from '../../workflows/ai/chat.workflow';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import type { QuizDeps } from '../quiz/deps';

export const AI_PROVIDER = 'AI provider';

export function requireProvider(deps: QuizDeps): void {
  if (!deps.ai.llm.configured) throw new AppError('DEPENDENCY_UNAVAILABLE', 'AI provider is not configured', { details: { dependency: 'ai-provider' } });
}

export async function runChat(
  deps: QuizDeps,
  ctx: Context,
  userId: string,
  input: Omit<ChatRunInput, 'userId' | 'requestId' | 'maxToolIterations'>,
): Promise<ChatRunResult & { workflowId: string }> {
  requireProvider(deps);
  const runId = randomUUID().slice(0, 12);
  const workflowId = workflowIds.aiChat(userId, runId);
  const handle = await deps.temporal.client.workflow.start<typeof aiChatWorkflow>('aiChatWorkflow', {
    taskQueue: taskQueueName(deps.config.temporal.taskQueuePrefix, TASK_QUEUES.ai),
    workflowId,
    args: [{ ...input, userId, requestId: String(ctx.state.requestId ?? runId), maxToolIterations: MAX_TOOL_ITERATIONS }],
    workflowExecutionTimeout: '10 minutes',
  });
  ctx.set('X-Workflow-Id', workflowId);
  // A client that goes away does not leave its run going.
  const onClose = () => {
    if (!ctx.res.writableFinished) handle.cancel().catch(() => undefined);
  };
  ctx.res.once('close', onClose);
  try {
    return { ...(await handle.result()), workflowId };
  } catch (err) {
    throw chatFailure(err);
  } finally {
    ctx.res.off('close', onClose);
  }
}
