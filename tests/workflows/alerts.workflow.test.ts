/**
 * whatsappAlertsWorkflow on the time-skipping test server with its activities mocked (no database,
 * no Cloud API): readers read a page at a time (the cursor of each page asks for the next, 500 a
 * page unless told), sent in batches of at most 50, the counts summed; an article that is not (or no
 * longer) breaking sends nothing; a throttled batch retried alone, counted once; a worker without
 * WhatsApp credentials not retried; a page that cannot be read fails the run after its attempts.
 * (import.workflow.test.ts and news-source.workflow.test.ts cover how runs are started.)
 */
import { randomUUID } from 'node:crypto';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { workflowIds } from '../../workflows/ids';
import { whatsappAlertsWorkflow } from '../../workflows/whatsapp/alerts.workflow';
import { WHATSAPP_FAILURES } from '../../workflows/whatsapp/failures';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const suite = workflowSuite();

type Recipient = { userId: string; phone: string; inWindow: boolean };
type Page = { title: string | null; recipients: Recipient[]; next: string | null };
type Batch = { articleId: string; title: string; recipients: Recipient[] };
type Counts = { sent: number; capped: number; refused: number };

const readers = (from: number, n: number): Recipient[] => Array.from({ length: n }, (_, i) => ({ userId: `u${from + i}`, phone: `55119${String(from + i).padStart(8, '0')}`, inWindow: (from + i) % 2 === 0 }));

/** Mocks: `pages` answers alertRecipients by cursor (null for the first page); sendAlerts sends all unless told. */
function activities(pages: Record<string, Page>, send: (batch: Batch) => Promise<Counts> = async (b) => ({ sent: b.recipients.length, capped: 0, refused: 0 })) {
  return {
    alertRecipients: jest.fn(async (input: { articleId: string; after: string | null; limit: number }) => {
      const page = pages[input.after ?? 'first'];
      if (!page) throw ApplicationFailure.create({ type: 'TestBroken', message: `no page after ${input.after}`, nonRetryable: true });
      return page;
    }),
    sendAlerts: jest.fn(send),
  };
}

async function alerts(acts: ReturnType<typeof activities>, input: { articleId: string; pageSize?: number }) {
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  return await run(() => suite.client.execute(whatsappAlertsWorkflow, { taskQueue, workflowId: workflowIds.whatsappAlerts(input.articleId), args: [input] }).catch((err: unknown) => err));
}

it('reads the readers a page at a time by cursor and sends each page in batches of at most 50, summing the counts', async () => {
  const articleId = randomUUID();
  const page1 = readers(0, 120);
  const page2 = readers(120, 30);
  const acts = activities(
    { first: { title: 'Copom sobe a Selic', recipients: page1, next: 'cursor-1' }, 'cursor-1': { title: 'Copom sobe a Selic', recipients: page2, next: null } },
    // Per batch: the first reader capped, the second refused, the rest sent.
    async (b) => ({ sent: b.recipients.length - 2, capped: 1, refused: 1 }),
  );
  const result = await alerts(acts, { articleId, pageSize: 120 });

  expect(result).toEqual({ recipients: 150, sent: 150 - 2 * 4, capped: 4, refused: 4 });
  expect(acts.alertRecipients.mock.calls).toEqual([[{ articleId, after: null, limit: 120 }], [{ articleId, after: 'cursor-1', limit: 120 }]]);
  expect(acts.sendAlerts.mock.calls.map(([b]) => b)).toEqual([
    { articleId, title: 'Copom sobe a Selic', recipients: page1.slice(0, 50) },
    { articleId, title: 'Copom sobe a Selic', recipients: page1.slice(50, 100) },
    { articleId, title: 'Copom sobe a Selic', recipients: page1.slice(100, 120) },
    { articleId, title: 'Copom sobe a Selic', recipients: page2 },
  ]);
});

it('reads 500 readers a page unless told; a page with no readers sends nothing', async () => {
  const articleId = randomUUID();
  const acts = activities({ first: { title: 'Nada para ninguém', recipients: [], next: null } });
  const result = await alerts(acts, { articleId });

  expect(result).toEqual({ recipients: 0, sent: 0, capped: 0, refused: 0 });
  expect(acts.alertRecipients.mock.calls).toEqual([[{ articleId, after: null, limit: 500 }]]);
  expect(acts.sendAlerts).not.toHaveBeenCalled();
});

