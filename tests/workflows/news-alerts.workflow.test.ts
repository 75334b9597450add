/**
 * newsAlertsWorkflow (issue 40) on the time-skipping test server with its activities mocked: the
 * audience read a page at a time by cursor, each page's WhatsApp and e-mail recipients sent in
 * batches of at most 50 per channel, the counts summed; an article that is not (or no longer)
 * breaking sends nothing; a mail batch whose server is away retried alone and counted once; a page
 * that cannot be read fails the run after its attempts.
 */
import { randomUUID } from 'node:crypto';
import { ApplicationFailure, type ActivityFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { workflowIds } from '../../workflows/ids';
import { newsAlertsWorkflow } from '../../workflows/news/alerts.workflow';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const suite = workflowSuite();

type Phone = { userId: string; phone: string; inWindow: boolean };
type Mail = { userId: string; to: string; language: 'pt' | 'en' };
type Push = { userId: string; language: 'pt' | 'en' };
type Page = { title: string | null; push?: Push[]; whatsapp: Phone[]; email: Mail[]; next: string | null };

const phones = (from: number, n: number): Phone[] => Array.from({ length: n }, (_, i) => ({ userId: `p${from + i}`, phone: `55119${String(from + i).padStart(8, '0')}`, inWindow: true }));
const mails = (from: number, n: number): Mail[] => Array.from({ length: n }, (_, i) => ({ userId: `m${from + i}`, to: `m${from + i}@example.com`, language: i % 2 ? 'en' : 'pt' }));

function activities(pages: Record<string, Page>, mail: (b: { articleId: string; recipients: Mail[] }) => Promise<{ sent: number; failed: number; skipped: number }> = async (b) => ({ sent: b.recipients.length, failed: 0, skipped: 0 })) {
  return {
    alertAudience: jest.fn(async (input: { articleId: string; after: string | null; limit: number }) => {
      const page = pages[input.after ?? 'first'];
      if (!page) throw ApplicationFailure.create({ type: 'TestBroken', message: `no page after ${input.after}`, nonRetryable: true });
      return page;
    }),
    sendAlerts: jest.fn(async (b: { recipients: unknown[] }) => ({ sent: b.recipients.length, capped: 0, refused: 0 })),
    sendMailAlerts: jest.fn(mail),
    sendPushAlerts: jest.fn(async (b: { articleId: string; recipients: Push[] }) => ({ sent: b.recipients.length * 2, gone: 1, refused: 0, skipped: 0, unsubscribed: 0 })),
  };
}

async function alerts(acts: ReturnType<typeof activities>, input: { articleId: string; pageSize?: number }) {
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  return await run(() => suite.client.execute(newsAlertsWorkflow, { taskQueue, workflowId: workflowIds.newsAlerts(input.articleId), args: [input] }).catch((err: unknown) => err));
}

it('reads the audience a page at a time and sends each channel in batches of at most 50, summing the counts', async () => {
  const articleId = randomUUID();
  const acts = activities({
    first: { title: 'Copom sobe a Selic', whatsapp: phones(0, 70), email: mails(0, 120), next: 'cursor-1' },
    'cursor-1': { title: 'Copom sobe a Selic', whatsapp: [], email: mails(120, 5), next: null },
  });
  const result = await alerts(acts, { articleId, pageSize: 200 });

  expect(result).toEqual({ whatsapp: { recipients: 70, sent: 70, capped: 0, refused: 0 }, email: { recipients: 125, sent: 125, failed: 0, skipped: 0 } });
  expect(acts.alertAudience.mock.calls).toEqual([[{ articleId, after: null, limit: 200 }], [{ articleId, after: 'cursor-1', limit: 200 }]]);
  expect(acts.sendAlerts.mock.calls.map(([b]) => b.recipients.length)).toEqual([50, 20]);
  expect(acts.sendMailAlerts.mock.calls.map(([b]) => [b.recipients[0]!.userId, b.recipients.length])).toEqual([
    ['m0', 50],
    ['m50', 50],
    ['m100', 20],
    ['m120', 5],
  ]);
});

it('sends the push recipients in batches of at most 50 first, summing what each batch counted (browsers, not readers); a run without push has no push counts', async () => {
  const articleId = randomUUID();
  const pushed: Push[] = Array.from({ length: 60 }, (_, i) => ({ userId: `b${i}`, language: 'en' }));
  const acts = activities({ first: { title: 'Copom sobe a Selic', push: pushed, whatsapp: [], email: mails(0, 2), next: null } });
  const result = await alerts(acts, { articleId });

  expect(result).toEqual({ push: { recipients: 60, sent: 120, gone: 2, refused: 0, unsubscribed: 0 }, whatsapp: { recipients: 0, sent: 0, capped: 0, refused: 0 }, email: { recipients: 2, sent: 2, failed: 0, skipped: 0 } });
  expect(acts.sendPushAlerts.mock.calls.map(([b]) => [b.articleId, b.recipients[0]!.userId, b.recipients.length])).toEqual([
    [articleId, 'b0', 50],
    [articleId, 'b50', 10],
  ]);
  expect(acts.sendPushAlerts.mock.invocationCallOrder[1]!).toBeLessThan(acts.sendMailAlerts.mock.invocationCallOrder[0]!);
});

it('an article that is not (or no longer) breaking ends the run at once: nothing sent, 500 readers a page unless told', async () => {
  const articleId = randomUUID();
  const acts = activities({ first: { title: null, whatsapp: [], email: [], next: 'c' } });
  expect(await alerts(acts, { articleId })).toEqual({ whatsapp: { recipients: 0, sent: 0, capped: 0, refused: 0 }, email: { recipients: 0, sent: 0, failed: 0, skipped: 0 } });
  expect(acts.alertAudience.mock.calls).toEqual([[{ articleId, after: null, limit: 500 }]]);
  expect(acts.sendAlerts).not.toHaveBeenCalled();
  expect(acts.sendMailAlerts).not.toHaveBeenCalled();
});

it('a mail batch whose server is away is retried alone (back-off skipped) and counted once; refused mail is counted as failed', async () => {
  const articleId = randomUUID();
  let away = 0;
  const acts = activities({ first: { title: 'Urgente', whatsapp: [], email: mails(0, 60), next: null } }, async (b) => {
    if (b.recipients[0]!.userId === 'm50' && away++ < 3) throw ApplicationFailure.create({ type: 'DEPENDENCY_UNAVAILABLE', message: 'mail is unavailable, please retry later' });
    return { sent: b.recipients.length - 1, failed: 1, skipped: 0 };
  });
  const result = await alerts(acts, { articleId });

  expect(result).toEqual({ whatsapp: { recipients: 0, sent: 0, capped: 0, refused: 0 }, email: { recipients: 60, sent: 58, failed: 2, skipped: 0 } });
  expect(acts.sendMailAlerts.mock.calls.map(([b]) => b.recipients[0]!.userId)).toEqual(['m0', 'm50', 'm50', 'm50', 'm50']);
});

it('an audience that cannot be read fails the run after its attempts; nothing sent', async () => {
  const articleId = randomUUID();
  const acts = activities({});
  acts.alertAudience.mockImplementation(async () => {
    throw new Error('MongoServerSelectionError: connection refused');
  });
  const outcome = await alerts(acts, { articleId });

  expect(outcome).toBeInstanceOf(WorkflowFailedError);
  expect(((outcome as WorkflowFailedError).cause as ActivityFailure).activityType).toBe('alertAudience');
  expect(acts.alertAudience).toHaveBeenCalledTimes(10);
  expect(acts.sendMailAlerts).not.toHaveBeenCalled();
});
