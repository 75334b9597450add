/**
 * Stripe events reduced to what the subscription workflow needs ({@link BillingEvent}): small
 * signals, readable in the Temporal UI, and nothing of the customer's beyond ids. Reads the
 * objects of Stripe's current API version (periods on subscription items, the invoice's
 * subscription under `parent.subscription_details`), tolerating older shapes where cheap.
 */
import type Stripe from 'stripe';
import { isPlan, type Plan } from '../shared/plan.rules';
import { isHandledEvent, SUBSCRIPTION_STATUSES, type BillingEvent, type SubscriptionStatus } from './subscription.rules';

export interface PriceTable {
  pro: string;
  business: string;
}

type Loose = Record<string, unknown>;
const obj = (v: unknown): Loose | undefined => (v && typeof v === 'object' ? (v as Loose) : undefined);
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
/** An id, whether Stripe sent the id or the expanded object. */
const idOf = (v: unknown): string | null => str(v) ?? str(obj(v)?.id);
const ms = (seconds: number | null) => (seconds === null ? null : seconds * 1000);

export function planOfPrice(priceId: string | null, prices: PriceTable): Plan | null {
  if (!priceId) return null;
  if (priceId === prices.pro) return 'pro';
  if (priceId === prices.business) return 'business';
  return null;
}

/** The plan a subscription pays for: its price, else the plan our Checkout wrote in its metadata. */
function planOf(priceIds: (string | null)[], metadata: Loose | undefined, prices: PriceTable): Plan | null {
  for (const id of priceIds) {
    const plan = planOfPrice(id, prices);
    if (plan) return plan;
  }
  const named = str(metadata?.plan);
  return named && isPlan(named) && named !== 'starter' ? named : null;
}

const statusOf = (v: unknown): SubscriptionStatus | undefined =>
  typeof v === 'string' && (SUBSCRIPTION_STATUSES as readonly string[]).includes(v) ? (v as SubscriptionStatus) : undefined;

/** A subscription object's facts (used for events and for subscriptions fetched from Stripe). */
export function subscriptionFacts(sub: Loose, prices: PriceTable) {
  const items = (obj(sub.items)?.data as Loose[] | undefined) ?? [];
  const periodEnds = items.map((i) => num(i.current_period_end)).filter((n): n is number => n !== null);
  const periodEnd = periodEnds.length ? Math.max(...periodEnds) : num(sub.current_period_end);
  const metadata = obj(sub.metadata);
  return {
    subscriptionId: idOf(sub.id),
    customerId: idOf(sub.customer),
    userId: str(metadata?.userId),
    status: statusOf(sub.status),
    plan: planOf(items.map((i) => idOf(obj(i.price)?.id ?? i.price)), metadata, prices),
    currentPeriodEnd: ms(periodEnd),
    cancelAtPeriodEnd: sub.cancel_at_period_end === true,
  };
}

export type Summary = { event: BillingEvent } | { ignored: string };

/** The event as the workflow takes it, or why it is not for the workflow. */
export function summariseEvent(event: Stripe.Event, prices: PriceTable): Summary {
  if (!isHandledEvent(event.type)) return { ignored: `event type ${event.type} is not used` };
  const o = obj(event.data?.object) ?? {};
  const base = { id: event.id, type: event.type, created: event.created * 1000 };
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const customerId = idOf(o.customer);
      if (o.mode !== 'subscription') return { ignored: 'checkout session is not a subscription' };
      if (!customerId) return { ignored: 'checkout session has no customer' };
      const metadata = obj(o.metadata);
      // Paid, or free (a 100% coupon); an asynchronous payment (boleto) still pending is not yet.
      const paid = o.payment_status === 'paid' || o.payment_status === 'no_payment_required';
      return {
        event: {
          ...base,
          customerId,
          subscriptionId: idOf(o.subscription),
          userId: str(o.client_reference_id) ?? str(metadata?.userId),
          facts: { status: paid ? 'active' : 'incomplete', plan: planOf([], metadata, prices) },
          wantsPeriod: true,
        },
      };
    }
    case 'invoice.payment_succeeded':
    case 'invoice.payment_failed': {
      const customerId = idOf(o.customer);
      const details = obj(obj(o.parent)?.subscription_details);
      const subscriptionId = idOf(details?.subscription) ?? idOf(o.subscription);
      if (!customerId || !subscriptionId) return { ignored: 'invoice is not a subscription invoice' };
      const lines = (obj(o.lines)?.data as Loose[] | undefined) ?? [];
      const periodEnds = lines.map((l) => num(obj(l.period)?.end)).filter((n): n is number => n !== null);
      const priceIds = lines.map((l) => idOf(obj(obj(l.pricing)?.price_details)?.price) ?? idOf(l.price));
      const invoiceId = idOf(o.id) ?? 'unknown';
      return {
        event: {
          ...base,
          customerId,
          subscriptionId,
          userId: str(obj(details?.metadata)?.userId),
          facts: {
            plan: planOf(priceIds, obj(details?.metadata), prices),
            ...(event.type === 'invoice.payment_succeeded' && periodEnds.length ? { currentPeriodEnd: Math.max(...periodEnds) * 1000 } : {}),
          },
          ...(event.type === 'invoice.payment_failed'
            ? {
                failure: {
                  at: base.created,
                  invoiceId,
                  attemptCount: num(o.attempt_count) ?? 1,
                  nextAttemptAt: ms(num(o.next_payment_attempt)),
                  message: str(obj(o.last_finalization_error)?.message),
                },
              }
            : {}),
        },
      };
    }
    default: {
      // customer.subscription.created / updated / deleted: the subscription as it was at the event.
      const facts = subscriptionFacts(o, prices);
      if (!facts.customerId || !facts.subscriptionId) return { ignored: 'subscription without a customer' };
      const status = event.type === 'customer.subscription.deleted' ? 'canceled' : facts.status;
      if (!status) return { ignored: `unknown subscription status ${String(o.status)}` };
      return {
        event: {
          ...base,
          customerId: facts.customerId,
          subscriptionId: facts.subscriptionId,
          userId: facts.userId,
          facts: { status, plan: facts.plan, currentPeriodEnd: facts.currentPeriodEnd, cancelAtPeriodEnd: facts.cancelAtPeriodEnd },
        },
      };
    }
  }
}
