/**
 * Billing (issue 13) on the running stack: the news API in-process, stripe-mock as Stripe's API,
 * the test run's worker applying events in each customer's subscription workflow, FerretDB.
 * Events are signed with the `stripe` library's test-header helper.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import request from 'supertest';
import type { StripeEventDoc } from '../../models/billing/billing.repo';
import type { Plan } from '../../models/shared/plan.rules';
import { killGroup, startOwnWorker } from '../helpers/processes';
import { checkoutObject, deliver, invoiceObject, newIds, stripeEvent, subscriptionObject } from '../helpers/billing';
import { accountWithKey, startNewsService, withKey, type NewsService } from '../helpers/news';
import { CLOSED_PORT, eventually, startTestService, testConfig, tokenFor } from '../helpers/service';
import { makeNewsDeps, newsService } from '../../api/news/service';
import { TASK_QUEUES, taskQueueName } from '../../workflows/ids';
import { billingRelayWorkflow } from '../../workflows/billing/relay.workflow';

jest.setTimeout(120_000);

let svc: NewsService;
beforeAll(async () => {
  svc = await startNewsService();
});
afterAll(async () => {
  await svc?.close();
});

const DAY = 86_400_000;
const planOf = async (userId: string) => (await svc.deps.users.findById(userId))?.plan;
const storedEvent = (id: string) => svc.deps.mongo.conn.db!.collection<StripeEventDoc>('stripe_events').findOne({ _id: id });
const me = async (jwt: string) => (await request(svc.callback).get('/api/subscriptions/me').set('Authorization', `Bearer ${jwt}`).expect(200)).body.data;

/** An account (with a key on `plan`) linked to a fresh Stripe customer, as a checkout would leave it. */
async function customerAccount(plan: Plan = 'starter') {
  const account = await accountWithKey(svc, plan);
  const ids = newIds();
  await svc.deps.billing.linkCustomer(account.userId, ids.customerId, null);
  return { ...account, ...ids };
}

/** Delivers checkout.session.completed for Pro (or `plan`) and waits for the account to have it. */
async function subscribe(a: Awaited<ReturnType<typeof customerAccount>>, plan: 'pro' | 'business' = 'pro', created = Date.now() - 60_000) {
  await deliver(svc.callback, stripeEvent('checkout.session.completed', checkoutObject({ ...a, plan }), { created })).expect(200);
  expect(await eventually(() => planOf(a.userId), plan)).toBe(plan);
}

