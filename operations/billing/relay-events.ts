/**
 * The use case "relay a stored Stripe event": hands verified Stripe events to their customer's subscription workflow (signal-with-start on
 * `subscription-<customerId>`), and records that it did. The webhook calls `forward` after it has
 * answered; the relay workflow (every minute, workers/schedules.ts) calls `forwardPending` for what
 * is left. Handing an event over twice is harmless: the workflow knows the ids it has applied.
 */
import type { Client } from '@temporalio/client';
import type { Config } from '../../models/config';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { stripeEventSignal, subscriptionWorkflow } from '../../workflows/billing/subscription.workflow';
import type { BillingRepo } from '../../models/billing/billing.repo';
import type { BillingEvent } from '../../models/billing/subscription.rules';

export interface EventRelayDeps {
  client: Pick<Client, 'workflow'>;
  config: Pick<Config, 'billing' | 'temporal'>;
  billing: BillingRepo;
}

export function createEventRelay(deps: EventRelayDeps) {
  const forward = async (event: BillingEvent): Promise<void> => {
    await deps.client.workflow.signalWithStart(subscriptionWorkflow, {
      workflowId: workflowIds.subscription(event.customerId),
      taskQueue: taskQueueName(deps.config.temporal.taskQueuePrefix, TASK_QUEUES.billing),
      args: [{ customerId: event.customerId, graceMs: deps.config.billing.graceMs }],
      signal: stripeEventSignal,
      signalArgs: [event],
    });
    await deps.billing.markForwarded(event.id);
  };
  return {
    forward,
    /**
     * Hands over the events received more than `olderThanMs` ago and not handed over yet; stops
     * between batches once `signal` aborts (the relay activity's attempt is over: the next run
     * hands over the rest).
     */
    async forwardPending(input: { olderThanMs: number; limit: number }, signal?: AbortSignal): Promise<{ forwarded: number }> {
      const pending = await deps.billing.pending(new Date(Date.now() - input.olderThanMs), input.limit);
      // Oldest first, a few at a time (the workflow orders them by Stripe's time anyway).
      for (let i = 0; i < pending.length; i += 10) {
        signal?.throwIfAborted();
        await Promise.all(pending.slice(i, i + 10).map((doc) => forward(doc.summary!)));
      }
      return { forwarded: pending.length };
    },
  };
}

export type EventRelay = ReturnType<typeof createEventRelay>;
