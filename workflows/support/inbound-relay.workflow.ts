/**
 * The inbound mail relay (issue 39): run every minute by the `support-inbound-relay` schedule, it
 * starts the processing workflow of each requester's mail still only `stored` 30 s after it was
 * received (the receiver's hand-over was missed: Temporal down, the receiver killed between its 250
 * and the start). workflows/relay.ts.
 */
import { relay, RELAY_DEFAULTS, type RelayInput } from '../relay';

export type SupportInboundRelayInput = RelayInput;

export async function supportInboundRelayWorkflow(input: SupportInboundRelayInput = RELAY_DEFAULTS): Promise<{ forwarded: number }> {
  return await relay('forwardStoredMail', input);
}
