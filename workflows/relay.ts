/**
 * A webhook relay's run (billing's Stripe events, WhatsApp's readers' messages): run every minute
 * by its relay schedule (workers/schedules.ts), it calls its relay activity once, which hands what
 * the webhook stored but did not hand over (the webhook answers once a thing is stored and hands it
 * over after) to the workflows it belongs to. What is younger than `olderThanMs` is left to the
 * webhook's own hand-over. Not a workflow type itself: billingRelayWorkflow and
 * whatsappRelayWorkflow are.
 */
import { proxyActivities } from '@temporalio/workflow';
import { RETRY } from './retry-policies';

export interface RelayInput {
  olderThanMs: number;
  limit: number;
}

/** A run's input when it is started without one. */
export const RELAY_DEFAULTS: RelayInput = { olderThanMs: 30_000, limit: 1_000 };

/** The relays' activities (activities/relay.activities.ts implements each): one per relay. */
export interface BillingRelayActivities {
  forwardPendingEvents(input: RelayInput): Promise<{ forwarded: number }>;
}
export interface WhatsAppRelayActivities {
  forwardPendingMessages(input: RelayInput): Promise<{ forwarded: number }>;
}
export interface SupportMailRelayActivities {
  forwardQueuedMail(input: RelayInput): Promise<{ forwarded: number }>;
}
export interface SupportInboundRelayActivities {
  forwardStoredMail(input: RelayInput): Promise<{ forwarded: number }>;
}
export interface WebhookRelayActivities {
  forwardUndispatchedEvents(input: RelayInput): Promise<{ forwarded: number }>;
}
type RelayActivities = BillingRelayActivities & WhatsAppRelayActivities & SupportMailRelayActivities & SupportInboundRelayActivities & WebhookRelayActivities;

const activities = proxyActivities<RelayActivities>({
  startToCloseTimeout: '2 minutes',
  // What is left is handed over by the next minute's run.
  retry: RETRY.quick,
});

/** Schedules the relay's one activity (`forwardPendingEvents`, `forwardPendingMessages`) and answers what it handed over. */
export async function relay(activity: keyof RelayActivities, input: RelayInput): Promise<{ forwarded: number }> {
  return await activities[activity](input);
}
