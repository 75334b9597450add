/**
 * The daily quiz schedule's use cases (operations/quiz/schedule.ts) with a fake of the port over
 * Temporal's ScheduleHandle, and the pure rules they present with (models/quiz/schedule.rules.ts).
 * tests/integration/quiz-schedule.test.ts runs them on the real Temporal dev server.
 */
import { ScheduleNotFoundError, type ScheduleDescription } from '@temporalio/client';
import { AppError } from '../../models/errors';
import { calendarCron, readDailyRunResult } from '../../models/quiz/schedule.rules';
import {
  NOTE_MAX,
  pauseQuizSchedule,
  quizScheduleState,
  scheduleNote,
  triggerQuizSchedule,
  unpauseQuizSchedule,
  type QuizScheduleDeps,
  type QuizSchedulePort,
  type ScheduleRunState,
} from '../../operations/quiz/schedule';

type Described = Pick<ScheduleDescription, 'state' | 'info' | 'spec' | 'policies'>;

const run = (at: string, runId: string) => ({
  scheduledAt: new Date(at),
  takenAt: new Date(new Date(at).getTime() + 150),
  action: { type: 'startWorkflow' as const, workflow: { workflowId: `quiz-daily-${at.replace('.000', '')}`, firstExecutionRunId: runId } },
});

/** What Temporal describes: the 07:00 UTC calendar, SKIP, two runs (oldest first), not paused. */
function described(o: Partial<Described['info']> & { paused?: boolean; note?: string } = {}): Described {
  const { paused = false, note, ...info } = o;
  return {
    state: { paused, ...(note === undefined ? {} : { note }) },
    spec: {
      calendars: [
        {
          second: [{ start: 0, end: 0, step: 1 }],
          minute: [{ start: 0, end: 0, step: 1 }],
          hour: [{ start: 7, end: 7, step: 1 }],
          dayOfMonth: [{ start: 1, end: 31, step: 1 }],
          month: [{ start: 'JANUARY', end: 'DECEMBER', step: 1 }],
          year: [],
          dayOfWeek: [{ start: 'SUNDAY', end: 'SATURDAY', step: 1 }],
          comment: 'daily quiz generation',
        },
      ],
      intervals: [],
      skip: [],
      timezone: 'UTC',
    } as unknown as Described['spec'],
    policies: { overlap: 'SKIP', catchupWindow: 86_400_000, pauseOnFailure: false },
    info: {
      recentActions: [run('2031-03-03T07:00:00.000Z', 'run-mon'), run('2031-03-04T07:00:00.000Z', 'run-tue')],
      nextActionTimes: [new Date('2031-03-05T07:00:00Z'), new Date('2031-03-06T07:00:00Z')],
      numActionsTaken: 2,
      numActionsMissedCatchupWindow: 0,
      numActionsSkippedOverlap: 0,
      createdAt: new Date('2031-03-01T12:00:00Z'),
      lastUpdatedAt: new Date('2031-03-02T12:00:00Z'),
      runningActions: [],
      ...info,
    },
  };
}

const tuesdayResult = { runDay: '2031-03-04', quizzes: [{ quizDate: '2031-03-03', status: 'created', quizId: 'q-mon' }, { quizDate: '2031-03-03-night', status: 'skipped', reason: 'no edition 2031-03-03-night is stored', failure: 'QUIZ_EDITION_MISSING' }] };

/** A fake port: Temporal's answers in order (describe), and what was asked of it. */
function fakes(o: { describes?: (Described | Error)[]; runs?: Record<string, ScheduleRunState | undefined | Error>; fail?: Error; scheduled?: boolean } = {}) {
  const asked: string[] = [];
  const describes = [...(o.describes ?? [described()])];
  const next = async () => {
    const d = describes.length > 1 ? describes.shift()! : describes[0]!;
    if (d instanceof Error) throw d;
    return d;
  };
  const port: QuizSchedulePort = {
    scheduleId: 'p-quiz-daily-generation',
    describe: async () => {
      asked.push('describe');
      if (o.fail) throw o.fail;
      return await next();
    },
    pause: async (note) => {
      asked.push(`pause ${note}`);
      if (o.fail) throw o.fail;
    },
    unpause: async (note) => {
      asked.push(`unpause ${note}`);
      if (o.fail) throw o.fail;
    },
    trigger: async (overlap) => {
      asked.push(`trigger ${overlap}`);
      if (o.fail) throw o.fail;
    },
    run: async (workflowId) => {
      const r = (o.runs ?? {})[workflowId];
      if (r instanceof Error) throw r;
      return r;
    },
  };
  const deps: QuizScheduleDeps = {
    quizSchedule: port,
    config: {
      quiz: { timeZone: 'America/Sao_Paulo', generation: { hour: 7, minute: 0, timeZone: 'UTC', scheduled: o.scheduled ?? true }, model: 'gpt-test' },
      temporal: { address: 'x', namespace: 'default', uiPort: 8233, uiUrl: 'http://ui.test', workerQueues: undefined, workflowBundle: undefined, taskQueuePrefix: 'p-' },
    },
    sleep: async () => undefined,
  };
  return { deps, asked };
}

