/**
 * AI fast response for one ticket: draft with the shared LLM client (retried like the AI service:
 * 429 after Retry-After, 5xx and timeouts with backoff, never 4xx), store it in `replied`, and send
 * it as an admin message when asked.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { SupportActivities } from './activities';
import type { MessageChannel } from '../../models/support/ticket.rules';
import { NON_RETRYABLE_AI_FAILURES } from '../../models/ai/chat.rules';
import { RETRY, withNonRetryable } from '../retry-policies';

type Acts = SupportActivities;
const { draftFastResponse } = proxyActivities<Acts>({
  startToCloseTimeout: '75 seconds',
  retry: withNonRetryable(RETRY.modelCall, [...NON_RETRYABLE_AI_FAILURES, 'NOT_FOUND']),
});
const { saveFastResponse } = proxyActivities<Acts>({ startToCloseTimeout: '30 seconds', retry: withNonRetryable(RETRY.short, ['NOT_FOUND']) });

export async function ticketFastResponseWorkflow(input: { ticketId: number; send: boolean; by: string; canal?: MessageChannel }): Promise<{ draft: string; messageId: number | null }> {
  const { draft } = await draftFastResponse({ ticketId: input.ticketId });
  const { messageId } = await saveFastResponse({ ...input, draft, key: `fast:${workflowInfo().workflowId}` });
  return { draft, messageId };
}
