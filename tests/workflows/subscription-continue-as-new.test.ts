/**
 * subscriptionWorkflow continuing as new after maxEventsPerRun events, carrying its state and the
 * event ids it has seen, on the stack's Temporal dev server with its activities mocked. Not on the
 * time-skipping server: nothing here waits on a clock, and that server does not make continue-as-
 * new atomic (temporalio/sdk-java#1537); there a signal meeting it once stalled this test in CI.
 */
import { activities, customerOn, plansSet } from '../helpers/subscription';
import { until, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const suite = workflowSuite({ server: 'dev' });
const customer = customerOn(suite, 7 * 24 * 3_600_000);

it('continues as new after maxEventsPerRun events, carrying its state and the event ids it has seen', async () => {
  const acts = activities();
  const c = await customer(acts, { maxEventsPerRun: 2 });
  await c.run(async () => {
    await c.send(c.event('customer.subscription.created', Date.now(), { facts: { status: 'active', plan: 'pro' } }));
    await until(() => c.view(), (v) => v.eventsApplied === 1);
    const firstRunId = (await c.handle.describe()).runId;
    const second = c.event('customer.subscription.updated', Date.now() + 1, { facts: { status: 'active', plan: 'business' } });
    await c.send(second);

    const nextRun = await until(async () => (await c.handle.describe()).runId, (id) => id !== firstRunId);
    expect(nextRun).not.toBe(firstRunId);
    expect(await c.view()).toMatchObject({ status: 'active', subscribedPlan: 'business', eventsApplied: 2 });
    const first = await suite.client.getHandle(c.handle.workflowId, firstRunId).describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');

    await c.send(second); // seen by the previous run: still a duplicate
    await c.send(c.event('customer.subscription.updated', Date.now() + 2, { facts: { cancelAtPeriodEnd: true } }));
    expect(await until(() => c.view(), (v) => v.cancelAtPeriodEnd)).toMatchObject({ subscribedPlan: 'business', eventsApplied: 3 });
    expect(plansSet(acts)).toEqual(['user-1:pro', 'user-1:business']);
  });
});
