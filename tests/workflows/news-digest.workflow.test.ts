/**
 * newsDigestWorkflow (issue 40) on the time-skipping test server with its activities mocked: the
 * slot is the run's instant floored to the quarter hour; a slot where no hour is due reads no
 * reader; pages are read by cursor and their counts summed; a long run continues as new with its
 * cursor and counts, so its history stays small; a page whose mail server is away is retried alone.
 */
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { newsDigestWorkflow } from '../../workflows/news/digest.workflow';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const suite = workflowSuite();

type Due = { timeZone: string; hour: number };
type PageInput = { slot: string; due: Due[]; after: string | null; limit: number };

function activities(due: Due[], pages: number, flaky = new Set<string | null>()) {
  const failedOnce = new Set<string | null>();
  return {
    digestDue: jest.fn(async (_input: { slot: string }) => due),
    sendDigestPage: jest.fn(async (input: PageInput) => {
      if (flaky.has(input.after) && !failedOnce.has(input.after)) {
        failedOnce.add(input.after);
        throw ApplicationFailure.create({ type: 'DEPENDENCY_UNAVAILABLE', message: 'mail is unavailable' });
      }
      const index = input.after === null ? 0 : Number(input.after.slice(1)) + 1;
      return { readers: input.limit, sent: input.limit - 1, empty: 1, skipped: 0, failed: 0, next: index + 1 < pages ? `p${index}` : null };
    }),
  };
}

async function digest(acts: ReturnType<typeof activities>, input: Parameters<typeof newsDigestWorkflow>[0]) {
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  return await run(() => suite.client.execute(newsDigestWorkflow, { taskQueue, workflowId: `news-digest-test-${randomUUID()}`, args: [input] }));
}

it('floors its slot to the quarter hour and reads nobody when no hour is due', async () => {
  const acts = activities([], 3);
  expect(await digest(acts, { slot: '2031-03-04T10:07:31.000Z' })).toEqual({ slot: '2031-03-04T10:00:00.000Z', readers: 0, sent: 0, empty: 0, skipped: 0, failed: 0 });
  expect(acts.digestDue.mock.calls).toEqual([[{ slot: '2031-03-04T10:00:00.000Z' }]]);
  expect(acts.sendDigestPage).not.toHaveBeenCalled();
});

it('reads the due readers a page at a time, continuing as new with its cursor and counts, and retries a page alone', async () => {
  const due = [{ timeZone: 'UTC', hour: 10 }];
  const acts = activities(due, 5, new Set(['p2']));
  const result = await digest(acts, { slot: '2031-03-04T10:00:00.000Z', pageSize: 10, pagesPerRun: 2 });
  expect(result).toEqual({ slot: '2031-03-04T10:00:00.000Z', readers: 50, sent: 45, empty: 5, skipped: 0, failed: 0 });
  // The due hours are read once, by the first run; the runs after it carry them.
  expect(acts.digestDue).toHaveBeenCalledTimes(1);
  expect(acts.sendDigestPage.mock.calls.map(([p]) => p.after)).toEqual([null, 'p0', 'p1', 'p2', 'p2', 'p3']);
  expect(acts.sendDigestPage.mock.calls.every(([p]) => p.limit === 10 && p.due.length === 1)).toBe(true);
});
