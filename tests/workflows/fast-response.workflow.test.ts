/**
 * ticketFastResponseWorkflow on the time-skipping test server with its activities mocked (no
 * ticket store, no provider): the draft stored (and sent when asked) with a dedupe key of the
 * run's own id, the retry policy of the model call (5xx with backoff, 429 after Retry-After, never
 * a 4xx or a missing ticket, five attempts at most), and a failed save retried with the same key so
 * a retry never sends the message twice.
 */
import { randomUUID } from 'node:crypto';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { AI_FAILURES } from '../../models/ai/chat.rules';
import { workflowIds } from '../../workflows/ids';
import { ticketFastResponseWorkflow } from '../../workflows/support/fast-response.workflow';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const suite = workflowSuite();

type Save = { ticketId: number; draft: string; send: boolean; by: string; key: string };

function activities(options: { draft?: (input: { ticketId: number }) => Promise<{ draft: string }>; save?: (input: Save) => Promise<{ messageId: number | null }> } = {}) {
  return {
    draftFastResponse: jest.fn(options.draft ?? (async ({ ticketId }: { ticketId: number }) => ({ draft: `Olá! Sobre o chamado ${ticketId}: já resolvemos.` }))),
    saveFastResponse: jest.fn(options.save ?? (async (input: Save) => ({ messageId: input.send ? 501 : null }))),
  };
}

async function respond(acts: ReturnType<typeof activities>, input: { ticketId: number; send: boolean; by: string }) {
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const workflowId = workflowIds.ticketFastResponse(input.ticketId, randomUUID().slice(0, 8));
  const outcome = await run(() => suite.client.execute(ticketFastResponseWorkflow, { taskQueue, workflowId, args: [input] }).catch((err: unknown) => err));
  return { outcome, workflowId };
}

/** The ApplicationFailure a failed run ends with, and the activity it came from. */
function failureOf(outcome: unknown): { activityType: string; failure: ApplicationFailure } {
  expect(outcome).toBeInstanceOf(WorkflowFailedError);
  const activity = (outcome as WorkflowFailedError).cause;
  expect(activity).toBeInstanceOf(ActivityFailure);
  expect((activity as ActivityFailure).cause).toBeInstanceOf(ApplicationFailure);
  return { activityType: (activity as ActivityFailure).activityType, failure: (activity as ActivityFailure).cause as ApplicationFailure };
}

it('drafts the answer, stores it and sends it as an admin message with a dedupe key of the run, and returns both', async () => {
  const acts = activities();
  const { outcome, workflowId } = await respond(acts, { ticketId: 42, send: true, by: 'agent@example.com' });

  expect(outcome).toEqual({ draft: 'Olá! Sobre o chamado 42: já resolvemos.', messageId: 501 });
  expect(acts.draftFastResponse.mock.calls).toEqual([[{ ticketId: 42 }]]);
  expect(acts.saveFastResponse.mock.calls).toEqual([[{ ticketId: 42, send: true, by: 'agent@example.com', draft: 'Olá! Sobre o chamado 42: já resolvemos.', key: `fast:${workflowId}` }]]);
});

it('not asked to send: the draft is stored only, and no message id is returned', async () => {
  const acts = activities();
  const { outcome } = await respond(acts, { ticketId: 7, send: false, by: 'agent@example.com' });

  expect(outcome).toEqual({ draft: 'Olá! Sobre o chamado 7: já resolvemos.', messageId: null });
  expect(acts.saveFastResponse).toHaveBeenCalledTimes(1);
  expect(acts.saveFastResponse.mock.calls[0]![0]).toMatchObject({ ticketId: 7, send: false });
});

it('a provider outage (5xx) is retried with backoff and the run goes on', async () => {
  let failures = 0;
  const acts = activities({
    draft: async () => {
      if (failures++ < 2) throw ApplicationFailure.create({ type: AI_FAILURES.unavailable, message: 'provider answered 503' });
      return { draft: 'back' };
    },
  });
  const { outcome } = await respond(acts, { ticketId: 9, send: true, by: 'agent@example.com' });

  expect(outcome).toEqual({ draft: 'back', messageId: 501 });
  expect(acts.draftFastResponse).toHaveBeenCalledTimes(3);
  expect(acts.saveFastResponse.mock.calls.map(([s]) => s.draft)).toEqual(['back']);
});

