/**
 * quizGenerationWorkflow and quizDailyWorkflow on the time-skipping test server with their
 * activities mocked (no database, no provider).
 *
 * - One quiz: nothing made when it exists; otherwise the model's draft saved under the run's id
 *   (`exists` when another writer won the unique index); an invalid answer asked for again, four
 *   tries at most (back-offs skipped), then `skipped` with the reason; a missing edition or an
 *   unusable provider not retried; the database away past its retries fails the run.
 * - The day: the server's clock moved (env.sleep) to a chosen instant, the day is the newsletter's
 *   calendar day in its time zone (or the schedule's TemporalScheduledStartTime, for a late run),
 *   and the quizzes made are both editions of the last edition day before it (Sunday skipped), one
 *   child `quiz-generation-<quizDate>` each; an admin's date instead; a quiz whose generation runs
 *   elsewhere reported as such; a child that fails fails the day.
 */
import { randomUUID } from 'node:crypto';
import { type ActivityFailure, ApplicationFailure, ChildWorkflowFailure, defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { WorkflowClient, WorkflowFailedError } from '@temporalio/client';
import type { QuizDraft } from '../../models/quiz/quiz.rules';
import { AI_FAILURES } from '../../models/ai/chat.rules';
import type { Edition } from '../../models/quiz/calendar.rules';
import { QUIZ_FAILURES } from '../../models/quiz/quiz.rules';
import { workflowIds } from '../../workflows/ids';
import { quizDailyWorkflow, quizGenerationWorkflow } from '../../workflows/quiz/generation.workflow';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(60_000);

const suite = workflowSuite();

type Day = { date: string; edition: Edition };
type Save = { draft: QuizDraft; workflowId: string; replaces?: string };

const quizDate = (d: Day): string => (d.edition === 'night' ? `${d.date}-night` : d.date);

function draftOf(d: Day): QuizDraft {
  return {
    date: d.date,
    edition: d.edition,
    editionTitle: `Edição ${quizDate(d)}`,
    questions: Array.from({ length: 10 }, (_, i) => ({ text: `Pergunta ${i + 1}?`, options: ['a', 'b', 'c', 'd'], correct: i % 4, evidence: `trecho ${i + 1}` })),
    model: 'gpt-test',
  };
}

/** Mocks of the quiz activities: no quiz exists, every draft is valid and every save creates, unless told otherwise. */
function activities(options: { find?: (d: Day) => Promise<{ quizId: string } | null>; draft?: (d: Day) => Promise<QuizDraft>; save?: (s: Save) => Promise<{ quizId: string; created: boolean }> } = {}) {
  return {
    findQuiz: jest.fn(options.find ?? (async (_d: Day) => null)),
    draftQuiz: jest.fn(options.draft ?? (async (d: Day) => draftOf(d))),
    saveQuiz: jest.fn(options.save ?? (async (s: Save) => ({ quizId: `quiz-${quizDate(s.draft)}`, created: true }))),
  };
}

async function generate(acts: ReturnType<typeof activities>, day: Day & { replaces?: string }) {
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
  const workflowId = workflowIds.quizGeneration(quizDate(day));
  const outcome = await run(() => suite.client.execute(quizGenerationWorkflow, { taskQueue, workflowId, args: [day] }).catch((err: unknown) => err));
  return { outcome, workflowId };
}

const DAY_MS = 86_400_000;
const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * Moves the server's clock on to the next `weekday` (0 Sunday … 6 Saturday, UTC) at `hour`:`minute`
 * UTC, at least a day ahead (so each test's dates, and its children's ids, are its own); returns it.
 */
async function skipTo(weekday: number, hour: number, minute = 0): Promise<number> {
  const now = await suite.env.currentTimeMs();
  const at = new Date(now + DAY_MS);
  at.setUTCHours(hour, minute, 0, 0);
  while (at.getUTCDay() !== weekday) at.setUTCDate(at.getUTCDate() + 1);
  await suite.env.sleep(at.getTime() - now);
  return at.getTime();
}

describe('quizGenerationWorkflow', () => {
  it('no quiz yet: drafts it from the edition, saves the draft under the run\'s own id, and says created', async () => {
    const day: Day = { date: '2031-03-04', edition: 'night' };
    const acts = activities();
    const { outcome, workflowId } = await generate(acts, day);

    expect(outcome).toEqual({ quizDate: '2031-03-04-night', status: 'created', quizId: 'quiz-2031-03-04-night' });
    expect(acts.findQuiz.mock.calls).toEqual([[day]]);
    expect(acts.draftQuiz.mock.calls).toEqual([[day]]);
    expect(acts.saveQuiz.mock.calls).toEqual([[{ draft: draftOf(day), workflowId }]]);
    expect(workflowId).toBe('quiz-generation-2031-03-04-night');
  });

  it('a quiz that exists is returned as it is: nothing drafted, nothing saved', async () => {
    const acts = activities({ find: async () => ({ quizId: 'quiz-already' }) });
    const { outcome } = await generate(acts, { date: '2031-03-05', edition: 'morning' });

    expect(outcome).toEqual({ quizDate: '2031-03-05', status: 'exists', quizId: 'quiz-already' });
    expect(acts.draftQuiz).not.toHaveBeenCalled();
    expect(acts.saveQuiz).not.toHaveBeenCalled();
  });

  it('a save that finds the quiz made meanwhile (another writer won the unique index) says exists, with that quiz', async () => {
    const acts = activities({ save: async () => ({ quizId: 'quiz-of-the-other-writer', created: false }) });
    const { outcome } = await generate(acts, { date: '2031-03-06', edition: 'morning' });

    expect(outcome).toEqual({ quizDate: '2031-03-06', status: 'exists', quizId: 'quiz-of-the-other-writer' });
    expect(acts.saveQuiz).toHaveBeenCalledTimes(1);
  });

  it('an invalid model answer is asked for again; the valid one of the third try is saved', async () => {
    let tries = 0;
    const acts = activities({
      draft: async (d) => {
        if (tries++ < 2) throw ApplicationFailure.create({ type: QUIZ_FAILURES.invalidModelOutput, message: 'question 4 has no correct option' });
        return draftOf(d);
      },
    });
    const day: Day = { date: '2031-03-07', edition: 'morning' };
    const { outcome, workflowId } = await generate(acts, day);

    expect(outcome).toEqual({ quizDate: '2031-03-07', status: 'created', quizId: 'quiz-2031-03-07' });
    expect(acts.draftQuiz).toHaveBeenCalledTimes(3);
    expect(acts.saveQuiz.mock.calls).toEqual([[{ draft: draftOf(day), workflowId }]]);
  });

  it('a model failing all four tries: the run ends skipped with the failure and its reason, nothing saved', async () => {
    const acts = activities({
      draft: async () => {
        throw ApplicationFailure.create({ type: QUIZ_FAILURES.invalidModelOutput, message: 'the answer is not JSON' });
      },
    });
    const { outcome } = await generate(acts, { date: '2031-03-08', edition: 'night' });

    expect(outcome).toEqual({ quizDate: '2031-03-08-night', status: 'skipped', failure: QUIZ_FAILURES.invalidModelOutput, reason: 'the answer is not JSON' });
    expect(acts.draftQuiz).toHaveBeenCalledTimes(4);
    expect(acts.saveQuiz).not.toHaveBeenCalled();
  });

  it.each([
    ['a missing edition', QUIZ_FAILURES.editionMissing, 'no edition 2031-03-10-morning is stored'],
    ['no AI provider', AI_FAILURES.notConfigured, 'this worker has no AI provider'],
    ['a misconfigured AI provider', AI_FAILURES.misconfigured, 'the AI provider refused the key'],
    ['the provider rejecting the request (4xx)', AI_FAILURES.rejected, 'provider answered 400'],
  ])('%s is not retried (the policy names the type): skipped with the failure and its reason, nothing saved', async (_what, type, message) => {
    const acts = activities({
      draft: async () => {
        // Not flagged non-retryable: the workflow's retry policy must be what stops it.
        throw ApplicationFailure.create({ type, message });
      },
    });
    const { outcome } = await generate(acts, { date: '2031-03-10', edition: 'morning' });

    expect(outcome).toEqual({ quizDate: '2031-03-10', status: 'skipped', failure: type, reason: message });
    expect(acts.draftQuiz).toHaveBeenCalledTimes(1);
    expect(acts.saveQuiz).not.toHaveBeenCalled();
  });

  it('the database away past its retries (10 tries, minutes of back-off skipped) fails the run: no draft', async () => {
    const acts = activities({
      find: async () => {
        throw new Error('MongoServerSelectionError: connection refused');
      },
    });
    const { outcome } = await generate(acts, { date: '2031-03-11', edition: 'morning' });

    expect(outcome).toBeInstanceOf(WorkflowFailedError);
    expect(((outcome as WorkflowFailedError).cause as ActivityFailure).activityType).toBe('findQuiz');
    expect(acts.findQuiz).toHaveBeenCalledTimes(10);
    expect(acts.draftQuiz).not.toHaveBeenCalled();
  });

  describe('made again (replaces: POST /quiz/admin/{id}/regenerate)', () => {
    it('drafts while the quiz stands, then saves the draft in its place and says replaced', async () => {
      const day: Day = { date: '2031-03-12', edition: 'night' };
      const acts = activities({ find: async () => ({ quizId: 'old-quiz' }), save: async () => ({ quizId: 'new-quiz', created: true }) });
      const { outcome, workflowId } = await generate(acts, { ...day, replaces: 'old-quiz' });

      expect(outcome).toEqual({ quizDate: '2031-03-12-night', status: 'replaced', quizId: 'new-quiz' });
      expect(acts.findQuiz.mock.calls).toEqual([[day]]);
      expect(acts.draftQuiz.mock.calls).toEqual([[day]]);
      expect(acts.saveQuiz.mock.calls).toEqual([[{ draft: draftOf(day), workflowId, replaces: 'old-quiz' }]]);
    });

    it('another quiz standing (made again meanwhile) is left as it is: nothing drafted, exists', async () => {
      const acts = activities({ find: async () => ({ quizId: 'made-meanwhile' }) });
      const { outcome } = await generate(acts, { date: '2031-03-13', edition: 'morning', replaces: 'old-quiz' });

      expect(outcome).toEqual({ quizDate: '2031-03-13', status: 'exists', quizId: 'made-meanwhile' });
      expect(acts.draftQuiz).not.toHaveBeenCalled();
      expect(acts.saveQuiz).not.toHaveBeenCalled();
    });

    it('a draft that fails leaves the quiz as it was: skipped, nothing saved', async () => {
      const acts = activities({
        find: async () => ({ quizId: 'old-quiz' }),
        draft: async () => {
          throw ApplicationFailure.create({ type: QUIZ_FAILURES.editionMissing, message: 'no edition 2031-03-14-morning is stored' });
        },
      });
      const { outcome } = await generate(acts, { date: '2031-03-14', edition: 'morning', replaces: 'old-quiz' });

      expect(outcome).toEqual({ quizDate: '2031-03-14', status: 'skipped', failure: QUIZ_FAILURES.editionMissing, reason: 'no edition 2031-03-14-morning is stored' });
      expect(acts.saveQuiz).not.toHaveBeenCalled();
    });

    it('the quiz gone meanwhile (deleted): the draft is stored as a new quiz, created', async () => {
      const day: Day = { date: '2031-03-16', edition: 'morning' };
      const acts = activities();
      const { outcome, workflowId } = await generate(acts, { ...day, replaces: 'old-quiz' });

      expect(outcome).toEqual({ quizDate: '2031-03-16', status: 'created', quizId: 'quiz-2031-03-16' });
      expect(acts.saveQuiz.mock.calls).toEqual([[{ draft: draftOf(day), workflowId }]]);
    });
  });
});

describe('quizDailyWorkflow', () => {
  /**
   * A daily run, awaited through a plain client: the server's clock stands still meanwhile (only
   * skipTo moves it), so the run's day is the one the test chose. Through suite.client, waiting on
   * a result lets the server skip time, and it was seen to jump years (to timers of earlier runs)
   * between two runs of one test. The runs wait on no timer: none needs time skipped.
   */
  async function daily(acts: ReturnType<typeof activities>, input: { timeZone: string; date?: string }, options: { scheduledAt?: Date } = {}) {
    const client = new WorkflowClient({ connection: suite.env.connection, namespace: suite.env.namespace ?? 'default' });
    const { taskQueue, run } = await mockedActivitiesWorker(suite.env, acts, { bundle: suite.bundle });
    const workflowId = `quiz-daily-${randomUUID()}`;
    // As a schedule's run carries it: when the schedule meant it to start.
    const typedSearchAttributes = options.scheduledAt ? [{ key: defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME), value: options.scheduledAt }] : undefined;
    const outcome = await run(() => client.execute(quizDailyWorkflow, { taskQueue, workflowId, args: [input], ...(typedSearchAttributes ? { typedSearchAttributes } : {}) }).catch((err: unknown) => err));
    return { outcome, workflowId };
  }

  it("on a Monday makes Saturday's two quizzes (Sunday has none), one child quiz-generation-<quizDate> each, results in edition order", async () => {
    const monday = await skipTo(1, 15); // 12:00 in São Paulo
    const saturday = isoDay(monday - 2 * DAY_MS);
    const acts = activities();
    const { outcome, workflowId } = await daily(acts, { timeZone: 'America/Sao_Paulo' });

    expect(outcome).toEqual({
      runDay: isoDay(monday),
      quizzes: [
        { quizDate: saturday, status: 'created', quizId: `quiz-${saturday}` },
        { quizDate: `${saturday}-night`, status: 'created', quizId: `quiz-${saturday}-night` },
      ],
    });
    expect(acts.draftQuiz.mock.calls.map(([d]) => d).sort((a, b) => a.edition.localeCompare(b.edition))).toEqual([
      { date: saturday, edition: 'morning' },
      { date: saturday, edition: 'night' },
    ]);
    expect(acts.saveQuiz.mock.calls.map(([s]) => s.workflowId).sort()).toEqual([`quiz-generation-${saturday}`, `quiz-generation-${saturday}-night`]);
    for (const id of [workflowIds.quizGeneration(saturday), workflowIds.quizGeneration(`${saturday}-night`)]) {
      const child = await suite.client.getHandle(id).describe();
      expect([child.type, child.status.name, child.parentExecution?.workflowId]).toEqual(['quizGenerationWorkflow', 'COMPLETED', workflowId]);
    }
  });

  it("the day is the newsletter's: at 01:30 UTC on a Tuesday São Paulo is still on Monday (Saturday's quizzes), UTC on Tuesday (Monday's)", async () => {
    const tuesday = await skipTo(2, 1, 30);
    const monday = isoDay(tuesday - DAY_MS);
    const saturday = isoDay(tuesday - 3 * DAY_MS);
    // The quizzes exist already: each child finds its own and makes nothing.
    const acts = activities({ find: async (d) => ({ quizId: `found-${quizDate(d)}` }) });

    const saoPaulo = await daily(acts, { timeZone: 'America/Sao_Paulo' });
    expect(saoPaulo.outcome).toEqual({
      runDay: monday,
      quizzes: [
        { quizDate: saturday, status: 'exists', quizId: `found-${saturday}` },
        { quizDate: `${saturday}-night`, status: 'exists', quizId: `found-${saturday}-night` },
      ],
    });
    const utc = await daily(acts, { timeZone: 'UTC' });
    expect(utc.outcome).toEqual({
      runDay: isoDay(tuesday),
      quizzes: [
        { quizDate: monday, status: 'exists', quizId: `found-${monday}` },
        { quizDate: `${monday}-night`, status: 'exists', quizId: `found-${monday}-night` },
      ],
    });
    expect(acts.draftQuiz).not.toHaveBeenCalled();
  });

  it("a late run the schedule meant for an earlier day makes that day's quizzes (TemporalScheduledStartTime), not today's", async () => {
    await skipTo(4, 15); // a Thursday: today's run would make Wednesday's quizzes
    // The test server knows only the search attributes it is told of (a real server has this one).
    await suite.env.connection.operatorService.addSearchAttributes({
      namespace: suite.env.namespace ?? 'default',
      searchAttributes: { TemporalScheduledStartTime: encodeSearchAttributeIndexedValueType(SearchAttributeType.DATETIME)! },
    });
    const scheduledAt = new Date('2025-01-06T15:00:00Z'); // a Monday
    const acts = activities();
    const { outcome } = await daily(acts, { timeZone: 'America/Sao_Paulo' }, { scheduledAt });

    expect(outcome).toEqual({
      runDay: '2025-01-06',
      quizzes: [
        { quizDate: '2025-01-04', status: 'created', quizId: 'quiz-2025-01-04' },
        { quizDate: '2025-01-04-night', status: 'created', quizId: 'quiz-2025-01-04-night' },
      ],
    });
  });

  it("given a date (an admin's), makes that day's two quizzes whatever today is; a quiz skipped is a result, not a failure", async () => {
    const wednesday = await skipTo(3, 15);
    const acts = activities({
      draft: async (d) => {
        if (d.edition === 'night') throw ApplicationFailure.create({ type: QUIZ_FAILURES.editionMissing, message: `no edition ${d.date}-night is stored`, nonRetryable: true });
        return draftOf(d);
      },
    });
    const { outcome } = await daily(acts, { timeZone: 'America/Sao_Paulo', date: '2031-04-01' });

    expect(outcome).toEqual({
      runDay: isoDay(wednesday),
      quizzes: [
        { quizDate: '2031-04-01', status: 'created', quizId: 'quiz-2031-04-01' },
        { quizDate: '2031-04-01-night', status: 'skipped', failure: QUIZ_FAILURES.editionMissing, reason: 'no edition 2031-04-01-night is stored' },
      ],
    });
    expect(acts.findQuiz.mock.calls.map(([d]) => d).sort((a, b) => a.edition.localeCompare(b.edition))).toEqual([
      { date: '2031-04-01', edition: 'morning' },
      { date: '2031-04-01', edition: 'night' },
    ]);
    expect(acts.saveQuiz).toHaveBeenCalledTimes(1);
  });

  it('a quiz whose generation is running elsewhere (an admin\'s) is reported as such and not started twice; the other is made', async () => {
    // The other run: started under the night quiz's id on a queue no worker polls, so it stays running.
    const elsewhere = await suite.client.start(quizGenerationWorkflow, { taskQueue: `nobody-${randomUUID()}`, workflowId: workflowIds.quizGeneration('2031-04-02-night'), args: [{ date: '2031-04-02', edition: 'night' }] });
    try {
      const acts = activities();
      const { outcome } = await daily(acts, { timeZone: 'America/Sao_Paulo', date: '2031-04-02' });

      expect(outcome).toMatchObject({
        quizzes: [
          { quizDate: '2031-04-02', status: 'created', quizId: 'quiz-2031-04-02' },
          { quizDate: '2031-04-02-night', status: 'running elsewhere', workflowId: 'quiz-generation-2031-04-02-night' },
        ],
      });
      expect(acts.findQuiz.mock.calls).toEqual([[{ date: '2031-04-02', edition: 'morning' }]]);
      expect((await elsewhere.describe()).runId).toBe(elsewhere.firstExecutionRunId);
    } finally {
      await elsewhere.terminate('test over');
    }
  });

  it('a quiz whose generation fails (the database away) fails the day, so the schedule shows it', async () => {
    const acts = activities({
      find: async (d) => {
        if (d.edition === 'morning') throw ApplicationFailure.create({ type: 'DatabaseDown', message: 'quizzes unreadable', nonRetryable: true });
        return null;
      },
    });
    const { outcome } = await daily(acts, { timeZone: 'America/Sao_Paulo', date: '2031-04-03' });

    expect(outcome).toBeInstanceOf(WorkflowFailedError);
    const child = (outcome as WorkflowFailedError).cause;
    expect(child).toBeInstanceOf(ChildWorkflowFailure);
    expect((child as ChildWorkflowFailure).execution.workflowId).toBe('quiz-generation-2031-04-03');
  });
});
