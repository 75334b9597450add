/**
 * supportInboundMailWorkflow and supportInboundRelayWorkflow on the time-skipping test server with
 * their activities mocked (issue 39): a stored mail is processed by its one activity and the
 * workflow answers its result; a dependency out of reach is retried with RETRY.inbound's back-off;
 * when every attempt failed the record is given up (failed) with the last reason; the relay hands
 * over the records still stored.
 */
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { workflowIds } from '../../workflows/ids';
import { RETRY } from '../../workflows/retry-policies';
import { supportInboundRelayWorkflow } from '../../workflows/support/inbound-relay.workflow';
import { supportInboundMailWorkflow } from '../../workflows/support/inbound.workflow';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(90_000);

const suite = workflowSuite();

const PROCESSED = { state: 'processed', kind: 'message', ticketId: 123, messageId: 9001, threadedBy: 'token' };

function activities(process: (input: { id: string }) => Promise<Record<string, unknown>> = async () => PROCESSED) {
  return {
    processInboundMail: jest.fn(process),
    giveUpInboundMail: jest.fn(async (_input: { id: string; reason: string }) => undefined),
    forwardStoredMail: jest.fn(async (_input: { olderThanMs: number; limit: number }) => ({ forwarded: 2 })),
  };
}

async function run(acts: ReturnType<typeof activities>, id: string) {
  const { taskQueue, run: within } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const workflowId = `${workflowIds.supportInbound(id)}-${randomUUID().slice(0, 6)}`;
  const outcome = await within(() => suite.client.execute(supportInboundMailWorkflow, { taskQueue, workflowId, args: [{ id }] }));
  const events = (await suite.client.getHandle(workflowId).fetchHistory()).events ?? [];
  const at = (e: (typeof events)[number] | undefined) => Number(e?.eventTime?.seconds ?? 0) * 1000 + Math.floor((e?.eventTime?.nanos ?? 0) / 1e6);
  return { outcome, elapsedMs: at(events.at(-1)) - at(events[0]) };
}

it('processes the stored mail once and answers what it became', async () => {
  const acts = activities();
  const { outcome } = await run(acts, 'rec-1');
  expect(outcome).toEqual(PROCESSED);
  expect(acts.processInboundMail.mock.calls).toEqual([[{ id: 'rec-1' }]]);
  expect(acts.giveUpInboundMail).not.toHaveBeenCalled();
});

it('a failure the activity settled (a missing object) is the outcome, not retried', async () => {
  const acts = activities(async () => ({ state: 'failed', reason: 'the raw message is missing (inbound-mail/2026/11/26/rec-2.eml)' }));
  const { outcome } = await run(acts, 'rec-2');
  expect(outcome).toEqual({ state: 'failed', reason: expect.stringContaining('missing') });
  expect(acts.processInboundMail).toHaveBeenCalledTimes(1);
});

it('MongoDB out of reach is tried again with back-off; once it answers, the mail is processed', async () => {
  let calls = 0;
  const acts = activities(async () => {
    if (++calls < 3) throw ApplicationFailure.create({ type: 'DEPENDENCY_UNAVAILABLE', message: 'mongodb is unavailable' });
    return PROCESSED;
  });
  const { outcome, elapsedMs } = await run(acts, 'rec-3');
  expect(outcome).toEqual(PROCESSED);
  expect(acts.processInboundMail).toHaveBeenCalledTimes(3);
  // 5 s and 10 s between the three attempts.
  expect(elapsedMs).toBeGreaterThanOrEqual(15_000);
});

it('every attempt failed: RETRY.inbound.maximumAttempts tries, then the record is failed with the last reason', async () => {
  const acts = activities(async () => {
    throw ApplicationFailure.create({ type: 'DEPENDENCY_UNAVAILABLE', message: 'minio is unavailable: ECONNREFUSED' });
  });
  const { outcome } = await run(acts, 'rec-4');
  expect(acts.processInboundMail).toHaveBeenCalledTimes(RETRY.inbound.maximumAttempts);
  expect(acts.giveUpInboundMail.mock.calls).toEqual([[{ id: 'rec-4', reason: expect.stringContaining('ECONNREFUSED') }]]);
  expect(outcome).toMatchObject({ state: 'failed', reason: expect.stringContaining('ECONNREFUSED') });
});

it('the relay hands the stored records over through its one activity', async () => {
  const acts = activities();
  const { taskQueue, run: within } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const outcome = await within(() => suite.client.execute(supportInboundRelayWorkflow, { taskQueue, workflowId: `support-inbound-relay-${randomUUID()}`, args: [{ olderThanMs: 30_000, limit: 500 }] }));
  expect(outcome).toEqual({ forwarded: 2 });
  expect(acts.forwardStoredMail.mock.calls).toEqual([[{ olderThanMs: 30_000, limit: 500 }]]);
});
