/**
 * The WhatsApp message relay (issue 15; docs/decisions.md "WhatsApp"): run every minute by the
 * `whatsapp-message-relay` schedule, it hands the readers' messages stored but not yet handed to
 * their conversation workflows (the webhook answers once a message is stored and hands it over
 * after) to those workflows. Messages younger than `olderThanMs` are left to the webhook.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { createWhatsAppRelayActivities } from '../../activities/relay.activities';
import { RETRY } from '../retry-policies';

const { forwardPendingMessages } = proxyActivities<ReturnType<typeof createWhatsAppRelayActivities>>({
  startToCloseTimeout: '2 minutes',
  // What is left is handed over by the next minute's run.
  retry: RETRY.quick,
});

export interface WhatsAppRelayInput {
  olderThanMs: number;
  limit: number;
}

export async function whatsappRelayWorkflow(input: WhatsAppRelayInput = { olderThanMs: 30_000, limit: 1_000 }): Promise<{ forwarded: number }> {
  return await forwardPendingMessages(input);
}
