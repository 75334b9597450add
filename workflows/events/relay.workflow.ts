/**
 * The webhook fan-out relay (issue 40): run every minute by the `webhook-fanout-relay` schedule, it
 * starts the fan-out of each event of the log appended a while ago and not dispatched (the start
 * after the append was missed, or the fan-out failed). workflows/relay.ts.
 */
import { relay, RELAY_DEFAULTS, type RelayInput } from '../relay';

export type WebhookRelayInput = RelayInput;

export async function webhookRelayWorkflow(input: WebhookRelayInput = RELAY_DEFAULTS): Promise<{ forwarded: number }> {
  return await relay('forwardUndispatchedEvents', input);
}
