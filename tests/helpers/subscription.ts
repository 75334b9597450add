/**
 * subscriptionWorkflow's test fixtures: its activities as Jest mocks, and a customer whose Stripe
 * events are signalled with start to its workflow on a test suite's server (time-skipping or dev).
 */
import { randomUUID } from 'node:crypto';
import type { BillingEvent, HandledEvent } from '../../models/billing/subscription.rules';
import type { Plan } from '../../models/shared/plan.rules';
import { stripeEventSignal, subscriptionQuery, subscriptionWorkflow } from '../../workflows/billing/subscription.workflow';
import { workflowIds } from '../../workflows/ids';
import { mockedActivitiesWorker, runThenTerminate, type workflowSuite } from './time-skipping';

type Suite = ReturnType<typeof workflowSuite>;

type Fetched = { subscriptionId: string; customerId: string; currentPeriodEnd: number | null; plan: Plan | null };

export function activities(options: { account?: string | null; fetched?: (subscriptionId: string) => Promise<Fetched>; setAccountPlan?: (input: { userId: string; plan: Plan }) => Promise<void> } = {}) {
  return {
    accountOf: jest.fn(async (_customerId: string) => options.account ?? null),
    fetchSubscription: jest.fn(options.fetched ?? (async (subscriptionId: string): Promise<Fetched> => { throw new Error(`unexpected fetch of ${subscriptionId}`); })),
    setAccountPlan: jest.fn(options.setAccountPlan ?? (async (_input: { userId: string; plan: Plan }) => undefined)),
  };
}

/**
 * `customer(acts)`: a customer with a worker for its workflow on the suite's server; `send`
 * signals with start as the webhook relay does.
 */
export const customerOn = (suite: Suite, graceMs: number) => async (acts: ReturnType<typeof activities>, options: { maxEventsPerRun?: number } = {}) => {
  const customerId = `cus_${randomUUID().slice(0, 12)}`;
  const subscriptionId = `sub_${randomUUID().slice(0, 12)}`;
  const workflowId = workflowIds.subscription(customerId);
  const worker = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const handle = suite.client.getHandle(workflowId);
  let n = 0;
  return {
    customerId,
    subscriptionId,
    handle,
    event(type: HandledEvent, created: number, rest: Partial<BillingEvent> = {}): BillingEvent {
      return { id: `evt_${++n}_${randomUUID().slice(0, 6)}`, type, created, customerId, subscriptionId, userId: 'user-1', facts: {}, ...rest };
    },
    async send(event: BillingEvent): Promise<void> {
      await suite.client.signalWithStart(subscriptionWorkflow, {
        workflowId,
        taskQueue: worker.taskQueue,
        args: [{ customerId, graceMs, ...(options.maxEventsPerRun ? { maxEventsPerRun: options.maxEventsPerRun } : {}) }],
        signal: stripeEventSignal,
        signalArgs: [event],
      });
    },
    view: () => handle.query(subscriptionQuery),
    /** Runs the test with the worker polling; the workflow (which never ends) is terminated after. */
    run: (fn: () => Promise<void>) => runThenTerminate(worker, handle, fn),
  };
};

export const plansSet = (acts: ReturnType<typeof activities>) => acts.setAccountPlan.mock.calls.map(([c]) => `${c.userId}:${c.plan}`);

