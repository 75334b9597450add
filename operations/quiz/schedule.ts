/**
 * The daily quiz generation schedule, for quiz administrators (issue 38, item 4): its state (paused
 * and why, the last runs and how each went, the next run times, the spec), pausing and resuming it,
 * and running it now. The schedule itself is kept by the workers (workers/schedules.ts); these use
 * cases reach it through a small port over Temporal's ScheduleHandle, built in the quiz service's
 * composition root (api/quiz/deps.ts), so the unit tests use a fake.
 *
 * - A schedule that does not exist is 404, naming why it may not (QUIZ_SCHEDULE_ENABLED).
 * - Temporal unreachable is 503 (the port bounds each call; api/shared/errors.ts classifies it).
 * - Running it now applies the schedule's own overlap policy, SKIP: while a run of the schedule is
 *   still going, a trigger would be dropped by Temporal, so it is refused (409) instead, with the
 *   run's id, and nothing changes.
 */
import { ScheduleNotFoundError, type ScheduleDescription, type ScheduleOverlapPolicy } from '@temporalio/client';
import type { Config } from '../../models/config';
import { AppError } from '../../models/errors';
import { scheduleLink, workflowRunLink } from '../../models/ops/temporal-ui.rules';
import { calendarCron, clockTime, readDailyRunResult, runStatus, type OverlapPolicy, type RunStatus } from '../../models/quiz/schedule.rules';

/** How a run of the schedule went, as far as Temporal still knows it. */
export interface ScheduleRunState {
  /** Temporal's execution status (`RUNNING`, `COMPLETED`, `FAILED`, `TERMINATED`, …). */
  status: string;
  closedAt?: Date | undefined;
  /** The run's result, when it completed. */
  result?: unknown;
  /** Why it failed, when it did. */
  failure?: string | undefined;
}

/** What the use cases need of Temporal: the schedule's handle, and how one of its runs went. */
export interface QuizSchedulePort {
  /** The schedule's id (the deployment's task-queue prefix, then `quiz-daily-generation`). */
  readonly scheduleId: string;
  describe(): Promise<Pick<ScheduleDescription, 'state' | 'info' | 'spec' | 'policies'>>;
  pause(note: string): Promise<void>;
  unpause(note: string): Promise<void>;
  trigger(overlap: ScheduleOverlapPolicy): Promise<void>;
  /** A run the schedule started; undefined when Temporal no longer has it (past its retention). */
  run(workflowId: string, runId: string): Promise<ScheduleRunState | undefined>;
}

export interface QuizScheduleDeps {
  quizSchedule: QuizSchedulePort;
  config: Pick<Config, 'quiz' | 'temporal'>;
  /** Waits between looks at a triggered run (tests do not wait). */
  sleep?: (ms: number) => Promise<void>;
}

/** The overlap policy a trigger applies: the schedule's own (workers/schedules.ts). */
export const TRIGGER_OVERLAP: OverlapPolicy = 'SKIP';
/** How long a trigger looks for the run it started before it answers without its id. */
export const TRIGGER_WAIT_MS = 3_000;
const TRIGGER_POLL_MS = 250;
/** The longest note kept in Temporal (the caller's, then who sent it). */
export const NOTE_MAX = 500;

export interface QuizScheduleRun {
  scheduledAt: Date;
  startedAt: Date;
  workflowId: string;
  runId: string;
  status: RunStatus;
  closedAt: Date | null;
  result: ReturnType<typeof readDailyRunResult>;
  failure: string | null;
  temporalUiUrl: string;
}

export interface QuizScheduleState {
  scheduleId: string;
  paused: boolean;
  note: string | null;
  spec: { cron: string[]; timeZone: string };
  configured: { time: string; timeZone: string; createdByWorkers: boolean };
  overlap: OverlapPolicy;
  catchupWindowMs: number;
  nextRuns: Date[];
  recentRuns: QuizScheduleRun[];
  running: { workflowId: string; runId: string }[];
  actionsTaken: number;
  skippedOverlap: number;
  missedCatchupWindow: number;
  createdAt: Date | null;
  updatedAt: Date | null;
  temporalUiUrl: string;
}

