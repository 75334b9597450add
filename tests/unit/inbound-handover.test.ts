/**
 * The receiver's hand-over and the inbound relay (operations/support/inbound-process.ts
 * handOverInboundMail, forwardStoredMail) with a fake Temporal client: the workflow's id is the
 * record's, on the support-mail queue; the record is marked handed over only after the start (a
 * run already there counts); a start that fails throws and marks nothing (the relay tries again).
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { forwardStoredMail, handOverInboundMail } from '../../operations/support/inbound-process';
import { fakeTemporalClient } from '../helpers/fake-temporal';

const now = new Date('2026-11-26T12:00:00Z');

it("starts the record's workflow on the support-mail queue, then marks it handed over; a run already there counts", async () => {
  const marked: string[] = [];
  const inbound = { markHandedOver: async (id: string) => (marked.push(id), true) };
  const temporal = fakeTemporalClient((id) => (id === 'support-inbound-b' ? new WorkflowExecutionAlreadyStartedError('started', id, 'supportInboundMailWorkflow') : undefined));
  expect(await handOverInboundMail({ temporal: temporal as never, taskQueuePrefix: 'p-', inbound, now: () => now }, 'a')).toBe('started');
  expect(await handOverInboundMail({ temporal: temporal as never, taskQueuePrefix: 'p-', inbound, now: () => now }, 'b')).toBe('running');
  expect(temporal.started).toEqual([{ workflowId: 'support-inbound-a', taskQueue: 'p-support-mail', args: [{ id: 'a' }] }]);
  expect(marked).toEqual(['a', 'b']);
});

it('a start that fails throws and marks nothing: the record stays stored for the relay', async () => {
  const marked: string[] = [];
  const down = fakeTemporalClient(() => new Error('14 UNAVAILABLE: No connection established'));
  await expect(handOverInboundMail({ temporal: down as never, taskQueuePrefix: '', inbound: { markHandedOver: async (id: string) => (marked.push(id), true) }, now: () => now }, 'c')).rejects.toThrow(/UNAVAILABLE/);
  expect(marked).toEqual([]);
});

it('the relay hands over the records stored before the threshold, oldest first, and stops when its attempt ends', async () => {
  const asked: { before: Date; limit: number }[] = [];
  const inbound = {
    markHandedOver: async () => true,
    pendingHandOver: async (before: Date, limit: number) => (asked.push({ before, limit }), [{ _id: 'r1' }, { _id: 'r2' }] as never),
  };
  const temporal = fakeTemporalClient();
  expect(await forwardStoredMail({ temporal: temporal as never, taskQueuePrefix: '', inbound, now: () => now }, { olderThanMs: 30_000, limit: 10 })).toEqual({ forwarded: 2 });
  expect(asked).toEqual([{ before: new Date(now.getTime() - 30_000), limit: 10 }]);
  expect(temporal.started.map((s) => s.workflowId)).toEqual(['support-inbound-r1', 'support-inbound-r2']);
  const aborted = new AbortController();
  aborted.abort();
  expect(await forwardStoredMail({ temporal: fakeTemporalClient() as never, taskQueuePrefix: '', inbound, now: () => now }, { olderThanMs: 30_000, limit: 10 }, aborted.signal)).toEqual({ forwarded: 0 });
});
