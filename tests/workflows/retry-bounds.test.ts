/**
 * Bounded retries (issue 34, part 7) on the time-skipping test server with mocked activities: an
 * activity that always fails is attempted the number of times its policy says (workflows/
 * retry-policies.ts), backing off between attempts, and then the workflow does what it does with a
 * failure: a bulk operation, an import and a re-enrichment are marked failed and end; a source's
 * poller, a subscription and a WhatsApp conversation record it and go on.
 */
import { randomUUID } from 'node:crypto';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { newsImportWorkflow } from '../../workflows/news/import.workflow';
import { newsReenrichWorkflow } from '../../workflows/news/reenrich.workflow';
import { newsSourceWorkflow, type SourcePollerStatus } from '../../workflows/news/source.workflow';
import { pauseAfterGivingUpMs, RETRY } from '../../workflows/retry-policies';
import { bulkTicketOperationWorkflow } from '../../workflows/support/bulk.workflow';
import { activities as subscriptionActivities, customerOn, plansSet } from '../helpers/subscription';
import { activities as conversationActivities, conversationOn, handledAll, handledIds } from '../helpers/conversation';
import { mockedActivitiesWorker, until, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(90_000);

const suite = workflowSuite();

/** A database that never answers, as the driver reports it. */
const sick = () => new Error('MongoServerSelectionError: Server selection timed out after 30000 ms');

/** The waits between an activity's attempts (s), from the server's clock when each attempt ran. */
const gaps = (startedMs: number[]) => startedMs.slice(1).map((t, i) => Math.round((t - startedMs[i]!) / 1_000));

/** The back-offs a policy asks for between its attempts (s). */
function backOffs(policy: { initialInterval: string; backoffCoefficient: number; maximumInterval: string; maximumAttempts: number }): number[] {
  const seconds = (d: string) => Number(d.split(' ')[0]) * (d.includes('minute') ? 60 : 1);
  return Array.from({ length: policy.maximumAttempts - 1 }, (_, i) => Math.min(seconds(policy.initialInterval) * policy.backoffCoefficient ** i, seconds(policy.maximumInterval)));
}

/** Skips the server's clock in steps until `ok` holds of what `read` gives (at most 40 s of real time). */
async function skipUntil<T>(read: () => T | Promise<T>, ok: (v: T) => boolean, step = '30 seconds'): Promise<T> {
  const deadline = Date.now() + 40_000;
  let value = await read();
  while (!ok(value) && Date.now() < deadline) {
    await suite.env.sleep(step);
    await new Promise((r) => setTimeout(r, 20));
    value = await read();
  }
  return value;
}

describe('operations: attempted a bounded number of times, then marked failed', () => {
  it('a bulk chunk that always fails is attempted RETRY.chunk.maximumAttempts times with back-off; the operation is marked failed and the workflow fails', async () => {
    const started: number[] = [];
    const acts = {
      processBulkChunk: jest.fn(async (_c: { operationId: string; start: number; end: number }): Promise<{ processed: number }> => {
        started.push(await suite.env.currentTimeMs());
        throw sick();
      }),
      finishBulkOperation: jest.fn(async (_f: { operationId: string; state: string }) => undefined),
    };
    const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
    const operationId = randomUUID();
    const handle = await suite.client.start(bulkTicketOperationWorkflow, { taskQueue, workflowId: workflowIds.ticketBulk(operationId), args: [{ operationId, total: 30, chunkSize: 10 }] });

    const err = await run(() => handle.result()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const failure = (err as WorkflowFailedError).cause;
    expect(failure).toBeInstanceOf(ActivityFailure);
    expect((failure as ActivityFailure).retryState).toBe(RetryState.MAXIMUM_ATTEMPTS_REACHED);
    expect(acts.processBulkChunk).toHaveBeenCalledTimes(RETRY.chunk.maximumAttempts);
    expect(acts.processBulkChunk.mock.calls.every(([c]) => c.start === 0)).toBe(true); // never a later chunk
    expect(gaps(started)).toEqual(backOffs(RETRY.chunk)); // 5, 10, 20, 40, 80, 120, 120 s
    expect(acts.finishBulkOperation.mock.calls.map(([f]) => [f.operationId, f.state])).toEqual([[operationId, 'failed']]);
  });

  it('an import that always fails is attempted RETRY.chunk.maximumAttempts times, then marked failed with why, and the run says so', async () => {
    const acts = {
      applyImport: jest.fn(async (_id: string): Promise<{ inserted: number; duplicates: number; invalid: number }> => {
        throw sick();
      }),
      failImport: jest.fn(async (_id: string, _message: string) => undefined),
      breakingOfImport: jest.fn(async () => ({ articleIds: [], whatsapp: false })),
      enrichmentsOfImport: jest.fn(async () => []),
    };
    const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
    const importId = randomUUID();
    const result = await run(() => suite.client.execute(newsImportWorkflow, { taskQueue, workflowId: workflowIds.newsImport(importId), args: [importId] }));

    expect(result).toEqual({ state: 'failed', error: sick().message });
    expect(acts.applyImport).toHaveBeenCalledTimes(RETRY.chunk.maximumAttempts);
    expect(acts.failImport.mock.calls).toEqual([[importId, sick().message]]);
    expect(acts.breakingOfImport).not.toHaveBeenCalled();
  });

  it('a re-enrichment chunk that always fails is attempted RETRY.model.maximumAttempts times, then the operation is marked failed with why', async () => {
    const acts = {
      reenrichChunk: jest.fn(async (_c: { operationId: string; start: number; end: number }): Promise<{ state: 'finished' }> => {
        throw ApplicationFailure.create({ type: 'ProviderUnavailable', message: 'the AI provider is unavailable (unavailable)' });
      }),
      finishReenrichment: jest.fn(async (_f: { operationId: string; state: string; error: string | null }) => undefined),
    };
    const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
    const operationId = randomUUID();
    const handle = await suite.client.start(newsReenrichWorkflow, { taskQueue, workflowId: workflowIds.newsReenrich(operationId), args: [{ operationId, total: 4, chunkSize: 2 }] });

    const err = await run(() => handle.result()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(((err as WorkflowFailedError).cause as ActivityFailure).retryState).toBe(RetryState.MAXIMUM_ATTEMPTS_REACHED);
    expect(acts.reenrichChunk).toHaveBeenCalledTimes(RETRY.model.maximumAttempts);
    expect(acts.finishReenrichment.mock.calls.map(([f]) => [f.state, f.error])).toEqual([['failed', 'the AI provider is unavailable (unavailable)']]);
  });
});

describe('long-lived workflows: a failure after the retries is recorded and they go on', () => {
  it("a source's poll that fails through all its retries is recorded in the poller's health, and the poller polls again after a pause", async () => {
    const sourceId = randomUUID();
    let polls = 0;
    const acts = {
      // The database away for a whole retry run, then the source turns out disabled.
      pollSource: jest.fn(async (_sourceId: string) => {
        polls += 1;
        if (polls <= RETRY.short.maximumAttempts) throw sick();
        return { state: 'stopped' as const, reason: 'disabled' as const };
      }),
      ingestItem: jest.fn(),
      enrichArticle: jest.fn(),
      failEnrichment: jest.fn(),
      alertsEnabled: jest.fn(),
    };
    const worker = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle, taskQueue: taskQueueName(`t${randomUUID().slice(0, 6)}-`, TASK_QUEUES.newsSources) });
    const handle = await suite.client.start(newsSourceWorkflow, { taskQueue: worker.taskQueue, workflowId: workflowIds.newsSource(sourceId), args: [{ sourceId }] });

    expect(await worker.run(() => handle.result())).toEqual({ stopped: 'disabled' });
    expect(acts.pollSource).toHaveBeenCalledTimes(RETRY.short.maximumAttempts + 1);
    const { events } = await handle.fetchHistory();
    // One failed activity (its last attempt), then one pause before the next poll.
    expect((events ?? []).filter((e) => e.activityTaskFailedEventAttributes)).toHaveLength(1);
    const timers = (events ?? []).flatMap((e) => (e.timerStartedEventAttributes ? [Number(e.timerStartedEventAttributes.startToFireTimeout?.seconds) * 1_000] : []));
    expect(timers).toEqual([pauseAfterGivingUpMs(1)]);
    // The failure is in the health the Temporal UI shows.
    const memo = (await handle.describe()).memo as { health: SourcePollerStatus };
    expect(memo.health).toMatchObject({ polls: 0, lastResult: 'failed', consecutiveFailures: 1, pollsGivenUp: 1, lastError: expect.stringContaining('Server selection timed out') });
  });

  it('a plan write that fails through all its retries leaves the subscription running, and is written after a pause', async () => {
    let attempts = 0;
    const acts = subscriptionActivities({
      setAccountPlan: async () => {
        attempts += 1;
        if (attempts <= RETRY.short.maximumAttempts) throw sick();
      },
    });
    const c = await customerOn(suite, 7 * 86_400_000)(acts);
    await c.run(async () => {
      await c.send(c.event('customer.subscription.created', await suite.env.currentTimeMs(), { facts: { status: 'active', plan: 'pro' } }));
      // The retries' back-off (about 4 min) skipped: the activity has given up, the workflow has not.
      expect(await skipUntil(() => attempts, (n) => n >= RETRY.short.maximumAttempts)).toBe(RETRY.short.maximumAttempts);
      const failed = await until(async () => ((await c.handle.fetchHistory()).events ?? []).some((e) => e.activityTaskFailedEventAttributes), (f) => f);
      expect(failed).toBe(true);
      expect((await c.handle.describe()).status.name).toBe('RUNNING');
      expect(await c.view()).toMatchObject({ status: 'active', subscribedPlan: 'pro', eventsApplied: 1 });
      // After the pause, written.
      expect(await skipUntil(() => attempts, (n) => n > RETRY.short.maximumAttempts, '1 minute')).toBe(RETRY.short.maximumAttempts + 1);
      expect(plansSet(acts).at(-1)).toBe('user-1:pro');
    });
  });

  it('a message whose handling fails through all its retries is left unhandled, and the conversation handles the next one', async () => {
    const acts = conversationActivities();
    const failing = new Set<string>();
    const load = acts.loadInbound.getMockImplementation()!;
    acts.loadInbound.mockImplementation(async (id: string) => {
      if (failing.has(id)) throw sick();
      return await load(id);
    });
    const c = await conversationOn(suite, 30 * 60_000)(acts);
    await c.run(async () => {
      const first = `wamid.in.${randomUUID().slice(0, 8)}`;
      failing.add(first);
      await c.say('oi', first);
      expect(await skipUntil(() => acts.loadInbound.mock.calls.filter(([id]) => id === first).length, (n) => n >= RETRY.short.maximumAttempts)).toBe(RETRY.short.maximumAttempts);
      const second = await c.say('urgente');
      await handledAll(acts, [second]);
      expect(handledIds(acts)).toEqual([second]);
      expect(acts.inbox.get(first)!.handled).toBe(false);
      expect(await c.view()).toMatchObject({ flow: null, pending: 0, handled: 1 });
      expect((await c.handle.describe()).status.name).toBe('RUNNING');
    });
  });
});
