/**
 * The WhatsApp message relay (issue 15; docs/decisions.md "WhatsApp"): run every minute by the
 * `whatsapp-message-relay` schedule, it hands the readers' messages stored but not yet handed to
 * their conversation workflows to those workflows (workflows/relay.ts).
 */
import { relay, RELAY_DEFAULTS, type RelayInput } from '../relay';

export type WhatsAppRelayInput = RelayInput;

export async function whatsappRelayWorkflow(input: WhatsAppRelayInput = RELAY_DEFAULTS): Promise<{ forwarded: number }> {
  return await relay('forwardPendingMessages', input);
}
