/**
 * The support mail relay (issue 39): run every minute by the `support-mail-relay` schedule, it starts
 * the mail workflow of each delivery still queued a while after its message was stored (the start
 * that follows the write was missed: Temporal down, a process that died). workflows/relay.ts.
 */
import { relay, RELAY_DEFAULTS, type RelayInput } from '../relay';

export type SupportMailRelayInput = RelayInput;

export async function supportMailRelayWorkflow(input: SupportMailRelayInput = RELAY_DEFAULTS): Promise<{ forwarded: number }> {
  return await relay('forwardQueuedMail', input);
}
