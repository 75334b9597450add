/**
 * The subscription workflow's timers on Temporal's time-skipping test server (issue 13): a
 * past_due subscription keeps its paid plan for the grace period and then drops to Starter; a
 * payment within the grace period keeps it; a subscription canceled at its period's end keeps the
 * plan until then; and a long-lived workflow continues as new with its state (and the event ids
 * it has seen). Days pass in seconds; the plan is read from the real database.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowClient } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type mongoose from 'mongoose';
import { createBillingActivities } from '../../activities/billing.activities';
import { summariseEvent } from '../../models/billing/stripe-events';
import { createStripe } from '../../models/infra/stripe';
import type { SubscriptionView } from '../../models/billing/subscription.rules';
import type { Plan } from '../../models/shared/plan.rules';
import { createUserRepo } from '../../models/users/user.repo';
import { stripeEventSignal, subscriptionWorkflow } from '../../workflows/billing/subscription.workflow';
import { checkoutObject, invoiceObject, newIds, stripeEvent, subscriptionObject } from '../helpers/billing';
import { eventually, testConfig } from '../helpers/service';
import { timeSkippingWorker } from '../helpers/time-skipping';

jest.setTimeout(180_000);

const DAY = 86_400_000;
const GRACE = 7 * DAY;
let env: TestWorkflowEnvironment;
/** A plain client: the clock moves only when the test says (env.sleep), as in quiz-week.test.ts. */
let client: WorkflowClient;
let conn: mongoose.Connection;
let taskQueue: string;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ env, client, conn, taskQueue, close } = await timeSkippingWorker('billing-grace', (c) =>
    createBillingActivities({ conn: c, stripe: createStripe(testConfig()), prices: testConfig().billing.prices }),
  ));
});
afterAll(async () => {
  await close?.();
});

const users = () => createUserRepo(conn);
const planOf = async (userId: string) => (await users().findById(userId))?.plan;
const now = async () => await env.currentTimeMs();

async function send(customerId: string, event: ReturnType<typeof stripeEvent>, maxEventsPerRun?: number): Promise<void> {
  const summary = summariseEvent(event, testConfig().billing.prices);
  if (!('event' in summary)) throw new Error(summary.ignored);
  await client.signalWithStart(subscriptionWorkflow, {
    taskQueue,
    workflowId: `subscription-${customerId}`,
    args: [{ customerId, graceMs: GRACE, ...(maxEventsPerRun ? { maxEventsPerRun } : {}) }],
    signal: stripeEventSignal,
    signalArgs: [summary.event],
  });
}

const view = (customerId: string) => client.getHandle(`subscription-${customerId}`).query<SubscriptionView>('subscription');

/** A Pro subscriber: checkout completed at the server's now; waits for the plan. */
async function subscriber(plan: Exclude<Plan, 'starter'> = 'pro') {
  const ids = newIds();
  const userId = `grace-${randomUUID().slice(0, 8)}`;
  await users().setPlan(userId, 'starter');
  await send(ids.customerId, stripeEvent('checkout.session.completed', checkoutObject({ ...ids, userId, plan }), { created: await now() }));
  expect(await eventually(() => planOf(userId), plan)).toBe(plan);
  return { ...ids, userId };
}

it('past_due keeps the paid plan for the grace period, then drops to Starter', async () => {
  const a = await subscriber('business');
  const failedAt = await now();
  await send(a.customerId, stripeEvent('invoice.payment_failed', invoiceObject({ ...a, plan: 'business', periodEnd: failedAt + 30 * DAY, paid: false }), { created: failedAt }));
  expect(await eventually(async () => (await view(a.customerId)).status, 'past_due')).toBe('past_due');

  await env.sleep(GRACE - DAY); // six days on
  expect(await planOf(a.userId)).toBe('business');
  expect((await view(a.customerId)).plan).toBe('business');

  await env.sleep(2 * DAY); // eight days after the failure
  expect(await eventually(() => planOf(a.userId), 'starter')).toBe('starter');
  expect(await view(a.customerId)).toMatchObject({ status: 'past_due', plan: 'starter', subscribedPlan: 'business' });

  // Paid at last: the plan comes back.
  await send(a.customerId, stripeEvent('invoice.payment_succeeded', invoiceObject({ ...a, plan: 'business', periodEnd: (await now()) + 30 * DAY, paid: true }), { created: await now() }));
  expect(await eventually(() => planOf(a.userId), 'business')).toBe('business');
});

