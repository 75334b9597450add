/**
 * Billing (issue 13; spec §3.2, §4.9, §6, §8; docs/decisions.md "Billing").
 *
 * The account's self-service, by its bearer JWT: Checkout for Pro or Business, the customer
 * portal, and the subscription as its workflow sees it. And Stripe's webhook: the signature over
 * the exact body is checked with the `stripe` library (endpoint secret, default tolerance); a
 * verified event is stored once by its id and answered at once; it is then signalled to its
 * customer's subscription workflow (signal-with-start), where the work happens. What could not be
 * handed over then is handed over by the relay (operations/billing/relay-events.ts).
 */
import Stripe from 'stripe';
import { currentSubscription, openPortal, receiveStripeEvent, startCheckout } from '../../operations/billing/subscriptions';
import { AppError } from '../../models/errors';
import { bearer, type AuthPolicy } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import { CheckoutBody, CheckoutSessionView, PortalSessionView, StripeEvent, StripeWebhookAnswer, SubscriptionView } from './contracts';
import type { NewsDeps } from './deps';
import { checkoutSessionExample, portalSessionExample, STRIPE_EVENT_ID, stripeEventExample, subscriptionExample } from './examples/account';

const route = routeFactory<NewsDeps>();
const account = bearer();
const tags = ['subscriptions'];

/** Stripe's signature over the exact body: the webhook's only credential (spec §4.9). */
const stripeSignature: AuthPolicy<Stripe.Event> = {
  scheme: 'stripeSignature',
  // A missing or wrong signature is a 400 (as Stripe's own examples answer), not a 401.
  failures: [],
  signed: true,
  describe: 'Stripe-Signature header (signed with the endpoint secret)',
  providerCredential: {
    in: 'header',
    name: 'Stripe-Signature',
    description: "Stripe's signature over the exact body with the endpoint's signing secret (STRIPE_WEBHOOK_SECRET), timestamped; a missing or wrong one is a 400.",
    example: 't=1764150725,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
  },
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

export const billingRoutes = [
  route({
    method: 'post',
    path: '/api/subscriptions/checkout',
    summary: 'Start a Stripe Checkout for Pro or Business',
    description:
      'Monthly billing. The answer holds the Checkout URL to send the customer to; when it is paid, the plan of every API key of the account changes within seconds (Stripe tells us by webhook). An account with a subscription changes or cancels it in the customer portal instead (409).',
    tags,
    auth: account,
    body: CheckoutBody,
    response: CheckoutSessionView,
    status: 201,
    errors: [409, 503],
    example: { body: { plan: 'pro' }, response: checkoutSessionExample },
    handler: async ({ body, auth, deps }) => reply({ status: 201, data: await startCheckout(deps, { userId: auth.sub, email: auth.email, plan: body.plan }) }),
  }),

  route({
    method: 'post',
    path: '/api/subscriptions/portal',
    summary: "Open Stripe's customer portal",
    description: 'Where the customer changes plan or payment method, reads invoices and cancels. The answer holds the portal URL. An account that never started a checkout has no billing account yet (404).',
    tags,
    auth: account,
    response: PortalSessionView,
    errors: [404, 503],
    example: { response: portalSessionExample },
    handler: async ({ auth, deps }) => await openPortal(deps, auth.sub),
  }),

  route({
    method: 'get',
    path: '/api/subscriptions/me',
    summary: "The account's subscription",
    description: "As the account's subscription workflow holds it: Stripe's status, the plan paid for and the plan the account has now, the period, a cancellation at its end, the grace period of a past_due subscription and the last payment failure.",
    tags,
    auth: account,
    response: SubscriptionView,
    errors: [503],
    example: { response: subscriptionExample },
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
    body: StripeEvent,
    response: StripeWebhookAnswer,
    errors: [503],
    example: { body: stripeEventExample, response: { received: true, eventId: STRIPE_EVENT_ID, duplicate: false, handled: true } },
    handler: async ({ auth: event, deps }) => {
      // The answer waits for the stored event only; the hand-over to its workflow follows it.
      const received = await receiveStripeEvent(deps, event, (e) => deps.background.run(deps.handOver.push(e)));
      return { received: true as const, ...received };
    },
  }),
];