describe('the schedule\'s state', () => {
  it('gives the spec as cron, the next runs, and the last runs newest first with what each made', async () => {
    const { deps } = fakes({
      runs: {
        'quiz-daily-2031-03-04T07:00:00Z': { status: 'COMPLETED', closedAt: new Date('2031-03-04T07:00:40Z'), result: tuesdayResult },
        'quiz-daily-2031-03-03T07:00:00Z': { status: 'FAILED', closedAt: new Date('2031-03-03T07:01:00Z'), failure: 'Child workflow execution failed' },
      },
    });
    const s = await quizScheduleState(deps);
    expect(s).toMatchObject({
      scheduleId: 'p-quiz-daily-generation',
      paused: false,
      note: null,
      spec: { cron: ['0 7 * * *'], timeZone: 'UTC' },
      configured: { time: '07:00', timeZone: 'UTC', createdByWorkers: true },
      overlap: 'SKIP',
      catchupWindowMs: 86_400_000,
      nextRuns: [new Date('2031-03-05T07:00:00Z'), new Date('2031-03-06T07:00:00Z')],
      running: [],
      temporalUiUrl: 'http://ui.test/namespaces/default/schedules/p-quiz-daily-generation',
    });
    expect(s.recentRuns.map((r) => [r.workflowId, r.status])).toEqual([
      ['quiz-daily-2031-03-04T07:00:00Z', 'COMPLETED'],
      ['quiz-daily-2031-03-03T07:00:00Z', 'FAILED'],
    ]);
    expect(s.recentRuns[0]!.result).toEqual({
      runDay: '2031-03-04',
      quizzes: [
        { quizDate: '2031-03-03', status: 'created', quizId: 'q-mon', reason: null },
        { quizDate: '2031-03-03-night', status: 'skipped', quizId: null, reason: 'no edition 2031-03-03-night is stored' },
      ],
    });
    expect(s.recentRuns[1]).toMatchObject({ result: null, failure: 'Child workflow execution failed' });
    expect(s.recentRuns[0]!.temporalUiUrl).toBe('http://ui.test/namespaces/default/workflows/quiz-daily-2031-03-04T07%3A00%3A00Z/run-tue/history');
  });

  it('does not list as running a run already seen closed (the schedule learns it a moment later)', async () => {
    const tuesday = run('2031-03-04T07:00:00.000Z', 'run-tue').action;
    const { deps } = fakes({ describes: [described({ runningActions: [tuesday] })], runs: { 'quiz-daily-2031-03-04T07:00:00Z': { status: 'COMPLETED', result: tuesdayResult } } });
    expect((await quizScheduleState(deps)).running).toEqual([]);
    const still = fakes({ describes: [described({ runningActions: [tuesday] })], runs: { 'quiz-daily-2031-03-04T07:00:00Z': { status: 'RUNNING' } } });
    expect((await quizScheduleState(still.deps)).running).toEqual([{ workflowId: 'quiz-daily-2031-03-04T07:00:00Z', runId: 'run-tue' }]);
  });

  it('shows a run Temporal cannot describe now (or no longer keeps) as UNKNOWN, and the rest as usual', async () => {
    const { deps } = fakes({ runs: { 'quiz-daily-2031-03-04T07:00:00Z': new Error('deadline'), 'quiz-daily-2031-03-03T07:00:00Z': undefined } });
    const s = await quizScheduleState(deps);
    expect(s.recentRuns.map((r) => [r.status, r.result, r.closedAt])).toEqual([
      ['UNKNOWN', null, null],
      ['UNKNOWN', null, null],
    ]);
  });

  it('is 404 when the schedule does not exist, saying why it may not', async () => {
    const enabled = fakes({ fail: new ScheduleNotFoundError('workflow not found', 'p-quiz-daily-generation') });
    await expect(quizScheduleState(enabled.deps)).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/p-quiz-daily-generation does not exist: workers .* create it at start-up/) });
    const disabled = fakes({ fail: new ScheduleNotFoundError('workflow not found', 'p-quiz-daily-generation'), scheduled: false });
    await expect(quizScheduleState(disabled.deps)).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/QUIZ_SCHEDULE_ENABLED=false/) });
  });

  it('lets Temporal being away through as it is (the error envelope makes it a 503), never a 404', async () => {
    const down = Object.assign(new Error('14 UNAVAILABLE'), { name: 'ServiceError', cause: { code: 14 } });
    const { deps } = fakes({ fail: down });
    await expect(quizScheduleState(deps)).rejects.toBe(down);
  });
});