it('a payment within the grace period keeps the plan past its end', async () => {
  const a = await subscriber();
  const t = await now();
  await send(a.customerId, stripeEvent('invoice.payment_failed', invoiceObject({ ...a, plan: 'pro', periodEnd: t + 30 * DAY, paid: false }), { created: t }));
  expect(await eventually(async () => (await view(a.customerId)).status, 'past_due')).toBe('past_due');
  await env.sleep(3 * DAY);
  await send(a.customerId, stripeEvent('invoice.payment_succeeded', invoiceObject({ ...a, plan: 'pro', periodEnd: t + 30 * DAY, paid: true }), { created: await now() }));
  expect(await eventually(async () => (await view(a.customerId)).status, 'active')).toBe('active');
  await env.sleep(10 * DAY);
  expect(await view(a.customerId)).toMatchObject({ status: 'active', plan: 'pro', graceEndsAt: null });
  expect(await planOf(a.userId)).toBe('pro');
});

it('a subscription canceled before its period ends keeps the plan until the end of the period paid for', async () => {
  const a = await subscriber();
  const t = await now();
  const periodEnd = t + 12 * DAY;
  await send(a.customerId, stripeEvent('customer.subscription.deleted', subscriptionObject({ ...a, status: 'canceled', plan: 'pro', periodEnd }), { created: t }));
  expect(await eventually(async () => (await view(a.customerId)).status, 'canceled')).toBe('canceled');
  await env.sleep(11 * DAY);
  expect(await planOf(a.userId)).toBe('pro');
  await env.sleep(2 * DAY);
  expect(await eventually(() => planOf(a.userId), 'starter')).toBe('starter');
});

it('continues as new before its history grows large, keeping its state and the event ids it has seen', async () => {
  const ids = newIds();
  const userId = `grace-can-${randomUUID().slice(0, 8)}`;
  await users().setPlan(userId, 'starter');
  const t = await now();
  const first = stripeEvent('checkout.session.completed', checkoutObject({ ...ids, userId, plan: 'pro' }), { created: t });
  await send(ids.customerId, first, 3);
  const handle = client.getHandle(`subscription-${ids.customerId}`);
  const firstRun = (await handle.describe()).runId;
  for (let i = 1; i <= 4; i++) {
    const plan = i % 2 ? 'business' : 'pro';
    await send(ids.customerId, stripeEvent('customer.subscription.updated', subscriptionObject({ ...ids, status: 'active', plan, periodEnd: t + 30 * DAY }), { created: t + i * 1000 }), 3);
  }
  expect(await eventually(async () => (await view(ids.customerId)).eventsApplied, 5)).toBe(5);
  // The first event again, in the new run: still a duplicate.
  await send(ids.customerId, first, 3);
  await env.sleep(1_000);
  expect(await view(ids.customerId)).toMatchObject({ eventsApplied: 5, status: 'active', subscribedPlan: 'pro' });
  expect(await planOf(userId)).toBe('pro');
  expect((await handle.describe()).runId).not.toBe(firstRun);

  // The first run's history is the replay fixture of this workflow (kept up to date with RECORD_HISTORY=1).
  if (process.env.RECORD_HISTORY === '1') {
    const history = await client.getHandle(`subscription-${ids.customerId}`, firstRun).fetchHistory();
    writeFileSync(path.resolve(__dirname, '../fixtures/histories/subscriptionWorkflow.json'), `${historyToJSON(history)}\n`);
  }
});
