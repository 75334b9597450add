/**
 * Billing (issue 13; spec §3.2, §4.9, §6, §8; docs/decisions.md "Billing").
 *
 * The account's self-service, by its bearer JWT: Checkout for Pro or Business, the customer
 * portal, and the subscription as its workflow sees it. And Stripe's webhook: the signature over
 * the exact body is checked with the `stripe` library (endpoint secret, default tolerance); a
 * verified event is stored once by its id and answered at once; it is then signalled to its
 * customer's subscription workflow (signal-with-start), where the work happens. What could not be
 * handed over then is handed over by the relay (models/billing/operations/relay-events.ts).
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import Stripe from 'stripe';
import { z } from 'zod';
import { type SubscriptionView, SUBSCRIPTION_STATUSES } from '../../models/billing/subscription.rules';
import { summariseEvent } from '../../models/billing/stripe-events';
import { AppError, dependencyUnavailable } from '../../models/errors';
import { callStripe, requireStripe } from '../../models/infra/stripe';
import { PLANS, type Plan } from '../../models/news/plan.rules';
import { workflowIds } from '../../workflows/ids';
import { bearer, type AuthPolicy } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import { Count, IsoDateTime, Text } from '../shared/views';
import type { NewsDeps } from './deps';

const route = routeFactory<NewsDeps>();
const account = bearer();
const tags = ['subscriptions'];

/** How long GET /api/subscriptions/me waits for the workflow's answer (a worker must answer a query). */
const QUERY_DEADLINE_MS = 5_000;

/** Stripe ids are at most 255 characters, its other strings at most 5,000 (Stripe's API reference). */
const stripeId = Text(255);
const SubscriptionViewSchema = z.object({
  customerId: stripeId.nullable(),
  subscriptionId: stripeId.nullable(),
  status: z.enum([...SUBSCRIPTION_STATUSES, 'none']).describe("Stripe's status of the subscription; none before the first one"),
  plan: z.enum(PLANS).describe('the plan the account has now'),
  subscribedPlan: z.enum(PLANS).nullable().describe('the plan paid for'),
  currentPeriodEnd: IsoDateTime.nullable(),
  cancelAtPeriodEnd: z.boolean(),
  graceEndsAt: IsoDateTime.nullable().describe('while past_due: when the account drops to Starter unless a payment succeeds'),
  lastPaymentFailure: z
    .object({ at: IsoDateTime, invoiceId: stripeId, attemptCount: Count, nextAttemptAt: IsoDateTime.nullable(), message: Text(5_000).nullable() })
    .nullable(),
  eventsApplied: Count,
  asOf: IsoDateTime.nullable().describe("Stripe's time of the newest event applied"),
});

async function currentSubscription(deps: NewsDeps, userId: string): Promise<z.input<typeof SubscriptionViewSchema>> {
  const customer = await deps.billing.customerOf(userId);
  const user = await deps.users.findById(userId);
  const none = {
    customerId: customer?.customerId ?? null,
    subscriptionId: null,
    status: 'none' as const,
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
    return await deps.temporal.connection.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query<SubscriptionView>('subscription'));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return none; // a customer whose checkout has not completed
    const code = (err as { code?: unknown }).code;
    if (code === 4 /* DEADLINE_EXCEEDED */) throw dependencyUnavailable('billing worker', err);
    throw err;
  }
}

/** The account's Stripe customer, created once (Stripe's idempotency key and our unique link). */
async function ensureCustomer(deps: NewsDeps, stripe: Stripe, userId: string, email: string | undefined): Promise<string> {
  const existing = await deps.billing.customerOf(userId);
  if (existing) return existing.customerId;
  const created = await callStripe(() => stripe.customers.create({ ...(email ? { email } : {}), metadata: { userId } }, { idempotencyKey: `customer-for-account-${userId}` }));
  return (await deps.billing.linkCustomer(userId, created.id, email ?? null)).customerId;
}

/** Statuses in which the account changes its subscription in the portal rather than buying another. */
const LIVE = new Set(['active', 'trialing', 'past_due', 'unpaid', 'paused']);

/** Stripe's signature over the exact body: the webhook's only credential (spec §4.9). */
const stripeSignature: AuthPolicy<Stripe.Event> = {
  scheme: 'stripeSignature',
  // A missing or wrong signature is a 400 (as Stripe's own examples answer), not a 401.
  failures: [],
  signed: true,
  describe: 'Stripe-Signature header (signed with the endpoint secret)',
  async authenticate(ctx, _services, rawDeps) {
    const deps = rawDeps as NewsDeps;
    const secret = deps.config.billing.webhookSecret;
    if (!secret) throw new AppError('DEPENDENCY_UNAVAILABLE', 'Billing webhooks are not configured on this deployment (no webhook secret)', { details: { dependency: 'stripe' } });
    const signature = ctx.get('stripe-signature');
    if (!signature) throw new AppError('VALIDATION_FAILED', 'Missing Stripe-Signature header');
    const raw = (ctx.request as { rawBody?: unknown }).rawBody;
    if (typeof raw !== 'string' || !raw) throw new AppError('VALIDATION_FAILED', 'The body must be the Stripe event, as JSON');
    try {
      return Stripe.webhooks.constructEvent(raw, signature, secret);
    } catch (err) {
      // The library's message says what failed (no signature matches, timestamp outside the tolerance); it never holds the secret.
      throw new AppError('VALIDATION_FAILED', `Invalid Stripe signature: ${(err as Error).message.split('\n')[0]}`);
    }
  },
};

