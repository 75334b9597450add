/**
 * The contract of the webhooks' activities (issue 40, part 5; queue `news-webhooks`): what
 * webhookFanOutWorkflow and webhookMessageWorkflow call, implemented by
 * activities/webhooks.activities.ts over operations/events/webhook-fanout.ts and webhook-delivery.ts.
 */
import type { AttemptResult } from '../../models/events/webhook.rules';
import type { MessageState } from '../../models/events/webhook-message.rules';

export interface FanOutPageInput {
  eventKey: string;
  /** The last endpoint of the page before; null for the first page. */
  after: string | null;
  limit: number;
}

/** What one attempt came to (operations/events/webhook-delivery.ts AttemptReport). */
export type AttemptReport =
  | { kind: 'skipped'; reason: 'message-gone' | 'endpoint-gone' | 'endpoint-disabled' }
  | { kind: 'sent'; endpointId: string; status: AttemptResult; retryAfterMs?: number; failingSince: string | null; at: string };

export interface WebhookActivities {
  /** One page of an event's fan-out: messages stored, their workflows started. */
  fanOutPage(input: FanOutPageInput): Promise<{ messages: number; next: string | null }>;
  /** The event's fan-out is done (the relay leaves it alone). */
  markDispatched(input: { eventKey: string }): Promise<void>;
  /** One attempt of a message: signed anew, sent, logged. */
  deliverAttempt(input: { msgId: string; replay?: boolean }): Promise<AttemptReport>;
  /** Ends a message without another attempt. */
  finishMessage(input: { msgId: string; state: MessageState }): Promise<void>;
  /** Disables an endpoint (410, or five days of failures: then its owner is mailed once). */
  disableEndpoint(input: { endpointId: string; reason: 'gone' | 'failing' }): Promise<{ disabled: boolean; mailed: boolean }>;
}
