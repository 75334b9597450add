/** The subscription state machine and the reading of Stripe's objects (issue 13), on their own. */
import { planOfPrice, summariseEvent } from '../../models/billing/stripe-events';
import { applyEvent, initialState, nextChangeAt, planAt, REMEMBERED_EVENT_IDS, type BillingEvent } from '../../models/billing/subscription.rules';
import { redactStripeSecrets } from '../../models/infra/stripe';
import { checkoutObject, invoiceObject, stripeEvent, subscriptionObject } from '../helpers/billing';
import { testConfig } from '../helpers/service';

const DAY = 86_400_000;
const GRACE = 7 * DAY;
const prices = testConfig().billing.prices;
const ids = { customerId: 'cus_1', subscriptionId: 'sub_1' };
let n = 0;
const ev = (type: BillingEvent['type'], created: number, rest: Partial<BillingEvent> = {}): BillingEvent => ({
  id: `evt_${++n}`,
  type,
  created,
  ...ids,
  userId: null,
  facts: {},
  ...rest,
});

describe('applyEvent', () => {
  it('walks the lifecycle of spec §3.2', () => {
    const s = initialState('cus_1');
    expect(applyEvent(s, ev('checkout.session.completed', 1_000, { userId: 'u1', facts: { status: 'active', plan: 'pro' } }))).toBe('applied');
    expect(s).toMatchObject({ status: 'active', plan: 'pro', userId: 'u1', subscriptionId: 'sub_1' });
    expect(applyEvent(s, ev('invoice.payment_succeeded', 2_000, { facts: { currentPeriodEnd: 40 * DAY } }))).toBe('applied');
    expect(s.currentPeriodEnd).toBe(40 * DAY);
    applyEvent(s, ev('invoice.payment_failed', 3_000, { failure: { at: 3_000, invoiceId: 'in_1', attemptCount: 1, nextAttemptAt: null, message: null } }));
    expect(s).toMatchObject({ status: 'past_due', pastDueSince: 3_000, lastPaymentFailure: { invoiceId: 'in_1' } });
    // A second failure does not restart the grace period.
    applyEvent(s, ev('invoice.payment_failed', 4_000));
    expect(s.pastDueSince).toBe(3_000);
    applyEvent(s, ev('customer.subscription.updated', 5_000, { facts: { status: 'active', plan: 'business' } }));
    expect(s).toMatchObject({ status: 'active', plan: 'business', pastDueSince: null });
    applyEvent(s, ev('customer.subscription.deleted', 6_000, { facts: { status: 'canceled', currentPeriodEnd: 6_000 } }));
    expect(s).toMatchObject({ status: 'canceled', currentPeriodEnd: 6_000, eventsApplied: 6 });
  });

  it('ignores duplicates, stale events and anything said of a canceled subscription', () => {
    const s = initialState('cus_1');
    const created = ev('customer.subscription.created', 1_000, { facts: { status: 'active', plan: 'pro' } });
    applyEvent(s, created);
    expect(applyEvent(s, created)).toBe('duplicate');
    applyEvent(s, ev('customer.subscription.updated', 5_000, { facts: { status: 'past_due' } }));
    expect(applyEvent(s, ev('customer.subscription.updated', 4_000, { facts: { status: 'active' } }))).toBe('stale');
    expect(s.status).toBe('past_due');
    applyEvent(s, ev('customer.subscription.deleted', 6_000, { facts: { status: 'canceled' } }));
    // Same second or later, even a payment: canceled is final.
    expect(applyEvent(s, ev('customer.subscription.updated', 6_000, { facts: { status: 'active' } }))).toBe('final');
    expect(applyEvent(s, ev('invoice.payment_succeeded', 9_000))).toBe('final');
    expect(s.status).toBe('canceled');
  });

  it('a first payment that fails leaves the subscription incomplete, not past_due', () => {
    const s = initialState('cus_1');
    applyEvent(s, ev('invoice.payment_failed', 1_000));
    expect(s.status).toBe('incomplete');
    expect(planAt(s, 1_000, GRACE)).toBe('starter');
  });

  it("another subscription takes over when the customer's current one has ended, not while it is live", () => {
    const s = initialState('cus_1');
    applyEvent(s, ev('customer.subscription.created', 1_000, { facts: { status: 'active', plan: 'pro' } }));
    expect(applyEvent(s, ev('customer.subscription.updated', 500, { subscriptionId: 'sub_old', facts: { status: 'canceled' } }))).toBe('other subscription');
    applyEvent(s, ev('customer.subscription.deleted', 2_000, { facts: { status: 'canceled' } }));
    expect(applyEvent(s, ev('customer.subscription.created', 3_000, { subscriptionId: 'sub_2', facts: { status: 'active', plan: 'business' } }))).toBe('applied');
    expect(s).toMatchObject({ subscriptionId: 'sub_2', status: 'active', plan: 'business' });
  });

  it('remembers a bounded number of event ids', () => {
    const s = initialState('cus_1');
    for (let i = 0; i < REMEMBERED_EVENT_IDS + 10; i++) applyEvent(s, ev('customer.subscription.updated', i, { facts: { status: 'active' } }));
    expect(s.recentEventIds).toHaveLength(REMEMBERED_EVENT_IDS);
  });
});

