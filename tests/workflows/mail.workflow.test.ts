/**
 * supportMailWorkflow and supportMailRelayWorkflow on the time-skipping test server with their
 * activities mocked (issue 39): a staff reply waits its delay (files uploaded with it go along),
 * then is handed to SMTP once; an acknowledgement goes at once; an SMTP server out of reach is tried
 * again with RETRY.mail's back-off, and when every attempt failed the delivery is given up with why;
 * the relay hands over what is queued.
 */
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { workflowIds } from '../../workflows/ids';
import { RETRY } from '../../workflows/retry-policies';
import { supportMailRelayWorkflow } from '../../workflows/support/mail-relay.workflow';
import { supportMailWorkflow } from '../../workflows/support/mail.workflow';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(90_000);

const suite = workflowSuite();

type Target = { ticketId: number; messageId: number };

function activities(deliver: (input: Target) => Promise<{ estado: string; motivo: string | null }> = async () => ({ estado: 'sent', motivo: null })) {
  return {
    deliverMail: jest.fn(deliver),
    giveUpMail: jest.fn(async (_input: Target & { reason: string }) => undefined),
    forwardQueuedMail: jest.fn(async (_input: { olderThanMs: number; limit: number }) => ({ forwarded: 3 })),
  };
}

async function run(acts: ReturnType<typeof activities>, input: Target & { delayMs?: number }) {
  const { taskQueue, run: within } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const workflowId = `${workflowIds.supportMail(input.ticketId, input.messageId)}-${randomUUID().slice(0, 6)}`;
  const outcome = await within(() => suite.client.execute(supportMailWorkflow, { taskQueue, workflowId, args: [input] }));
  // The run's own clock, from its history: its first event to its last (the server skips time after a run ends).
  const events = (await suite.client.getHandle(workflowId).fetchHistory()).events ?? [];
  const at = (e: (typeof events)[number] | undefined) => Number(e?.eventTime?.seconds ?? 0) * 1000 + Math.floor((e?.eventTime?.nanos ?? 0) / 1e6);
  const timers = events.filter((e) => e.timerStartedEventAttributes).length;
  return { outcome, elapsedMs: at(events.at(-1)) - at(events[0]), timers };
}

it("a staff reply waits its delay, then is handed to SMTP once, and the workflow answers the delivery's end", async () => {
  const acts = activities();
  const { outcome, elapsedMs, timers } = await run(acts, { ticketId: 42, messageId: 7, delayMs: 15_000 });
  expect(timers).toBe(1);
  expect(outcome).toEqual({ estado: 'sent', motivo: null });
  expect(acts.deliverMail.mock.calls).toEqual([[{ ticketId: 42, messageId: 7 }]]);
  expect(acts.giveUpMail).not.toHaveBeenCalled();
  expect(elapsedMs).toBeGreaterThanOrEqual(15_000);
});

it('an acknowledgement (no delay) goes at once; a refusal answered by the activity is the outcome, not retried', async () => {
  const acts = activities(async () => ({ estado: 'failed', motivo: 'the mail server refused the message: SMTP EENVELOPE 550: no such user' }));
  const { outcome, timers } = await run(acts, { ticketId: 43, messageId: 0 });
  expect(outcome).toEqual({ estado: 'failed', motivo: 'the mail server refused the message: SMTP EENVELOPE 550: no such user' });
  expect(acts.deliverMail).toHaveBeenCalledTimes(1);
  expect(timers).toBe(0);
});

it('an SMTP server out of reach is tried again with back-off; once it answers, the mail is sent', async () => {
  let calls = 0;
  const acts = activities(async () => {
    if (++calls < 4) throw ApplicationFailure.create({ type: 'DEPENDENCY_UNAVAILABLE', message: 'mail is unavailable: SMTP ECONNREFUSED' });
    return { estado: 'sent', motivo: null };
  });
  const { outcome, elapsedMs } = await run(acts, { ticketId: 44, messageId: 9 });
  expect(outcome).toEqual({ estado: 'sent', motivo: null });
  expect(acts.deliverMail).toHaveBeenCalledTimes(4);
  // 30 s, 1 min and 2 min between the four attempts (the server's clock, skipped).
  expect(elapsedMs).toBeGreaterThanOrEqual(210_000);
});

it('every attempt failed: RETRY.mail.maximumAttempts tries, then the delivery is given up with the last reason', async () => {
  const acts = activities(async () => {
    throw ApplicationFailure.create({ type: 'DEPENDENCY_UNAVAILABLE', message: 'mail is unavailable: SMTP ETIMEDOUT' });
  });
  const { outcome, elapsedMs } = await run(acts, { ticketId: 45, messageId: 11 });
  expect(acts.deliverMail).toHaveBeenCalledTimes(RETRY.mail.maximumAttempts);
  expect(acts.giveUpMail).toHaveBeenCalledTimes(1);
  expect(acts.giveUpMail.mock.calls[0]![0]).toMatchObject({ ticketId: 45, messageId: 11, reason: expect.stringContaining('SMTP ETIMEDOUT') });
  expect(outcome).toMatchObject({ estado: 'failed' });
  // About a day of waiting: 30 s, 1 min, … capped at 1 h.
  expect(elapsedMs).toBeGreaterThan(20 * 3_600_000);
  expect(elapsedMs).toBeLessThan(30 * 3_600_000);
});

it('the relay hands the queued deliveries over through its one activity', async () => {
  const acts = activities();
  const { taskQueue, run: within } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const outcome = await within(() => suite.client.execute(supportMailRelayWorkflow, { taskQueue, workflowId: `support-mail-relay-${randomUUID()}`, args: [{ olderThanMs: 30_000, limit: 500 }] }));
  expect(outcome).toEqual({ forwarded: 3 });
  expect(acts.forwardQueuedMail.mock.calls).toEqual([[{ olderThanMs: 30_000, limit: 500 }]]);
});