function missing(deps: QuizScheduleDeps): AppError {
  const why = deps.config.quiz.generation.scheduled
    ? 'workers serving the quiz-generation task queue create it at start-up: start one'
    : 'workers create it at start-up, which QUIZ_SCHEDULE_ENABLED=false turns off in this deployment';
  return new AppError('NOT_FOUND', `The daily quiz schedule ${deps.quizSchedule.scheduleId} does not exist: ${why}`);
}

/** Runs a call on the schedule, turning Temporal's "no such schedule" into a 404. */
async function onSchedule<T>(deps: QuizScheduleDeps, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) throw missing(deps);
    throw err;
  }
}

const text = (value: string | undefined, max: number): string | null => (value ? value.slice(0, max) : null);

/** A run's state, or unknown when Temporal cannot say now (the state of the schedule is still worth showing). */
async function runState(deps: QuizScheduleDeps, workflowId: string, runId: string): Promise<ScheduleRunState> {
  try {
    return (await deps.quizSchedule.run(workflowId, runId)) ?? { status: 'UNKNOWN' };
  } catch {
    return { status: 'UNKNOWN' };
  }
}

/** The schedule's state: paused or not and why, the last runs with their outcomes, the next runs, the spec. */
export async function quizScheduleState(deps: QuizScheduleDeps): Promise<QuizScheduleState> {
  const described = await onSchedule(deps, () => deps.quizSchedule.describe());
  const { namespace, uiUrl } = deps.config.temporal;
  const { hour, minute, timeZone, scheduled } = deps.config.quiz.generation;
  // Temporal keeps the last ten, oldest first: newest first here.
  const recent = [...described.info.recentActions].reverse().slice(0, 10);
  const recentRuns = await Promise.all(
    recent.map(async (a): Promise<QuizScheduleRun> => {
      const { workflowId, firstExecutionRunId: runId } = a.action.workflow;
      const state = await runState(deps, workflowId, runId);
      return {
        scheduledAt: a.scheduledAt,
        startedAt: a.takenAt,
        workflowId,
        runId,
        status: runStatus(state.status),
        closedAt: state.closedAt ?? null,
        result: state.status === 'COMPLETED' ? readDailyRunResult(state.result) : null,
        failure: text(state.failure, 1_000),
        temporalUiUrl: workflowRunLink(uiUrl, namespace, workflowId, runId),
      };
    }),
  );
  return {
    scheduleId: deps.quizSchedule.scheduleId,
    paused: described.state.paused,
    note: text(described.state.note, 1_000),
    spec: { cron: (described.spec.calendars ?? []).slice(0, 10).map(calendarCron), timeZone: described.spec.timezone ?? 'UTC' },
    configured: { time: clockTime(hour, minute), timeZone, createdByWorkers: scheduled },
    // Unspecified is the server's default, SKIP.
    overlap: described.policies.overlap ?? 'SKIP',
    catchupWindowMs: described.policies.catchupWindow,
    nextRuns: described.info.nextActionTimes.slice(0, 10),
    recentRuns,
    // The schedule learns that a run ended a moment after the run does: one seen closed is not running.
    running: described.info.runningActions
      .map((r) => ({ workflowId: r.workflow.workflowId, runId: r.workflow.firstExecutionRunId }))
      .filter((r) => !recentRuns.some((x) => x.runId === r.runId && x.status !== 'RUNNING' && x.status !== 'UNKNOWN'))
      .slice(0, 10),
    actionsTaken: described.info.numActionsTaken,
    skippedOverlap: described.info.numActionsSkippedOverlap,
    missedCatchupWindow: described.info.numActionsMissedCatchupWindow,
    createdAt: described.info.createdAt ?? null,
    updatedAt: described.info.lastUpdatedAt ?? null,
    temporalUiUrl: scheduleLink(uiUrl, namespace, deps.quizSchedule.scheduleId),
  };
}

