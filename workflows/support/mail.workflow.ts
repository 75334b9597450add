/**
 * The mail of one staff message to its ticket's requester, or of a new ticket's acknowledgement
 * (issue 39; docs/decisions.md "Support by e-mail"). Started when the message is stored (its
 * delivery is queued in the same write), or by the mail relay when that start was missed. One
 * activity hands the mail to SMTP; it answers sent, failed (the server refused it: no retry) or not
 * sent (the requester asked for no reply, the address bounces). While the server cannot be reached
 * or answers 4xx, the activity is retried with back-off for about a day; then the delivery is failed
 * with why. The activity never sends twice a delivery it has seen end.
 */
import { ActivityFailure, proxyActivities, sleep } from '@temporalio/workflow';
import { RETRY } from '../retry-policies';
import type { SupportMailActivities } from './activities';

export interface SupportMailInput {
  ticketId: number;
  /** The staff message; 0 for the ticket's acknowledgement. */
  messageId: number;
  /** How long to wait before sending (files uploaded right after a reply go in its mail). */
  delayMs?: number;
}

const { deliverMail } = proxyActivities<SupportMailActivities>({ startToCloseTimeout: '2 minutes', retry: RETRY.mail });
const { giveUpMail } = proxyActivities<SupportMailActivities>({ startToCloseTimeout: '1 minute', retry: RETRY.record });

export async function supportMailWorkflow(input: SupportMailInput): Promise<{ estado: string; motivo: string | null }> {
  const target = { ticketId: input.ticketId, messageId: input.messageId };
  if (input.delayMs) await sleep(input.delayMs);
  try {
    return await deliverMail(target);
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    const reason = err.cause?.message ?? err.message;
    await giveUpMail({ ...target, reason: `every attempt to hand the mail to the SMTP server failed; the last: ${reason}` });
    return { estado: 'failed', motivo: reason };
  }
}
