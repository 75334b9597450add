/**
 * subscriptionWorkflow on the time-skipping test server with its activities mocked (no Stripe, no
 * database): Stripe events signalled with signal-with-start (stripeEventSignal), the plan it
 * writes to the account, the period it asks Stripe for, grace periods and paid periods ending on
 * durable timers (days skipped with suite.env.sleep), duplicates and stale events, the subscription
 * query. Continue-as-new with the state carried: subscription-continue-as-new.test.ts, on the dev server.
 */
import { ApplicationFailure } from '@temporalio/common';
import { activities, customerOn, plansSet } from '../helpers/subscription';
import { quiescent, until, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const GRACE = 7 * DAY;

const suite = workflowSuite();

const customer = customerOn(suite, GRACE);

it('a completed checkout sets the paid plan on the account it names and learns the period from Stripe', async () => {
  const periodEnd = Date.UTC(2027, 0, 1);
  const acts = activities({ fetched: async (id) => ({ subscriptionId: id, customerId: c.customerId, currentPeriodEnd: periodEnd, plan: 'pro' }) });
  const c = await customer(acts);
  await c.run(async () => {
    const at = await suite.env.currentTimeMs();
    await c.send(c.event('checkout.session.completed', at, { facts: { status: 'active', plan: 'pro' }, wantsPeriod: true }));

    expect(await until(() => plansSet(acts), (p) => p.length > 0)).toEqual(['user-1:pro']);
    expect(acts.fetchSubscription.mock.calls).toEqual([[c.subscriptionId]]);
    expect(acts.accountOf).not.toHaveBeenCalled(); // the event named the account
    expect(await c.view()).toEqual({
      customerId: c.customerId,
      subscriptionId: c.subscriptionId,
      status: 'active',
      plan: 'pro',
      subscribedPlan: 'pro',
      currentPeriodEnd: new Date(periodEnd).toISOString(),
      cancelAtPeriodEnd: false,
      graceEndsAt: null,
      lastPaymentFailure: null,
      eventsApplied: 1,
      asOf: new Date(at).toISOString(),
    });
  });
});

it('an event naming no account uses the account linked at checkout', async () => {
  const acts = activities({ account: 'linked-user' });
  const c = await customer(acts);
  await c.run(async () => {
    await c.send(c.event('customer.subscription.created', await suite.env.currentTimeMs(), { userId: null, facts: { status: 'active', plan: 'business', currentPeriodEnd: Date.UTC(2027, 0, 1) } }));

    expect(await until(() => plansSet(acts), (p) => p.length > 0)).toEqual(['linked-user:business']);
    expect(acts.accountOf.mock.calls).toEqual([[c.customerId]]);
  });
});

it('with no account linked at all, no plan is written and the subscription is still tracked', async () => {
  const acts = activities({ account: null });
  const c = await customer(acts);
  await c.run(async () => {
    await c.send(c.event('customer.subscription.created', await suite.env.currentTimeMs(), { userId: null, facts: { status: 'active', plan: 'pro' } }));

    expect(await until(() => acts.accountOf.mock.calls.length, (n) => n > 0)).toBe(1);
    expect(await until(() => c.view(), (v) => v.eventsApplied === 1)).toMatchObject({ status: 'active', subscribedPlan: 'pro' });
    expect(acts.setAccountPlan).not.toHaveBeenCalled();
  });
});

it('when Stripe cannot be asked (not configured) the period stays unknown, without retries, and the plan is still set', async () => {
  const acts = activities({
    fetched: async () => {
      throw ApplicationFailure.create({ type: 'BillingNotConfigured', message: 'no Stripe key is configured on this worker' });
    },
  });
  const c = await customer(acts);
  await c.run(async () => {
    await c.send(c.event('checkout.session.completed', await suite.env.currentTimeMs(), { facts: { status: 'active', plan: 'pro' }, wantsPeriod: true }));

    expect(await until(() => plansSet(acts), (p) => p.length > 0)).toEqual(['user-1:pro']);
    expect(acts.fetchSubscription).toHaveBeenCalledTimes(1);
    expect(await c.view()).toMatchObject({ status: 'active', plan: 'pro', currentPeriodEnd: null });
  });
});

it('a subscription Stripe gives back for another customer teaches nothing', async () => {
  const acts = activities({ fetched: async (id) => ({ subscriptionId: id, customerId: 'cus_someone_else', currentPeriodEnd: Date.UTC(2027, 0, 1), plan: 'business' }) });
  const c = await customer(acts);
  await c.run(async () => {
    await c.send(c.event('checkout.session.completed', await suite.env.currentTimeMs(), { facts: { status: 'active', plan: 'pro' }, wantsPeriod: true }));

    expect(await until(() => plansSet(acts), (p) => p.length > 0)).toEqual(['user-1:pro']);
    expect(acts.fetchSubscription).toHaveBeenCalledTimes(1);
    expect(await c.view()).toMatchObject({ subscribedPlan: 'pro', currentPeriodEnd: null });
  });
});

it('past_due keeps the paid plan for the grace period, then drops the account to Starter', async () => {
  const acts = activities();
  const c = await customer(acts);
  await c.run(async () => {
    await c.send(c.event('customer.subscription.created', await suite.env.currentTimeMs(), { facts: { status: 'active', plan: 'business' } }));
    await until(() => plansSet(acts), (p) => p.length > 0);

    const failedAt = await suite.env.currentTimeMs();
    const failure = { at: failedAt, invoiceId: 'in_1', attemptCount: 1, nextAttemptAt: failedAt + 3 * DAY, message: 'card declined' };
    await c.send(c.event('invoice.payment_failed', failedAt, { failure }));
    expect(await until(() => c.view(), (v) => v.status === 'past_due')).toMatchObject({
      status: 'past_due',
      plan: 'business',
      graceEndsAt: new Date(failedAt + GRACE).toISOString(),
      lastPaymentFailure: { at: new Date(failedAt).toISOString(), invoiceId: 'in_1', attemptCount: 1, nextAttemptAt: new Date(failedAt + 3 * DAY).toISOString(), message: 'card declined' },
    });

    await suite.env.sleep(GRACE - HOUR);
    await quiescent(c.handle);
    expect(plansSet(acts)).toEqual(['user-1:business']); // an hour before the end: still paid

    await suite.env.sleep(2 * HOUR);
    expect(await until(() => plansSet(acts), (p) => p.length > 1)).toEqual(['user-1:business', 'user-1:starter']);
    expect(await c.view()).toMatchObject({ status: 'past_due', plan: 'starter', subscribedPlan: 'business' });
  });
});

it('a payment within the grace period keeps the paid plan after the grace period would have ended', async () => {
  const acts = activities();
  const c = await customer(acts);
  await c.run(async () => {
    await c.send(c.event('customer.subscription.created', await suite.env.currentTimeMs(), { facts: { status: 'active', plan: 'pro' } }));
    await until(() => plansSet(acts), (p) => p.length > 0);
    await c.send(c.event('invoice.payment_failed', await suite.env.currentTimeMs()));
    await until(() => c.view(), (v) => v.status === 'past_due');

    await suite.env.sleep(3 * DAY);
    await c.send(c.event('invoice.payment_succeeded', await suite.env.currentTimeMs()));
    expect(await until(() => c.view(), (v) => v.status === 'active')).toMatchObject({ status: 'active', plan: 'pro', graceEndsAt: null });

    await suite.env.sleep(GRACE);
    await c.send(c.event('customer.subscription.updated', await suite.env.currentTimeMs(), { facts: { status: 'active', plan: 'pro' } }));
    await until(() => c.view(), (v) => v.eventsApplied === 4);
    expect(plansSet(acts)).toEqual(['user-1:pro']);
  });
});

it('a subscription canceled at the end of its period keeps the paid plan until that end, then Starter', async () => {
  const acts = activities();
  const c = await customer(acts);
  await c.run(async () => {
    const start = await suite.env.currentTimeMs();
    const periodEnd = start + 10 * DAY;
    await c.send(c.event('customer.subscription.created', start, { facts: { status: 'active', plan: 'pro', currentPeriodEnd: periodEnd } }));
    await c.send(c.event('customer.subscription.deleted', start + 1, { facts: { status: 'canceled', plan: 'pro', currentPeriodEnd: periodEnd } }));
    expect(await until(() => c.view(), (v) => v.status === 'canceled')).toMatchObject({ status: 'canceled', plan: 'pro', currentPeriodEnd: new Date(periodEnd).toISOString() });

    await suite.env.sleep(10 * DAY - HOUR);
    await quiescent(c.handle);
    expect(plansSet(acts)).toEqual(['user-1:pro']);
    await suite.env.sleep(2 * HOUR);
    expect(await until(() => plansSet(acts), (p) => p.length > 1)).toEqual(['user-1:pro', 'user-1:starter']);

    // Canceled is final: a late payment of the old subscription brings nothing back.
    await c.send(c.event('invoice.payment_succeeded', await suite.env.currentTimeMs()));
    await quiescent(c.handle);
    expect(await c.view()).toMatchObject({ status: 'canceled', plan: 'starter', eventsApplied: 2 });
    expect(plansSet(acts)).toEqual(['user-1:pro', 'user-1:starter']);
  });
});

it('a redelivered event and an event older than the newest applied change nothing', async () => {
  const acts = activities();
  const c = await customer(acts);
  await c.run(async () => {
    const at = await suite.env.currentTimeMs();
    const created = c.event('customer.subscription.created', at, { facts: { status: 'active', plan: 'pro' } });
    await c.send(created);
    await c.send(c.event('customer.subscription.updated', at + 5_000, { facts: { status: 'active', plan: 'business' } }));
    await c.send(created); // redelivered
    await c.send(c.event('customer.subscription.updated', at + 1_000, { facts: { status: 'past_due', plan: 'pro' } })); // stale
    // A last event to know the ones before it were handled.
    const marker = c.event('customer.subscription.updated', at + 6_000, { facts: { cancelAtPeriodEnd: true } });
    await c.send(marker);

    expect(await until(() => c.view(), (v) => v.cancelAtPeriodEnd)).toMatchObject({ status: 'active', subscribedPlan: 'business', plan: 'business', eventsApplied: 3, asOf: new Date(at + 6_000).toISOString() });
    expect(plansSet(acts).at(-1)).toBe('user-1:business');
    expect(plansSet(acts)).not.toContain('user-1:starter');
  });
});

it('writing the plan is retried through a database outage', async () => {
  let attempts = 0;
  const acts = activities({
    setAccountPlan: async () => {
      attempts += 1;
      if (attempts <= 2) throw new Error('MongoNetworkError: connection refused');
    },
  });
  const c = await customer(acts);
  await c.run(async () => {
    await c.send(c.event('customer.subscription.created', await suite.env.currentTimeMs(), { facts: { status: 'active', plan: 'pro' } }));
    await until(() => attempts, (n) => n >= 1);
    await suite.env.sleep('10 seconds'); // the retries' backoff (1 s, 2 s), skipped
    expect(await until(() => attempts, (n) => n >= 3)).toBe(3);
    expect(acts.setAccountPlan.mock.calls.every(([call]) => call.userId === 'user-1' && call.plan === 'pro')).toBe(true);
  });
});