/** The note kept in Temporal: the caller's (or the default), then who sent it, within NOTE_MAX. */
export function scheduleNote(note: string | undefined, fallback: string, by: string): string {
  const who = ` (by ${by.slice(0, 90)})`;
  return `${(note ?? fallback).slice(0, NOTE_MAX - who.length)}${who}`;
}

/** Pauses the schedule (no run starts until it is resumed); pausing a paused schedule changes its note. Gives the new state. */
export async function pauseQuizSchedule(deps: QuizScheduleDeps, input: { note?: string | undefined; by: string }): Promise<QuizScheduleState> {
  await onSchedule(deps, () => deps.quizSchedule.pause(scheduleNote(input.note, 'Paused', input.by)));
  return await quizScheduleState(deps);
}

/** Resumes the schedule (runs missed while paused are not made up). Gives the new state. */
export async function unpauseQuizSchedule(deps: QuizScheduleDeps, input: { note?: string | undefined; by: string }): Promise<QuizScheduleState> {
  await onSchedule(deps, () => deps.quizSchedule.unpause(scheduleNote(input.note, 'Resumed', input.by)));
  return await quizScheduleState(deps);
}

export interface QuizScheduleTriggered {
  scheduleId: string;
  overlap: OverlapPolicy;
  /** The run started, once Temporal shows it (null when it had not within TRIGGER_WAIT_MS: it starts shortly). */
  workflowId: string | null;
  runId: string | null;
  temporalUiUrl: string | null;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs the schedule's action now, as if it were due (also while paused), under its overlap policy
 * SKIP: 409 while a run of it is still going (Temporal would drop the trigger), and also when one
 * started between the look and the trigger (Temporal dropped it). Gives the run started, once seen.
 */
export async function triggerQuizSchedule(deps: QuizScheduleDeps): Promise<QuizScheduleTriggered> {
  const { namespace, uiUrl } = deps.config.temporal;
  const scheduleId = deps.quizSchedule.scheduleId;
  const before = await onSchedule(deps, () => deps.quizSchedule.describe());
  const going = before.info.runningActions[0];
  const refused = (workflowId: string) =>
    new AppError('CONFLICT', `A run of the quiz schedule is still going (${workflowId}); its overlap policy is ${TRIGGER_OVERLAP}, so a run now would be skipped: try again when it ends`, {
      details: { reason: 'run_in_progress', workflowId, overlap: TRIGGER_OVERLAP },
    });
  if (going) throw refused(going.workflow.workflowId);
  await onSchedule(deps, () => deps.quizSchedule.trigger(TRIGGER_OVERLAP));
  const wait = deps.sleep ?? sleep;
  for (let waited = 0; waited <= TRIGGER_WAIT_MS; waited += TRIGGER_POLL_MS) {
    const after = await onSchedule(deps, () => deps.quizSchedule.describe());
    if (after.info.numActionsTaken > before.info.numActionsTaken) {
      const started = after.info.recentActions.at(-1)!.action.workflow;
      return { scheduleId, overlap: TRIGGER_OVERLAP, workflowId: started.workflowId, runId: started.firstExecutionRunId, temporalUiUrl: workflowRunLink(uiUrl, namespace, started.workflowId, started.firstExecutionRunId) };
    }
    if (after.info.numActionsSkippedOverlap > before.info.numActionsSkippedOverlap) {
      throw refused(after.info.runningActions[0]?.workflow.workflowId ?? 'another run');
    }
    await wait(TRIGGER_POLL_MS);
  }
  return { scheduleId, overlap: TRIGGER_OVERLAP, workflowId: null, runId: null, temporalUiUrl: null };
}
