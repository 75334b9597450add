/**
 * The billing event relay (issue 13; docs/decisions.md "Billing"): run every minute by the
 * `billing-event-relay` schedule, it hands the Stripe events stored but not yet handed to their
 * subscription workflows (the webhook answers once an event is stored and hands it over after) to
 * those workflows. Events younger than `olderThanMs` are left to the webhook's own hand-over.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { createBillingRelayActivities } from '../../activities/relay.activities';
import { RETRY } from '../retry-policies';

const { forwardPendingEvents } = proxyActivities<ReturnType<typeof createBillingRelayActivities>>({
  startToCloseTimeout: '2 minutes',
  // What is left is handed over by the next minute's run.
  retry: RETRY.quick,
});

export interface BillingRelayInput {
  olderThanMs: number;
  limit: number;
}

export async function billingRelayWorkflow(input: BillingRelayInput = { olderThanMs: 30_000, limit: 1_000 }): Promise<{ forwarded: number }> {
  return await forwardPendingEvents(input);
}