describe('checkout and self-service', () => {
  it('creates the Stripe customer once per account, answers the Checkout URL, opens the portal, reads the subscription', async () => {
    const userId = `billing-${randomUUID().slice(0, 8)}`;
    const jwt = await tokenFor(userId, [], `${userId}@example.com`);
    const post = (path: string, body?: object) => request(svc.callback).post(path).set('Authorization', `Bearer ${jwt}`).send(body);

    await post('/api/subscriptions/portal').expect(404);
    expect(await me(jwt)).toMatchObject({ status: 'none', plan: 'starter', customerId: null });

    // Five checkouts at once: one Stripe customer stands for the account.
    const started = await Promise.all(Array.from({ length: 5 }, (_, i) => post('/api/subscriptions/checkout', { plan: i % 2 ? 'pro' : 'business' })));
    for (const res of started) {
      expect(res.status).toBe(201);
      expect(res.body.data.url).toMatch(/^https:\/\//);
      expect(res.body.data.sessionId).toMatch(/^cs_/);
    }
    const links = await svc.deps.mongo.conn.db!.collection('billing_customers').find({ _id: userId as never }).toArray();
    expect(links).toHaveLength(1);
    expect(links[0]!.customerId).toMatch(/^cus_/);
    expect(links[0]!.email).toBe(`${userId}@example.com`);

    const portal = await post('/api/subscriptions/portal').expect(200);
    expect(portal.body.data.url).toMatch(/^https:\/\//);
    expect(await me(jwt)).toMatchObject({ status: 'none', plan: 'starter', customerId: links[0]!.customerId });

    // Paid: the account has a subscription; another checkout is refused, the portal is where it changes.
    await deliver(svc.callback, stripeEvent('checkout.session.completed', checkoutObject({ customerId: links[0]!.customerId, subscriptionId: `sub_${randomUUID().slice(0, 12)}`, userId, plan: 'business' }))).expect(200);
    expect(await eventually(async () => (await me(jwt)).status, 'active')).toBe('active');
    expect(await me(jwt)).toMatchObject({ plan: 'business', subscribedPlan: 'business', status: 'active' });
    const again = await post('/api/subscriptions/checkout', { plan: 'pro' }).expect(409);
    expect(again.body).toMatchObject({ success: false, statusCode: 409, error: expect.stringMatching(/portal/) });
  });

  it('refuses a checkout for a plan that cannot be bought, and requests without a token', async () => {
    const jwt = await tokenFor(`billing-${randomUUID().slice(0, 8)}`);
    for (const plan of ['starter', 'enterprise', undefined]) {
      const res = await request(svc.callback).post('/api/subscriptions/checkout').set('Authorization', `Bearer ${jwt}`).send({ plan }).expect(400);
      expect(res.body).toMatchObject({ success: false, statusCode: 400 });
    }
    await request(svc.callback).post('/api/subscriptions/checkout').send({ plan: 'pro' }).expect(401);
    await request(svc.callback).get('/api/subscriptions/me').expect(401);
  });
});

describe('the events of spec §3.2 move the plan', () => {
  it('checkout completed activates; a renewal extends the period; a failed payment is past_due within the grace period; an update changes the plan; deletion cancels', async () => {
    const a = await customerAccount();
    const t0 = Date.now() - 10 * 60_000;
    await subscribe(a, 'pro', t0);
    expect(await me(a.jwt)).toMatchObject({ status: 'active', plan: 'pro', subscriptionId: a.subscriptionId });

    const periodEnd = t0 + 30 * DAY;
    await deliver(svc.callback, stripeEvent('invoice.payment_succeeded', invoiceObject({ ...a, plan: 'pro', periodEnd, paid: true }), { created: t0 + 1000 })).expect(200);
    expect(await eventually(async () => (await me(a.jwt)).currentPeriodEnd, new Date(Math.floor(periodEnd / 1000) * 1000).toISOString())).toBeTruthy();

    const nextAttempt = t0 + 3 * DAY;
    const failed = invoiceObject({ ...a, plan: 'pro', periodEnd: periodEnd + 30 * DAY, paid: false, attemptCount: 1, nextAttempt });
    await deliver(svc.callback, stripeEvent('invoice.payment_failed', failed, { created: t0 + 2000 })).expect(200);
    const pastDue = await eventually(async () => (await me(a.jwt)).status, 'past_due');
    expect(pastDue).toBe('past_due');
    const view = await me(a.jwt);
    // Kept for the grace period (7 days by default), counted from the failure.
    expect(view).toMatchObject({ plan: 'pro', subscribedPlan: 'pro', lastPaymentFailure: { invoiceId: failed.id, attemptCount: 1, nextAttemptAt: new Date(Math.floor(nextAttempt / 1000) * 1000).toISOString() } });
    expect(Date.parse(view.graceEndsAt)).toBe(Math.floor((t0 + 2000) / 1000) * 1000 + testConfig().billing.graceMs);
    expect(await planOf(a.userId)).toBe('pro');

    await deliver(svc.callback, stripeEvent('customer.subscription.updated', subscriptionObject({ ...a, status: 'active', plan: 'business', periodEnd }), { created: t0 + 3000 })).expect(200);
    expect(await eventually(() => planOf(a.userId), 'business')).toBe('business');
    expect(await me(a.jwt)).toMatchObject({ status: 'active', graceEndsAt: null });

    // Deleted when the paid period is over: Starter.
    await deliver(svc.callback, stripeEvent('customer.subscription.deleted', subscriptionObject({ ...a, status: 'canceled', plan: 'business', periodEnd: Date.now() - 1000 }), { created: t0 + 4000 })).expect(200);
    expect(await eventually(() => planOf(a.userId), 'starter')).toBe('starter');
    expect(await me(a.jwt)).toMatchObject({ status: 'canceled', plan: 'starter', eventsApplied: 5 });
  });

  it('customer.subscription.created sets the status Stripe gives (trialing is paid for; incomplete is not)', async () => {
    const trial = await customerAccount();
    await deliver(svc.callback, stripeEvent('customer.subscription.created', subscriptionObject({ ...trial, status: 'trialing', plan: 'pro', periodEnd: Date.now() + 14 * DAY }))).expect(200);
    expect(await eventually(() => planOf(trial.userId), 'pro')).toBe('pro');

    const unpaid = await customerAccount('pro');
    await deliver(svc.callback, stripeEvent('customer.subscription.created', subscriptionObject({ ...unpaid, status: 'incomplete', plan: 'business', periodEnd: Date.now() + 30 * DAY }))).expect(200);
    expect(await eventually(async () => (await me(unpaid.jwt)).status, 'incomplete')).toBe('incomplete');
    expect(await eventually(() => planOf(unpaid.userId), 'starter')).toBe('starter');
  });

  it('a subscription canceled at the period end keeps its plan until then', async () => {
    const a = await customerAccount();
    await subscribe(a, 'business');
    const periodEnd = Date.now() + 20 * DAY;
    await deliver(svc.callback, stripeEvent('customer.subscription.updated', subscriptionObject({ ...a, status: 'active', plan: 'business', periodEnd, cancelAtPeriodEnd: true }))).expect(200);
    expect(await eventually(async () => (await me(a.jwt)).cancelAtPeriodEnd, true)).toBe(true);
    // Canceled now, paid until the period's end.
    await deliver(svc.callback, stripeEvent('customer.subscription.deleted', subscriptionObject({ ...a, status: 'canceled', plan: 'business', periodEnd }))).expect(200);
    expect(await eventually(async () => (await me(a.jwt)).status, 'canceled')).toBe('canceled');
    expect(await me(a.jwt)).toMatchObject({ plan: 'business' });
    expect(await planOf(a.userId)).toBe('business');
  });
});

describe('deliveries Stripe may make', () => {
  it('the same event delivered five times at once is stored once and applied once', async () => {
    const a = await customerAccount();
    await subscribe(a);
    const failed = stripeEvent('invoice.payment_failed', invoiceObject({ ...a, plan: 'pro', periodEnd: Date.now() + 30 * DAY, paid: false }));
    const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(svc.callback, failed)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.filter((r) => r.body.data.duplicate === false)).toHaveLength(1);
    expect(await eventually(async () => (await me(a.jwt)).status, 'past_due')).toBe('past_due');
    // And five more, one after the other, once it was applied.
    for (let i = 0; i < 5; i++) expect((await deliver(svc.callback, failed).expect(200)).body.data).toMatchObject({ duplicate: true, handled: true });
    expect(await storedEvent(failed.id)).toMatchObject({ type: 'invoice.payment_failed', customerId: a.customerId, deliveries: 10 });
    expect((await me(a.jwt)).eventsApplied).toBe(2); // the checkout and this failure
  });

  it('customer.subscription.deleted delivered before the update that preceded it: the subscription stays canceled', async () => {
    const a = await customerAccount();
    const t = Date.now() - 60_000;
    await subscribe(a, 'business', t);
    const update = stripeEvent('customer.subscription.updated', subscriptionObject({ ...a, status: 'active', plan: 'pro', periodEnd: t + 30 * DAY }), { created: t + 5_000 });
    const deletion = stripeEvent('customer.subscription.deleted', subscriptionObject({ ...a, status: 'canceled', plan: 'pro', periodEnd: t }), { created: t + 9_000 });
    await deliver(svc.callback, deletion).expect(200);
    expect(await eventually(() => planOf(a.userId), 'starter')).toBe('starter');
    await deliver(svc.callback, update).expect(200);
    // A late payment of the canceled subscription does not bring it back either.
    await deliver(svc.callback, stripeEvent('invoice.payment_succeeded', invoiceObject({ ...a, plan: 'business', periodEnd: t + 30 * DAY, paid: true }), { created: t + 10_000 })).expect(200);
    await eventually(async () => Boolean((await storedEvent(update.id))?.forwardedAt), true);
    // Whether or not the workflow has taken the last two yet, they cannot change a canceled subscription.
    const view = await me(a.jwt);
    expect(view).toMatchObject({ status: 'canceled', plan: 'starter', subscribedPlan: 'pro', eventsApplied: 2 });
    expect(await planOf(a.userId)).toBe('starter');
  });

  it('refuses a forged signature, an old timestamp and a body altered after signing (400), storing and changing nothing', async () => {
    const a = await customerAccount('business');
    const event = stripeEvent('customer.subscription.deleted', subscriptionObject({ ...a, status: 'canceled', plan: 'business', periodEnd: Date.now() - DAY }));
    const cases = [
      { name: 'forged', options: { secret: 'whsec_not_the_endpoint_secret' } },
      { name: 'old', options: { timestamp: Math.floor(Date.now() / 1000) - 600 } },
      { name: 'altered', options: { tamper: (b: string) => b.replace('"canceled"', '"active"') } },
      { name: 'missing', options: { signature: null } },
      { name: 'garbage', options: { signature: 't=1,v1=abc' } },
    ];
    for (const c of cases) {
      const res = await deliver(svc.callback, event, c.options);
      expect({ name: c.name, status: res.status, body: res.body }).toEqual({ name: c.name, status: 400, body: expect.objectContaining({ success: false, statusCode: 400, error: expect.stringMatching(/signature/i) }) });
    }
    expect(await storedEvent(event.id)).toBeNull();
    expect(await planOf(a.userId)).toBe('business');
    // The secret is in no answer.
    const secret = testConfig().billing.webhookSecret!;
    const res = await deliver(svc.callback, event, { secret: 'whsec_other' });
    expect(JSON.stringify(res.body)).not.toContain(secret);
  });

  it('acknowledges events it does not use, storing them', async () => {
    const event = stripeEvent('charge.refunded', { id: 'ch_1', object: 'charge', customer: 'cus_x' });
    const res = await deliver(svc.callback, event).expect(200);
    expect(res.body.data).toEqual({ received: true, eventId: event.id, duplicate: false, handled: false });
    expect(await storedEvent(event.id)).toMatchObject({ ignored: expect.stringMatching(/not used/) });
  });
});

describe('the plan takes effect on every API process within the key cache time', () => {
  it("a Business key's limit and modules are Starter's once API_KEY_CACHE_SECONDS has passed, on every process", async () => {
    const a = await customerAccount();
    await subscribe(a, 'business');
    // Two API processes that each authenticated the key on the Business plan (and keep it 1 s).
    const apis = [await startNewsService({ API_KEY_CACHE_SECONDS: '1' }), await startNewsService({ API_KEY_CACHE_SECONDS: '1' })];
    try {
      for (const api of apis) {
        const before = await withKey(api, a.key, '/api/articles?limit=1&include=sentiment').expect(200);
        expect(before.headers['x-ratelimit-limit']).toBe('2000');
      }
      await deliver(svc.callback, stripeEvent('customer.subscription.deleted', subscriptionObject({ ...a, status: 'canceled', plan: 'business', periodEnd: Date.now() - 1000 }))).expect(200);
      await eventually(() => planOf(a.userId), 'starter');
      for (const api of apis) {
        const status = () => withKey(api, a.key, '/api/articles?limit=1&include=sentiment').then((r) => r.status);
        expect(await eventually(status, 403, 5_000)).toBe(403);
        const after = await withKey(api, a.key, '/api/articles?limit=1&include=sentiment').expect(403);
        expect(after.headers['x-ratelimit-limit']).toBe('100');
        expect(after.body.error).toMatch(/sentiment/);
      }
    } finally {
      for (const api of apis) await api.close();
    }
  });
});

describe('infrastructure faults', () => {
  it('Temporal down: the event is answered and kept, and the relay hands it to its workflow once Temporal is back', async () => {
    const a = await customerAccount();
    const down = await startNewsService({ TEMPORAL_ADDRESS: `127.0.0.1:${CLOSED_PORT}` });
    const event = stripeEvent('checkout.session.completed', checkoutObject({ ...a, plan: 'pro' }));
    try {
      const res = await deliver(down.callback, event).expect(200);
      expect(res.body.data).toEqual({ received: true, eventId: event.id, duplicate: false, handled: true });
    } finally {
      await down.close();
    }
    expect(await storedEvent(event.id)).toMatchObject({ forwardedAt: null, deliveries: 1 });
    expect(await planOf(a.userId)).toBe('starter');
    // What the relay's schedule runs every minute (its age limit lifted so the test need not wait).
    const relayId = `billing-relay-test-${randomUUID().slice(0, 8)}`;
    const relay = await svc.deps.temporal.client.workflow.execute(billingRelayWorkflow, {
      workflowId: relayId,
      taskQueue: taskQueueName(testConfig().temporal.taskQueuePrefix, TASK_QUEUES.billing),
      args: [{ olderThanMs: 0, limit: 1_000 }],
    });
    expect(relay.forwarded).toBeGreaterThanOrEqual(1);
    // Its history is the relay's replay fixture (kept up to date with RECORD_HISTORY=1).
    if (process.env.RECORD_HISTORY === '1') {
      const history = await svc.deps.temporal.client.workflow.getHandle(relayId).fetchHistory();
      writeFileSync(path.resolve(__dirname, '../fixtures/histories/billingRelayWorkflow.json'), `${historyToJSON(history)}\n`);
    }
    expect(await eventually(() => planOf(a.userId), 'pro')).toBe('pro');
    expect(await storedEvent(event.id)).toMatchObject({ forwardedAt: expect.any(Date) });
  });

  it('MongoDB down: 503 (Stripe delivers again later), nothing handed over', async () => {
    const a = await customerAccount();
    const down = await startTestService(newsService, makeNewsDeps, { config: testConfig({ MONGODB_URI: `mongodb://127.0.0.1:${CLOSED_PORT}/` }), waitForMongo: false });
    const event = stripeEvent('checkout.session.completed', checkoutObject({ ...a, plan: 'pro' }));
    try {
      const res = await deliver(down.callback, event).expect(503);
      expect(res.body).toMatchObject({ success: false, statusCode: 503 });
    } finally {
      await down.close();
    }
    expect(await storedEvent(event.id)).toBeNull();
    await new Promise((r) => setTimeout(r, 500));
    expect(await planOf(a.userId)).toBe('starter');
  });
});

describe('a worker that is down while events arrive', () => {
  it('loses nothing: the events are answered, stored and applied when a worker comes back', async () => {
    const prefix = `billing-down-${randomUUID().slice(0, 6)}-`;
    const api = await startNewsService({ TASK_QUEUE_PREFIX: prefix });
    let worker;
    try {
      const a = await accountWithKey(api, 'starter');
      const ids = newIds();
      await api.deps.billing.linkCustomer(a.userId, ids.customerId, null);
      const t = Date.now() - 60_000;
      const events = [
        stripeEvent('checkout.session.completed', checkoutObject({ ...ids, userId: a.userId, plan: 'pro' }), { created: t }),
        stripeEvent('customer.subscription.updated', subscriptionObject({ ...ids, status: 'active', plan: 'business', periodEnd: t + 30 * DAY }), { created: t + 1000 }),
      ];
      for (const e of events) expect((await deliver(api.callback, e).expect(200)).body.data).toMatchObject({ handled: true, duplicate: false });
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await api.deps.users.findById(a.userId)).toMatchObject({ plan: 'starter' });

      worker = await startOwnWorker(prefix, testConfig(), { WORKER_QUEUES: 'platform-ops,billing' });
      expect(await eventually(async () => (await api.deps.users.findById(a.userId))?.plan, 'business')).toBe('business');
    } finally {
      killGroup(worker);
      await api.close();
    }
  });
});