it('an article that is not (or no longer) breaking ends the run at once: nothing sent, even with a cursor', async () => {
  const articleId = randomUUID();
  const acts = activities({ first: { title: null, recipients: readers(0, 3), next: 'cursor-1' } });
  const result = await alerts(acts, { articleId });

  expect(result).toEqual({ recipients: 0, sent: 0, capped: 0, refused: 0 });
  expect(acts.alertRecipients).toHaveBeenCalledTimes(1);
  expect(acts.sendAlerts).not.toHaveBeenCalled();
});

it('an article that stops being breaking between pages keeps what the earlier pages sent', async () => {
  const articleId = randomUUID();
  const acts = activities({ first: { title: 'Urgente', recipients: readers(0, 10), next: 'c' }, c: { title: null, recipients: [], next: null } });
  const result = await alerts(acts, { articleId, pageSize: 10 });

  expect(result).toEqual({ recipients: 10, sent: 10, capped: 0, refused: 0 });
  expect(acts.alertRecipients).toHaveBeenCalledTimes(2);
  expect(acts.sendAlerts).toHaveBeenCalledTimes(1);
});

it('a batch the Cloud API throttles is retried alone (skipped back-off) and counted once', async () => {
  const articleId = randomUUID();
  const page = readers(0, 60);
  let throttled = 0;
  const acts = activities({ first: { title: 'Urgente', recipients: page, next: null } }, async (b) => {
    if (b.recipients[0]!.userId === 'u50' && throttled++ < 3) throw ApplicationFailure.create({ type: 'WhatsAppThrottled', message: 'Cloud API answered 429' });
    return { sent: b.recipients.length, capped: 0, refused: 0 };
  });
  const result = await alerts(acts, { articleId });

  expect(result).toEqual({ recipients: 60, sent: 60, capped: 0, refused: 0 });
  expect(acts.sendAlerts.mock.calls.map(([b]) => [b.recipients[0]!.userId, b.recipients.length])).toEqual([
    ['u0', 50],
    ['u50', 10],
    ['u50', 10],
    ['u50', 10],
    ['u50', 10],
  ]);
});

it('a worker without WhatsApp credentials is not retried (the policy names the type): the run fails after one send', async () => {
  const articleId = randomUUID();
  const acts = activities({ first: { title: 'Urgente', recipients: readers(0, 80), next: null } }, async () => {
    throw ApplicationFailure.create({ type: WHATSAPP_FAILURES.notConfigured, message: 'no WhatsApp access token' });
  });
  const outcome = await alerts(acts, { articleId });

  expect(outcome).toBeInstanceOf(WorkflowFailedError);
  const cause = (outcome as WorkflowFailedError).cause as ActivityFailure;
  expect(cause).toBeInstanceOf(ActivityFailure);
  expect([cause.activityType, (cause.cause as ApplicationFailure).type]).toEqual(['sendAlerts', WHATSAPP_FAILURES.notConfigured]);
  expect(acts.sendAlerts).toHaveBeenCalledTimes(1);
});

it('readers that cannot be read (the database away) fail the run after 10 attempts, minutes of back-off skipped; nothing sent', async () => {
  const articleId = randomUUID();
  const acts = activities({});
  acts.alertRecipients.mockImplementation(async () => {
    throw new Error('MongoServerSelectionError: connection refused');
  });
  const started = await suite.env.currentTimeMs();
  const outcome = await alerts(acts, { articleId });

  expect(outcome).toBeInstanceOf(WorkflowFailedError);
  expect(((outcome as WorkflowFailedError).cause as ActivityFailure).activityType).toBe('alertRecipients');
  expect(acts.alertRecipients).toHaveBeenCalledTimes(10);
  expect(acts.sendAlerts).not.toHaveBeenCalled();
  // RETRY.short: 1 s, 2 s, … capped at 1 min: about 4 minutes between the first and last attempts.
  expect((await suite.env.currentTimeMs()) - started).toBeGreaterThanOrEqual(4 * 60_000);
});
