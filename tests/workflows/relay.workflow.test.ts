/**
 * The webhook relays, billingRelayWorkflow (Stripe events → subscription workflows) and
 * whatsappRelayWorkflow (readers' messages → conversation workflows), on the time-skipping test
 * server with their activities mocked: each hands over once through its own activity, with the
 * schedule's defaults or the window and limit it is given, returns the count, retries a failing
 * hand-over with backoff (time skipped) and gives up after its bounded attempts, leaving the rest to
 * the next minute's run. Tested through the exported workflow and activity names only, whatever
 * implementation the two share.
 */
import { randomUUID } from 'node:crypto';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { billingRelayWorkflow, whatsappRelayWorkflow } from '../../workflows';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const suite = workflowSuite();

type Window = { olderThanMs: number; limit: number };
type Forward = (input: Window) => Promise<{ forwarded: number }>;

const relays = [
  { workflowType: 'billingRelayWorkflow', workflow: billingRelayWorkflow, activity: 'forwardPendingEvents', other: 'forwardPendingMessages', id: 'billing-event-relay' },
  { workflowType: 'whatsappRelayWorkflow', workflow: whatsappRelayWorkflow, activity: 'forwardPendingMessages', other: 'forwardPendingEvents', id: 'whatsapp-message-relay' },
] as const;

describe.each(relays)('$workflowType', ({ workflowType, workflow, activity, other, id }) => {
  /** Mocks of both relays' activities: the relay must call its own (`forward`) and never the other's. */
  function activities(forward: Forward = async () => ({ forwarded: 0 })) {
    const mocks = { forward: jest.fn(forward), other: jest.fn(async (_input: Window) => ({ forwarded: 0 })) };
    return { ...mocks, registered: { [activity]: mocks.forward, [other]: mocks.other } };
  }

  async function relay(acts: ReturnType<typeof activities>, args: [] | [Window]) {
    const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts.registered, { bundle: suite.bundle });
    const workflowId = `${id}-${randomUUID()}`;
    const outcome = await run(() => suite.client.execute(workflow, { taskQueue, workflowId, args }).catch((err: unknown) => err));
    return { outcome, workflowId };
  }

  it(`with no input (the schedule's defaults) hands over what is older than 30 s, at most 1000, once through ${activity}, and returns the count`, async () => {
    const acts = activities(async () => ({ forwarded: 12 }));
    const { outcome, workflowId } = await relay(acts, []);

    expect(outcome).toEqual({ forwarded: 12 });
    expect(acts.forward.mock.calls).toEqual([[{ olderThanMs: 30_000, limit: 1_000 }]]);
    expect(acts.other).not.toHaveBeenCalled();
    const described = await suite.client.getHandle(workflowId).describe();
    expect([described.type, described.status.name]).toEqual([workflowType, 'COMPLETED']);
  });

  it('hands over with the window and limit it is given', async () => {
    const acts = activities(async ({ limit }) => ({ forwarded: limit }));
    const { outcome } = await relay(acts, [{ olderThanMs: 5_000, limit: 7 }]);

    expect(outcome).toEqual({ forwarded: 7 });
    expect(acts.forward.mock.calls).toEqual([[{ olderThanMs: 5_000, limit: 7 }]]);
    expect(acts.other).not.toHaveBeenCalled();
  });

  it('a failing hand-over (the database or Temporal away) is retried with the same input, backing off, and the run returns the count', async () => {
    const times: number[] = [];
    const acts = activities(async () => {
      times.push(await suite.env.currentTimeMs());
      if (times.length <= 2) throw new Error('MongoServerSelectionError: connection refused');
      return { forwarded: 3 };
    });
    const { outcome } = await relay(acts, [{ olderThanMs: 30_000, limit: 100 }]);

    expect(outcome).toEqual({ forwarded: 3 });
    expect(acts.forward.mock.calls).toEqual([[{ olderThanMs: 30_000, limit: 100 }], [{ olderThanMs: 30_000, limit: 100 }], [{ olderThanMs: 30_000, limit: 100 }]]);
    // RETRY.quick: 1 s, then 2 s between attempts (skipped on the server's clock).
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(1_000);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(2_000);
  });

  it('a hand-over failing every time is given up after 5 attempts: the run fails with the cause, leaving the rest to the next run', async () => {
    const acts = activities(async () => {
      throw ApplicationFailure.create({ type: 'RelayBroken', message: 'temporal unreachable' });
    });
    const { outcome } = await relay(acts, []);

    expect(outcome).toBeInstanceOf(WorkflowFailedError);
    const activityFailure = (outcome as WorkflowFailedError).cause;
    expect(activityFailure).toBeInstanceOf(ActivityFailure);
    expect((activityFailure as ActivityFailure).activityType).toBe(activity);
    expect(((activityFailure as ActivityFailure).cause as ApplicationFailure).type).toBe('RelayBroken');
    expect(acts.forward).toHaveBeenCalledTimes(5);
    expect(acts.other).not.toHaveBeenCalled();
  });
});