it("a rate-limited draft waits the provider's Retry-After (on the server's clock, skipped), then succeeds", async () => {
  const times: number[] = [];
  const acts = activities({
    draft: async () => {
      times.push(await suite.env.currentTimeMs());
      if (times.length === 1) throw ApplicationFailure.create({ type: AI_FAILURES.rateLimited, message: '429', nextRetryDelay: '90 seconds' });
      return { draft: 'after the wait' };
    },
  });
  const { outcome } = await respond(acts, { ticketId: 10, send: false, by: 'agent@example.com' });

  expect(outcome).toEqual({ draft: 'after the wait', messageId: null });
  expect(times).toHaveLength(2);
  expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(90_000);
});

it.each([
  ['the provider rejecting the request (4xx)', AI_FAILURES.rejected],
  ['no provider configured', AI_FAILURES.notConfigured],
  ['a ticket that is gone', 'NOT_FOUND'],
])('%s is not retried (the policy names the type): the run fails with it and nothing is stored', async (_what, type) => {
  const acts = activities({
    draft: async () => {
      // Not flagged non-retryable: the workflow's retry policy must be what stops it.
      throw ApplicationFailure.create({ type, message: `draft failed: ${type}` });
    },
  });
  const { outcome } = await respond(acts, { ticketId: 11, send: true, by: 'agent@example.com' });

  const { activityType, failure } = failureOf(outcome);
  expect([activityType, failure.type]).toEqual(['draftFastResponse', type]);
  expect(acts.draftFastResponse).toHaveBeenCalledTimes(1);
  expect(acts.saveFastResponse).not.toHaveBeenCalled();
});

it('a provider still failing after 5 attempts fails the run, and nothing is stored', async () => {
  const acts = activities({
    draft: async () => {
      throw ApplicationFailure.create({ type: AI_FAILURES.unavailable, message: 'provider answered 502' });
    },
  });
  const { outcome } = await respond(acts, { ticketId: 12, send: true, by: 'agent@example.com' });

  expect(failureOf(outcome).failure.type).toBe(AI_FAILURES.unavailable);
  expect(acts.draftFastResponse).toHaveBeenCalledTimes(5);
  expect(acts.saveFastResponse).not.toHaveBeenCalled();
});

it('a save that fails is retried with the same draft and dedupe key (a retry cannot send twice); the model is not asked again', async () => {
  let failures = 0;
  const acts = activities({
    save: async () => {
      if (failures++ < 2) throw new Error('MongoNetworkError: connection reset');
      return { messageId: 77 };
    },
  });
  const { outcome, workflowId } = await respond(acts, { ticketId: 13, send: true, by: 'agent@example.com' });

  expect(outcome).toEqual({ draft: 'Olá! Sobre o chamado 13: já resolvemos.', messageId: 77 });
  expect(acts.draftFastResponse).toHaveBeenCalledTimes(1);
  const save = { ticketId: 13, send: true, by: 'agent@example.com', draft: 'Olá! Sobre o chamado 13: já resolvemos.', key: `fast:${workflowId}` };
  expect(acts.saveFastResponse.mock.calls).toEqual([[save], [save], [save]]);
});

it('a ticket deleted before the save (NOT_FOUND) is not retried: the run fails', async () => {
  const acts = activities({
    save: async () => {
      throw ApplicationFailure.create({ type: 'NOT_FOUND', message: 'ticket not found' });
    },
  });
  const { outcome } = await respond(acts, { ticketId: 14, send: true, by: 'agent@example.com' });

  const { activityType, failure } = failureOf(outcome);
  expect([activityType, failure.type]).toEqual(['saveFastResponse', 'NOT_FOUND']);
  expect(acts.saveFastResponse).toHaveBeenCalledTimes(1);
});
