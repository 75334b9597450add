/**
 * What the billing workflows ask of the world (issue 13): the account behind a Stripe customer,
 * the subscription as Stripe has it now, writing the account's plan (which every API process
 * reads on each request, so it takes effect on the next one). The relay's activity is in
 * relay.activities.ts.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Connection } from 'mongoose';
import type Stripe from 'stripe';
import { createBillingRepo } from '../models/billing/billing.repo';
import { subscriptionFacts, type PriceTable } from '../models/billing/stripe-events';
import type { Plan } from '../models/shared/plan.rules';
import { createUserRepo } from '../models/users/user.repo';
import type { BillingActivities } from '../workflows/billing/activities';

export interface BillingActivityDeps {
  conn: Connection;
  stripe: Stripe | undefined;
  prices: PriceTable;
}

export function createBillingActivities(deps: BillingActivityDeps): BillingActivities {
  const billing = createBillingRepo(deps.conn);
  const users = createUserRepo(deps.conn);
  return {
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
