/**
 * The webhook relays' activities (run every minute by the relay schedules, workers/schedules.ts):
 * each hands what its webhook stored but did not hand over (Temporal down, a process that died) to
 * the workflows it belongs to, through the same use case the webhook calls, with the worker's own
 * Temporal client. An attempt that is over (cancelled, or past its start-to-close timeout) stops
 * between batches (activities/attempt.ts).
 */
import { Context } from '@temporalio/activity';
import { withAttempt } from './attempt';
import type { Connection } from 'mongoose';
import type { Config } from '../models/config';
import { createBillingRepo } from '../models/billing/billing.repo';
import { createEventRelay } from '../operations/billing/relay-events';
import { createWhatsAppRepo } from '../models/whatsapp/whatsapp.repo';
import { createInboundRelay } from '../operations/whatsapp/relay-messages';
import type { BillingRelayActivities, WhatsAppRelayActivities } from '../workflows/relay';

export interface RelayActivityDeps {
  conn: Connection;
  config: Pick<Config, 'billing' | 'whatsapp' | 'temporal'>;
}

export function createBillingRelayActivities(deps: RelayActivityDeps): BillingRelayActivities {
  const billing = createBillingRepo(deps.conn);
  return {
    /** Hands the stored events left behind to their subscription workflows. */
    async forwardPendingEvents(input: { olderThanMs: number; limit: number }): Promise<{ forwarded: number }> {
      return await withAttempt(({ signal }) => createEventRelay({ client: Context.current().client, config: deps.config, billing }).forwardPending(input, signal));
    },
  };
}

export function createWhatsAppRelayActivities(deps: RelayActivityDeps): WhatsAppRelayActivities {
  const whatsapp = createWhatsAppRepo(deps.conn);
  return {
    /** Hands the stored messages left behind to their conversation workflows. */
    async forwardPendingMessages(input: { olderThanMs: number; limit: number }): Promise<{ forwarded: number }> {
      return await withAttempt(({ signal }) => createInboundRelay({ client: Context.current().client, config: deps.config, whatsapp }).forwardPending(input, signal));
    },
  };
}
