/**
 * An account's subscription, the use cases (issue 13; spec §3.2, §4.9; docs/decisions.md
 * "Billing"): read it as its workflow holds it, start a Stripe Checkout, open the customer portal,
 * and receive a verified Stripe event (stored once by its id, then handed to its customer's
 * subscription workflow by relay-events.ts).
 */
import { WorkflowNotFoundError, type Client, type Connection } from '@temporalio/client';
import type Stripe from 'stripe';
import type { Config } from '../../models/config';
import { AppError, dependencyUnavailable } from '../../models/errors';
import { callStripe, requireStripe } from '../../models/infra/stripe';
import type { Plan } from '../../models/shared/plan.rules';
import type { UserRepo } from '../../models/users/user.repo';
import { workflowIds } from '../../workflows/ids';
import { subscriptionQuery } from '../../workflows/billing/subscription.workflow';
import type { BillingRepo } from '../../models/billing/billing.repo';
import { summariseEvent } from '../../models/billing/stripe-events';
import type { BillingEvent, SubscriptionView } from '../../models/billing/subscription.rules';

export interface SubscriptionDeps {
  billing: BillingRepo;
  users: Pick<UserRepo, 'findById' | 'ensure'>;
  temporal: { client: Pick<Client, 'workflow'>; connection: Pick<Connection, 'withDeadline'> };
  /** Undefined when no Stripe key is configured (billing answers 503). */
  stripe: Stripe | undefined;
  config: Pick<Config, 'billing'>;
}

/** How long reading a subscription waits for its workflow's answer (a worker must answer a query). */
const QUERY_DEADLINE_MS = 5_000;

/** Statuses in which the account changes its subscription in the portal rather than buying another. */
const LIVE = new Set(['active', 'trialing', 'past_due', 'unpaid', 'paused']);

export type CurrentSubscription = Omit<SubscriptionView, 'customerId'> & { customerId: string | null };

/** The account's subscription as its workflow holds it; `none` before the first one. */
export async function currentSubscription(deps: SubscriptionDeps, userId: string): Promise<CurrentSubscription> {
  const customer = await deps.billing.customerOf(userId);
  const user = await deps.users.findById(userId);
  const none: CurrentSubscription = {
    customerId: customer?.customerId ?? null,
    subscriptionId: null,
    status: 'none',
    plan: user?.plan ?? ('starter' as Plan),
    subscribedPlan: null,
    currentPeriodEnd: null,
    cancelAtPeriodEnd: false,
    graceEndsAt: null,
    lastPaymentFailure: null,
    eventsApplied: 0,
    asOf: null,
  };
  if (!customer) return none;
  const handle = deps.temporal.client.workflow.getHandle(workflowIds.subscription(customer.customerId));
  try {
    return await deps.temporal.connection.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(subscriptionQuery));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return none; // a customer whose checkout has not completed
    const code = (err as { code?: unknown }).code;
    if (code === 4 /* DEADLINE_EXCEEDED */) throw dependencyUnavailable('billing worker', err);
    throw err;
  }
}

/** The account's Stripe customer, created once (Stripe's idempotency key and our unique link). */
async function ensureCustomer(deps: SubscriptionDeps, stripe: Stripe, userId: string, email: string | undefined): Promise<string> {
  const existing = await deps.billing.customerOf(userId);
  if (existing) return existing.customerId;
  const created = await callStripe(() => stripe.customers.create({ ...(email ? { email } : {}), metadata: { userId } }, { idempotencyKey: `customer-for-account-${userId}` }));
  return (await deps.billing.linkCustomer(userId, created.id, email ?? null)).customerId;
}

/**
 * A Stripe Checkout for Pro or Business (monthly). An account with a live subscription changes or
 * cancels it in the customer portal instead (409).
 */
export async function startCheckout(deps: SubscriptionDeps, input: { userId: string; email: string | undefined; plan: 'pro' | 'business' }): Promise<{ sessionId: string; url: string }> {
  const stripe = requireStripe(deps.stripe);
  const current = await currentSubscription(deps, input.userId);
  if (LIVE.has(current.status)) {
    throw new AppError('CONFLICT', `This account already has a subscription (${current.status}); change or cancel it in the customer portal (POST /api/subscriptions/portal)`);
  }
  await deps.users.ensure(input.userId, input.email);
  const customer = await ensureCustomer(deps, stripe, input.userId, input.email);
  const metadata = { userId: input.userId, plan: input.plan };
  const returnUrl = new URL(deps.config.billing.returnUrl);
  const success = new URL(returnUrl);
  success.searchParams.set('checkout', 'success');
  const cancel = new URL(returnUrl);
  cancel.searchParams.set('checkout', 'cancelled');
  const session = await callStripe(() =>
    stripe.checkout.sessions.create({
      mode: 'subscription',
      customer,
      client_reference_id: input.userId,
      line_items: [{ price: deps.config.billing.prices[input.plan], quantity: 1 }],
      // Stripe fills in the session id (a literal placeholder, not URL-encoded).
      success_url: `${success.toString()}&session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: cancel.toString(),
      metadata,
      subscription_data: { metadata },
    }),
  );
  if (!session.url) throw new Error('Stripe gave a Checkout session without a URL');
  return { sessionId: session.id, url: session.url };
}

/** Stripe's customer portal (plan, payment method, invoices, cancelling); 404 before the first checkout. */
export async function openPortal(deps: SubscriptionDeps, userId: string): Promise<{ url: string }> {
  const stripe = requireStripe(deps.stripe);
  const customer = await deps.billing.customerOf(userId);
  if (!customer) throw new AppError('NOT_FOUND', 'No billing account yet: start with POST /api/subscriptions/checkout');
  const session = await callStripe(() => stripe.billingPortal.sessions.create({ customer: customer.customerId, return_url: deps.config.billing.returnUrl }));
  return { url: session.url };
}

/**
 * Stores a verified Stripe event once by its id (the outbox the answer waits for) and, when billing
 * uses it and it was not handed over yet, gives it to `handOver` (after the answer; a failure is
 * left to the relay, which hands over what is left every minute).
 */
export async function receiveStripeEvent(deps: Pick<SubscriptionDeps, 'billing' | 'config'>, event: Stripe.Event, handOver: (e: BillingEvent) => void) {
  const summary = summariseEvent(event, deps.config.billing.prices);
  const handled = 'event' in summary;
  const { fresh, stored } = await deps.billing.record({
    _id: event.id,
    type: event.type,
    created: new Date(event.created * 1000),
    customerId: handled ? summary.event.customerId : null,
    livemode: event.livemode === true,
    ignored: handled ? null : summary.ignored,
    summary: handled ? summary.event : null,
  });
  if (handled && !stored.forwardedAt) handOver(summary.event);
  return { eventId: event.id, duplicate: !fresh, handled };
}
