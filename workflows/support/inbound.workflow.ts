/**
 * The processing of one requester's mail the receiver stored (issue 39; docs/decisions.md "Support
 * by e-mail", "Inbound processing"). Started by the receiver's hand-over once the message is stored
 * and recorded, or by the inbound relay when that start was missed; its id is the record's, so a
 * second start is the same run. One activity parses, authenticates, threads and stores the mail
 * (operations/support/inbound-process.ts); it is idempotent, so a retry after a crash adds nothing
 * twice. While MongoDB, MinIO or DNS are out of reach it is retried with back-off (RETRY.inbound);
 * then the record is failed with the last reason.
 */
import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import { RETRY } from '../retry-policies';
import type { SupportInboundActivities, SupportInboundOutcome } from './activities';

export interface SupportInboundMailInput {
  /** The `support_inbound_mail` record's id. */
  id: string;
}

const { processInboundMail } = proxyActivities<SupportInboundActivities>({ startToCloseTimeout: '5 minutes', heartbeatTimeout: '1 minute', retry: RETRY.inbound });
const { giveUpInboundMail } = proxyActivities<SupportInboundActivities>({ startToCloseTimeout: '1 minute', retry: RETRY.record });

export async function supportInboundMailWorkflow(input: SupportInboundMailInput): Promise<SupportInboundOutcome> {
  try {
    return await processInboundMail({ id: input.id });
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    const reason = `every attempt to process the mail failed; the last: ${err.cause?.message ?? err.message}`;
    await giveUpInboundMail({ id: input.id, reason });
    return { state: 'failed', reason };
  }
}
