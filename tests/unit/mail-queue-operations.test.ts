/**
 * Starting a delivery's workflow (operations/support/mail-delivery.ts queueMail, forwardQueuedMail)
 * with a fake Temporal client: the id is the delivery's, a staff reply carries the send delay and an
 * acknowledgement does not, a second start is the run already there, and a start that fails is left
 * to the relay (logged, not thrown: the message is stored either way).
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { forwardQueuedMail, queueMail } from '../../operations/support/mail-delivery';
import { fakeTemporalClient } from '../helpers/fake-temporal';


it("starts a staff reply's mail under the delivery's id, on the mail queue, with the send delay; an acknowledgement at once", async () => {
  const temporal = fakeTemporalClient();
  const deps = { temporal: temporal as never, taskQueuePrefix: 'p-', sendDelayMs: 15_000 };
  expect(await queueMail(deps, { ticketId: 42, messageId: 7 })).toBe('started');
  expect(await queueMail(deps, { ticketId: 42, messageId: 0 })).toBe('started');
  expect(temporal.started).toEqual([
    { workflowId: 'support-mail-42-7', taskQueue: 'p-support-mail', args: [{ ticketId: 42, messageId: 7, delayMs: 15_000 }] },
    { workflowId: 'support-mail-42-ack', taskQueue: 'p-support-mail', args: [{ ticketId: 42, messageId: 0 }] },
  ]);
});

it('a second start is the run already there; a start that fails is left to the relay, logged and not thrown', async () => {
  const warnings: unknown[] = [];
  const running = fakeTemporalClient(() => new WorkflowExecutionAlreadyStartedError('started', 'support-mail-1-2', 'supportMailWorkflow'));
  expect(await queueMail({ temporal: running as never, taskQueuePrefix: '', sendDelayMs: 0 }, { ticketId: 1, messageId: 2 })).toBe('running');
  const down = fakeTemporalClient(() => new Error('14 UNAVAILABLE: No connection established'));
  expect(await queueMail({ temporal: down as never, taskQueuePrefix: '', sendDelayMs: 0, logger: { warn: (o: unknown) => void warnings.push(o) } }, { ticketId: 1, messageId: 3 })).toBe('left-to-relay');
  expect(warnings).toEqual([expect.objectContaining({ ticketId: 1, messageId: 3, err: expect.stringContaining('UNAVAILABLE') })]);
});

it('the relay starts each delivery queued before the threshold, counts those it started, and stops when its attempt ends', async () => {
  const temporal = fakeTemporalClient((id) => (id === 'support-mail-5-ack' ? new WorkflowExecutionAlreadyStartedError('started', id, 'supportMailWorkflow') : undefined));
  const asked: { before: Date; limit: number }[] = [];
  const now = new Date('2026-11-26T12:00:00Z');
  const mail = {
    queued: async (before: Date, limit: number) => {
      asked.push({ before, limit });
      return [
        { ticketId: 5, messageId: 0 },
        { ticketId: 6, messageId: 11 },
        { ticketId: 7, messageId: 12 },
      ];
    },
  };
  const deps = { temporal: temporal as never, taskQueuePrefix: '', sendDelayMs: 0, mail, now: () => now };
  expect(await forwardQueuedMail(deps, { olderThanMs: 30_000, limit: 100 })).toEqual({ forwarded: 2 });
  expect(asked).toEqual([{ before: new Date('2026-11-26T11:59:30Z'), limit: 100 }]);
  expect(temporal.started.map((s) => s.workflowId)).toEqual(['support-mail-6-11', 'support-mail-7-12']);

  const stopped = new AbortController();
  stopped.abort();
  expect(await forwardQueuedMail(deps, { olderThanMs: 30_000, limit: 100 }, stopped.signal)).toEqual({ forwarded: 0 });
});
