/**
 * The billing event relay (issue 13; docs/decisions.md "Billing"): run every minute by the
 * `billing-event-relay` schedule, it hands the Stripe events stored but not yet handed to their
 * subscription workflows to those workflows (workflows/relay.ts).
 */
import { relay, RELAY_DEFAULTS, type RelayInput } from '../relay';

export type BillingRelayInput = RelayInput;

export async function billingRelayWorkflow(input: BillingRelayInput = RELAY_DEFAULTS): Promise<{ forwarded: number }> {
  return await relay('forwardPendingEvents', input);
}
