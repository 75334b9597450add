/**
 * The deliveries of one webhook message (`webhook-message-<msgId>`, issue 40, part 5): an attempt
 * at once, then on the Standard Webhooks schedule with jitter (webhook.rules nextAttemptDelay, its
 * randomness the workflow's own, so replays draw the same), waiting longer when a 429 or 503 asked
 * for it in Retry-After. A 2xx delivers; 410 Gone disables the endpoint and ends; an endpoint that
 * has failed every delivery for five days is disabled (its owner mailed once) and the message
 * ends; a message whose endpoint is disabled or removed ends at its next attempt, unsent; past the
 * schedule the message has failed for good.
 *
 * With `replay` (`webhook-replay-<msgId>-<id>`): one more attempt asked for by the
 * customer, whatever the message's state; a 410 still disables the endpoint.
 */
import { patched, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import { nextAttemptDelay, outcomeOf, shouldDisable } from '../../models/events/webhook.rules';
import type { MessageState } from '../../models/events/webhook-message.rules';
import { RETRY } from '../retry-policies';
import type { WebhookActivities } from './activities';

// One attempt: the sender's own timeout bounds the request; a database fault is retried briefly
// (an attempt retried may send twice: webhooks are at least once, and receivers dedupe by id).
const queued = proxyActivities<WebhookActivities>({ startToCloseTimeout: '1 minute', retry: RETRY.quick });
// An attempt is a local activity (docs/decisions.md "Webhook delivery"): it runs in the worker that
// runs the workflow, so a delivery costs one workflow task instead of two and an activity task
// (docs/benchmarks.md). A worker lost in the middle of an attempt makes the next one send it again,
// which at-least-once delivery allows (receivers deduplicate by webhook-id). Histories begun before
// this change replay their ordinary activities.
const local = proxyLocalActivities<WebhookActivities>({ startToCloseTimeout: '1 minute', retry: RETRY.quick });
const deliverAttempt: WebhookActivities['deliverAttempt'] = (input) => (patched('webhook-attempt-local') ? local.deliverAttempt(input) : queued.deliverAttempt(input));
const { finishMessage, disableEndpoint } = proxyActivities<WebhookActivities>({ startToCloseTimeout: '1 minute', retry: RETRY.record });

export interface WebhookMessageInput {
  msgId: string;
  /** One attempt asked for by the customer (a replay). */
  replay?: boolean;
}

export interface WebhookMessageResult {
  state: MessageState;
  /** Attempts this run made. */
  attempts: number;
}

export async function webhookMessageWorkflow(input: WebhookMessageInput): Promise<WebhookMessageResult> {
  if (input.replay) {
    const report = await deliverAttempt({ msgId: input.msgId, replay: true });
    if (report.kind === 'skipped') return { state: 'cancelled', attempts: 0 };
    const outcome = outcomeOf(report.status);
    if (outcome === 'disable') await disableEndpoint({ endpointId: report.endpointId, reason: 'gone' });
    return { state: outcome === 'delivered' ? 'delivered' : 'failed', attempts: 1 };
  }
  let retryAfterMs: number | undefined;
  for (let attempt = 1; ; attempt += 1) {
    const delay = nextAttemptDelay(attempt, { ...(retryAfterMs === undefined ? {} : { retryAfterMs }), random: Math.random });
    if (delay === null) {
      await finishMessage({ msgId: input.msgId, state: 'failed' });
      return { state: 'failed', attempts: attempt - 1 };
    }
    if (delay > 0) await sleep(delay);
    const report = await deliverAttempt({ msgId: input.msgId });
    if (report.kind === 'skipped') return { state: 'cancelled', attempts: attempt - 1 };
    const outcome = outcomeOf(report.status);
    if (outcome === 'delivered') return { state: 'delivered', attempts: attempt };
    if (outcome === 'disable') {
      await disableEndpoint({ endpointId: report.endpointId, reason: 'gone' });
      return { state: 'failed', attempts: attempt };
    }
    if (shouldDisable(report.failingSince === null ? null : new Date(report.failingSince), new Date(report.at))) {
      await disableEndpoint({ endpointId: report.endpointId, reason: 'failing' });
      await finishMessage({ msgId: input.msgId, state: 'cancelled' });
      return { state: 'cancelled', attempts: attempt };
    }
    retryAfterMs = report.retryAfterMs;
  }
}