describe('pausing and resuming', () => {
  it('keeps the note with who sent it, and answers the new state', async () => {
    const { deps, asked } = fakes({ describes: [described({ paused: true, note: 'Edição atrasada (by admin-1)' })] });
    const s = await pauseQuizSchedule(deps, { note: 'Edição atrasada', by: 'admin-1' });
    expect(asked[0]).toBe('pause Edição atrasada (by admin-1)');
    expect(s).toMatchObject({ paused: true, note: 'Edição atrasada (by admin-1)' });
    await unpauseQuizSchedule(deps, { by: 'admin-1' });
    expect(asked).toContain('unpause Resumed (by admin-1)');
  });

  it('holds the note within what Temporal keeps, however long who is', () => {
    const note = scheduleNote('n'.repeat(400), 'Paused', 'x'.repeat(5_000));
    expect(note.length).toBeLessThanOrEqual(NOTE_MAX);
    expect(note).toMatch(/^n{400} \(by x{90}\)$/);
  });

  it('is 404 for a schedule that does not exist, having changed nothing', async () => {
    const { deps } = fakes({ fail: new ScheduleNotFoundError('workflow not found', 'p-quiz-daily-generation') });
    await expect(pauseQuizSchedule(deps, { by: 'admin-1' })).rejects.toBeInstanceOf(AppError);
    await expect(unpauseQuizSchedule(deps, { by: 'admin-1' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('running it now', () => {
  const started = described({ numActionsTaken: 3, recentActions: [...described().info.recentActions, run('2031-03-04T10:02:31.000Z', 'run-now')] });

  it('triggers under the schedule\'s SKIP policy and answers with the run it started', async () => {
    const { deps, asked } = fakes({ describes: [described(), described(), started] });
    await expect(triggerQuizSchedule(deps)).resolves.toEqual({
      scheduleId: 'p-quiz-daily-generation',
      overlap: 'SKIP',
      workflowId: 'quiz-daily-2031-03-04T10:02:31Z',
      runId: 'run-now',
      temporalUiUrl: 'http://ui.test/namespaces/default/workflows/quiz-daily-2031-03-04T10%3A02%3A31Z/run-now/history',
    });
    expect(asked.filter((a) => a.startsWith('trigger'))).toEqual(['trigger SKIP']);
  });

  it('is refused (409) while a run of the schedule is going, without triggering', async () => {
    const going = described({ runningActions: [run('2031-03-04T07:00:00.000Z', 'run-tue').action] });
    const { deps, asked } = fakes({ describes: [going] });
    const err = await triggerQuizSchedule(deps).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/still going \(quiz-daily-2031-03-04T07:00:00Z\).*SKIP/), details: { reason: 'run_in_progress' } });
    expect(asked).not.toContain('trigger SKIP');
  });

  it('is refused (409) when Temporal skipped it (a run started between the look and the trigger)', async () => {
    const skipped = described({ numActionsSkippedOverlap: 1, runningActions: [run('2031-03-04T07:00:00.000Z', 'run-tue').action] });
    const { deps } = fakes({ describes: [described(), skipped] });
    await expect(triggerQuizSchedule(deps)).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('answers without the run when Temporal has not shown it within the wait', async () => {
    const { deps } = fakes({ describes: [described()] });
    await expect(triggerQuizSchedule(deps)).resolves.toMatchObject({ overlap: 'SKIP', workflowId: null, runId: null, temporalUiUrl: null });
  });

  it('is 404 for a schedule that does not exist', async () => {
    const { deps, asked } = fakes({ fail: new ScheduleNotFoundError('workflow not found', 'p-quiz-daily-generation') });
    await expect(triggerQuizSchedule(deps)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(asked).toEqual(['describe']);
  });
});

describe('the rules it presents with', () => {
  it('writes calendars as cron', () => {
    expect(calendarCron({ minute: [{ start: 30, end: 30, step: 1 }], hour: [{ start: 4, end: 4, step: 1 }], dayOfWeek: [{ start: 'MONDAY', end: 'SATURDAY', step: 1 }] })).toBe('30 4 * * 1-6');
    expect(calendarCron({ second: [{ start: 15, end: 15 }], minute: [{ start: 0, end: 45, step: 15 }], hour: [{ start: 7 }, { start: 19 }], month: [{ start: 'MARCH', end: 'MARCH' }] })).toBe('15 0-45/15 7,19 * 3 *');
    expect(calendarCron({ year: [{ start: 2031, end: 2031 }] })).toBe('* * * * * 2031');
  });

  it('reads a run\'s result only when it has the known shape', () => {
    expect(readDailyRunResult({ runDay: '2031-03-04', quizzes: [] })).toEqual({ runDay: '2031-03-04', quizzes: [] });
    expect(readDailyRunResult({ runDay: 'tuesday', quizzes: [] })).toBeNull();
    expect(readDailyRunResult({ runDay: '2031-03-04', quizzes: [{ quizDate: '2031-03-03', status: 'exploded' }] })).toBeNull();
    expect(readDailyRunResult(null)).toBeNull();
    expect(readDailyRunResult({ runDay: '2031-03-04', quizzes: [{ quizDate: '2031-03-03', status: 'skipped', reason: 'r'.repeat(5_000) }] })!.quizzes[0]!.reason).toHaveLength(500);
  });
});