describe('planAt and nextChangeAt', () => {
  it('keeps the paid plan through the grace period of past_due and the paid period of canceled', () => {
    const s = initialState('cus_1');
    applyEvent(s, ev('customer.subscription.created', 0, { facts: { status: 'active', plan: 'business', currentPeriodEnd: 30 * DAY } }));
    expect(planAt(s, DAY, GRACE)).toBe('business');
    applyEvent(s, ev('invoice.payment_failed', DAY));
    expect(planAt(s, DAY + GRACE - 1, GRACE)).toBe('business');
    expect(planAt(s, DAY + GRACE, GRACE)).toBe('starter');
    expect(nextChangeAt(s, 2 * DAY, GRACE)).toBe(DAY + GRACE);
    expect(nextChangeAt(s, DAY + GRACE, GRACE)).toBeNull();
    applyEvent(s, ev('customer.subscription.deleted', 2 * DAY, { facts: { status: 'canceled', currentPeriodEnd: 30 * DAY } }));
    expect(planAt(s, 30 * DAY - 1, GRACE)).toBe('business');
    expect(planAt(s, 30 * DAY, GRACE)).toBe('starter');
    expect(nextChangeAt(s, 3 * DAY, GRACE)).toBe(30 * DAY);
  });

  it('gives Starter to every status that is not paid for', () => {
    for (const status of ['incomplete', 'incomplete_expired', 'unpaid', 'paused'] as const) {
      const s = initialState('cus_1');
      applyEvent(s, ev('customer.subscription.updated', 0, { facts: { status, plan: 'pro' } }));
      expect({ status, plan: planAt(s, 0, GRACE) }).toEqual({ status, plan: 'starter' });
    }
  });
});

describe('summariseEvent', () => {
  const now = Date.now();
  it('reads checkout, invoices and subscriptions of the current API version', () => {
    const checkout = summariseEvent(stripeEvent('checkout.session.completed', checkoutObject({ ...ids, userId: 'u1', plan: 'business' })), prices);
    expect(checkout).toMatchObject({ event: { customerId: 'cus_1', subscriptionId: 'sub_1', userId: 'u1', facts: { status: 'active', plan: 'business' }, wantsPeriod: true } });
    const pending = summariseEvent(stripeEvent('checkout.session.completed', checkoutObject({ ...ids, userId: 'u1', plan: 'pro', paid: false })), prices);
    expect(pending).toMatchObject({ event: { facts: { status: 'incomplete' } } });

    const invoice = invoiceObject({ ...ids, plan: 'pro', periodEnd: now + 30 * DAY, paid: false, attemptCount: 2, nextAttempt: now + DAY });
    const failed = summariseEvent(stripeEvent('invoice.payment_failed', invoice), prices);
    expect(failed).toMatchObject({ event: { subscriptionId: 'sub_1', facts: { plan: 'pro' }, failure: { invoiceId: invoice.id, attemptCount: 2, nextAttemptAt: Math.floor((now + DAY) / 1000) * 1000 } } });
    const paid = summariseEvent(stripeEvent('invoice.payment_succeeded', { ...invoice, status: 'paid' }), prices);
    expect(paid).toMatchObject({ event: { facts: { currentPeriodEnd: Math.floor((now + 30 * DAY) / 1000) * 1000 } } });

    const sub = summariseEvent(stripeEvent('customer.subscription.updated', subscriptionObject({ ...ids, status: 'past_due', plan: 'business', periodEnd: now, cancelAtPeriodEnd: true })), prices);
    expect(sub).toMatchObject({ event: { facts: { status: 'past_due', plan: 'business', cancelAtPeriodEnd: true } } });
    const deleted = summariseEvent(stripeEvent('customer.subscription.deleted', subscriptionObject({ ...ids, status: 'active', plan: 'pro', periodEnd: now })), prices);
    expect(deleted).toMatchObject({ event: { facts: { status: 'canceled' } } });
  });

  it('says why an event is not for the workflow', () => {
    expect(summariseEvent(stripeEvent('charge.refunded', {}), prices)).toEqual({ ignored: 'event type charge.refunded is not used' });
    expect(summariseEvent(stripeEvent('checkout.session.completed', { mode: 'payment', customer: 'cus_1' }), prices)).toMatchObject({ ignored: expect.stringMatching(/not a subscription/) });
    expect(summariseEvent(stripeEvent('invoice.payment_failed', { id: 'in_1', customer: 'cus_1' }), prices)).toMatchObject({ ignored: expect.stringMatching(/subscription invoice/) });
    expect(summariseEvent(stripeEvent('customer.subscription.updated', { id: 'sub_1', customer: 'cus_1', status: 'sleeping' }), prices)).toMatchObject({ ignored: expect.stringMatching(/unknown subscription status/) });
  });

  it('maps prices to plans, and nothing else', () => {
    expect(planOfPrice(prices.pro, prices)).toBe('pro');
    expect(planOfPrice(prices.business, prices)).toBe('business');
    expect(planOfPrice('price_other', prices)).toBeNull();
  });
});

it('redacts Stripe keys and webhook secrets from messages', () => {
  expect(redactStripeSecrets("Authorization was 'Bearer sk_test_abc123' and whsec_x-y_z")).toBe("Authorization was 'Bearer [redacted]' and [redacted]");
});
