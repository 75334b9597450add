/**
 * Ties an AI run (operations/ai/chat.ts) to the request that asked for it: the workflow id
 * goes back in X-Workflow-Id, and a client that disconnects before the answer cancels the run.
 */
import type { Context } from 'koa';
import type { RunOptions } from '../../operations/ai/chat';

export function runOptions(ctx: Context): RunOptions {
  const abort = new AbortController();
  const onClose = () => {
    if (!ctx.res.writableFinished) abort.abort();
  };
  ctx.res.once('close', onClose);
  return {
    requestId: String(ctx.state.requestId ?? ''),
    signal: abort.signal,
    onStarted: (workflowId) => ctx.set('X-Workflow-Id', workflowId),
  };
}