const WebhookAnswer = z.object({
  received: z.literal(true),
  eventId: stripeId,
  duplicate: z.boolean().describe('the event was delivered before'),
  handled: z.boolean().describe('the event was handed to the subscription workflow (false: a type or object billing does not use)'),
});

export const billingRoutes = [
  route({
    method: 'post',
    path: '/api/subscriptions/checkout',
    summary: 'Start a Stripe Checkout for Pro or Business',
    description:
      'Monthly billing. The answer holds the Checkout URL to send the customer to; when it is paid, the plan of every API key of the account changes within seconds (Stripe tells us by webhook). An account with a subscription changes or cancels it in the customer portal instead (409).',
    tags,
    auth: account,
    body: z.strictObject({ plan: z.enum(['pro', 'business']) }),
    response: z.object({ sessionId: stripeId, url: Text(5_000) }),
    status: 201,
    errors: [409, 503],
    handler: async ({ body, auth, deps }) => {
      const stripe = requireStripe(deps.stripe);
      const current = await currentSubscription(deps, auth.sub);
      if (LIVE.has(current.status)) {
        throw new AppError('CONFLICT', `This account already has a subscription (${current.status}); change or cancel it in the customer portal (POST /api/subscriptions/portal)`);
      }
      await deps.users.ensure(auth.sub, auth.email);
      const customer = await ensureCustomer(deps, stripe, auth.sub, auth.email);
      const metadata = { userId: auth.sub, plan: body.plan };
      const returnUrl = new URL(deps.config.billing.returnUrl);
      const success = new URL(returnUrl);
      success.searchParams.set('checkout', 'success');
      const cancel = new URL(returnUrl);
      cancel.searchParams.set('checkout', 'cancelled');
      const session = await callStripe(() =>
        stripe.checkout.sessions.create({
          mode: 'subscription',
          customer,
          client_reference_id: auth.sub,
          line_items: [{ price: deps.config.billing.prices[body.plan], quantity: 1 }],
          // Stripe fills in the session id (a literal placeholder, not URL-encoded).
          success_url: `${success.toString()}&session_id={CHECKOUT_SESSION_ID}`,
          cancel_url: cancel.toString(),
          metadata,
          subscription_data: { metadata },
        }),
      );
      if (!session.url) throw new Error('Stripe gave a Checkout session without a URL');
      return reply({ status: 201, data: { sessionId: session.id, url: session.url } });
    },
  }),

  route({
    method: 'post',
    path: '/api/subscriptions/portal',
    summary: "Open Stripe's customer portal",
    description: 'Where the customer changes plan or payment method, reads invoices and cancels. The answer holds the portal URL. An account that never started a checkout has no billing account yet (404).',
    tags,
    auth: account,
    response: z.object({ url: Text(5_000) }),
    errors: [404, 503],
    handler: async ({ auth, deps }) => {
      const stripe = requireStripe(deps.stripe);
      const customer = await deps.billing.customerOf(auth.sub);
      if (!customer) throw new AppError('NOT_FOUND', 'No billing account yet: start with POST /api/subscriptions/checkout');
      const session = await callStripe(() => stripe.billingPortal.sessions.create({ customer: customer.customerId, return_url: deps.config.billing.returnUrl }));
      return { url: session.url };
    },
  }),

  route({
    method: 'get',
    path: '/api/subscriptions/me',
    summary: "The account's subscription",
    description: "As the account's subscription workflow holds it: Stripe's status, the plan paid for and the plan the account has now, the period, a cancellation at its end, the grace period of a past_due subscription and the last payment failure.",
    tags,
    auth: account,
    response: SubscriptionViewSchema,
    errors: [503],
    handler: async ({ auth, deps }) => await currentSubscription(deps, auth.sub),
  }),

  route({
    method: 'post',
    path: '/api/subscriptions/webhook',
    summary: "Stripe's webhook (spec §4.9)",
    description:
      'Stripe sends its events here. The Stripe-Signature header must be Stripe\'s signature of the exact body with the endpoint secret, made within the last 5 minutes; otherwise 400 and nothing changes. A verified event is stored once by its id and answered at once; its customer\'s subscription workflow then applies it (redeliveries and out-of-order deliveries are harmless). Used: ' +
      'checkout.session.completed, checkout.session.async_payment_succeeded, invoice.payment_succeeded, invoice.payment_failed, customer.subscription.created, customer.subscription.updated, customer.subscription.deleted; other types are stored and acknowledged.',
    tags,
    auth: stripeSignature,
    rawBody: true,
    body: z.looseObject({ id: z.string().max(255), type: z.string().max(255), created: z.number(), data: z.looseObject({ object: z.looseObject({}) }) }).describe('a Stripe event'),
    response: WebhookAnswer,
    errors: [503],
    handler: async ({ auth: event, deps }) => {
      const summary = summariseEvent(event, deps.config.billing.prices);
      const handled = 'event' in summary;
      // The answer waits for this record only (the outbox): the hand-over to the workflow follows.
      const { fresh, stored } = await deps.billing.record({
        _id: event.id,
        type: event.type,
        created: new Date(event.created * 1000),
        customerId: handled ? summary.event.customerId : null,
        livemode: event.livemode === true,
        ignored: handled ? null : summary.ignored,
        summary: handled ? summary.event : null,
      });
      // Not handed over yet (the first delivery, or one whose hand-over failed): now, after the answer.
      // A failure is left to the relay, which hands over what is left every minute.
      if (handled && !stored.forwardedAt) deps.background.run(deps.handOver.push(summary.event));
      return { received: true as const, eventId: event.id, duplicate: !fresh, handled };
    },
  }),
];
