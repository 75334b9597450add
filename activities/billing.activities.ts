/**
 * What the billing workflows ask of the world (issue 13): the account behind a Stripe customer,
 * the subscription as Stripe has it now, writing the account's plan (which every API process
 * reads on each request, so it takes effect on the next one), and the relay's hand-over of stored
 * events to their subscription workflows.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Connection } from 'mongoose';
import type Stripe from 'stripe';
import { createBillingRepo } from '../models/billing/billing.repo';
import { createEventRelay } from './billing.relay';
import type { Config } from '../models/config';
import { subscriptionFacts, type PriceTable } from '../models/billing/stripe-events';
import type { Plan } from '../models/news/plan.rules';
import { createUserRepo } from '../models/users/user.repo';

export interface BillingActivityDeps {
  conn: Connection;
  stripe: Stripe | undefined;
  prices: PriceTable;
  /** For the relay: the client it signals subscription workflows with. */
  client: Client;
  config: Pick<Config, 'billing' | 'temporal'>;
}

export function createBillingActivities(deps: BillingActivityDeps) {
  const billing = createBillingRepo(deps.conn);
  const users = createUserRepo(deps.conn);
  const relay = createEventRelay({ client: deps.client, config: deps.config, billing });
  return {
    /** Hands the stored events left behind (a process that died after answering, Temporal down) to their workflows. */
    async forwardPendingEvents(input: { olderThanMs: number; limit: number }): Promise<{ forwarded: number }> {
      return await relay.forwardPending(input);
    },

    /** The account whose Stripe customer this is (linked when it started a checkout), if any. */
    async accountOf(customerId: string): Promise<string | null> {
      return await billing.accountOf(customerId);
    },

    /** The subscription as Stripe has it now (what the events alone do not say). */
    async fetchSubscription(subscriptionId: string): Promise<{ subscriptionId: string; customerId: string; currentPeriodEnd: number | null; plan: Plan | null }> {
      if (!deps.stripe) throw ApplicationFailure.create({ type: 'BillingNotConfigured', nonRetryable: true, message: 'no Stripe key is configured on this worker' });
      const sub = await deps.stripe.subscriptions.retrieve(subscriptionId);
      const facts = subscriptionFacts(sub as unknown as Record<string, unknown>, deps.prices);
      return { subscriptionId: facts.subscriptionId ?? subscriptionId, customerId: facts.customerId ?? '', currentPeriodEnd: facts.currentPeriodEnd, plan: facts.plan };
    },

    /** Sets the account's plan (idempotent). */
    async setAccountPlan(input: { userId: string; plan: Plan }): Promise<void> {
      await users.setPlan(input.userId, input.plan);
    },
  };
}
