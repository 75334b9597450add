/**
 * Daily quiz generation (issue 12; docs/decisions.md "Quiz generation").
 *
 * - `quizDailyWorkflow` is what the schedule starts each day (and POST /quiz/admin/generate): it
 *   works out the day from the time it was scheduled for, and generates the quizzes due that day
 *   (both editions of the last edition day before it), one child workflow per quiz.
 * - `quizGenerationWorkflow` (id `quiz-generation-<quizDate>`) makes one quiz: nothing when the
 *   quiz exists; otherwise a model draft (an invalid answer is asked for again) and its storage
 *   under the unique {date, edition} index. A missing edition or AI provider ends it with that
 *   reason in its result, without retrying forever. With `replaces` (POST
 *   /quiz/admin/{id}/regenerate) the quiz of that id is made again: drafted while it stands, and
 *   replaced by the draft only once the draft passed (a failed draft leaves it as it was).
 *
 * Two runs for one quiz cannot overlap (the child's id), and runs one after the other find the
 * quiz made: a re-run, a retry, the schedule and an admin never make two quizzes of one date.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import type { QuizActivities } from './activities';
import { dueQuizzes, EDITIONS, quizDateOf, type Edition } from '../../models/quiz/calendar.rules';
import { localDate } from '../../models/shared/calendar.rules';
import { NON_RETRYABLE_AI_FAILURES } from '../../models/ai/chat.rules';
import { QUIZ_FAILURES } from '../../models/quiz/quiz.rules';
import { workflowIds } from '../ids';
import { RETRY, withNonRetryable } from '../retry-policies';

type Activities = QuizActivities;

const { findQuiz, saveQuiz } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  // The database away for longer than these tries fails this quiz's run; the next day's run (or an admin) makes it.
  retry: RETRY.short,
});

/** Failure types that end a quiz's generation at once: no edition, or a provider that cannot be used. */
const GIVE_UP = [QUIZ_FAILURES.editionMissing, ...NON_RETRYABLE_AI_FAILURES];

const { draftQuiz } = proxyActivities<Activities>({
  // A model call takes up to the provider time-out (60 s); the heartbeat-free call is bounded here.
  startToCloseTimeout: '2 minutes',
  // Four tries over ~7 s (RETRY.draft says why).
  retry: withNonRetryable(RETRY.draft, GIVE_UP),
});

export type QuizGenerationResult =
  | { quizDate: string; status: 'created' | 'exists' | 'replaced'; quizId: string }
  | { quizDate: string; status: 'skipped'; reason: string; failure: string }
  | { quizDate: string; status: 'running elsewhere'; workflowId: string };

export interface QuizGenerationInput {
  date: string;
  edition: Edition;
  /** Make the quiz again: the id of the one that stands, replaced by the new draft. */
  replaces?: string;
}

export async function quizGenerationWorkflow(input: QuizGenerationInput): Promise<QuizGenerationResult> {
  const quizDate = quizDateOf(input.date, input.edition);
  const { replaces, ...day } = input;
  const existing = await findQuiz(day);
  // A quiz other than the one to replace (made again meanwhile, or never asked to be) stands.
  if (existing && existing.quizId !== replaces) return { quizDate, status: 'exists', quizId: existing.quizId };
  let draft;
  try {
    draft = await draftQuiz(day);
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : undefined;
    if (cause instanceof ApplicationFailure) {
      // Given up (a missing edition or provider, or the model failing every attempt): the reason is the result.
      return { quizDate, status: 'skipped', failure: cause.type ?? 'unknown', reason: cause.message };
    }
    throw err;
  }
  if (replaces !== undefined && existing) {
    const saved = await saveQuiz({ draft, workflowId: workflowInfo().workflowId, replaces });
    return { quizDate, status: saved.created ? 'replaced' : 'exists', quizId: saved.quizId };
  }
  const saved = await saveQuiz({ draft, workflowId: workflowInfo().workflowId });
  return { quizDate, status: saved.created ? 'created' : 'exists', quizId: saved.quizId };
}

export interface QuizDailyInput {
  /** The newsletter's time zone (the day of the run is a calendar day there). */
  timeZone: string;
  /** Generate this edition day's quizzes instead of the ones due today. */
  date?: string;
}

export interface QuizDailyResult {
  runDay: string;
  quizzes: QuizGenerationResult[];
}

/** When the schedule meant this run to start (a late or caught-up run still makes its own day's quizzes). */
function scheduledAt(): Date {
  const attr = workflowInfo().searchAttributes?.TemporalScheduledStartTime;
  const first = Array.isArray(attr) ? attr[0] : undefined;
  const at = first instanceof Date ? first : typeof first === 'string' ? new Date(first) : undefined;
  return at && !Number.isNaN(at.getTime()) ? at : new Date();
}

export async function quizDailyWorkflow(input: QuizDailyInput): Promise<QuizDailyResult> {
  const runDay = localDate(scheduledAt(), input.timeZone);
  const due = input.date ? EDITIONS.map((edition) => ({ date: input.date!, edition, quizDate: quizDateOf(input.date!, edition) })) : dueQuizzes(runDay);
  const quizzes = await Promise.all(
    due.map(async ({ date, edition, quizDate }): Promise<QuizGenerationResult> => {
      const workflowId = workflowIds.quizGeneration(quizDate);
      try {
        const child = await startChild(quizGenerationWorkflow, { workflowId, args: [{ date, edition }] });
        return await child.result();
      } catch (err) {
        // Another run (an admin's, or a slow earlier one) is making this quiz right now.
        if (err instanceof WorkflowExecutionAlreadyStartedError) return { quizDate, status: 'running elsewhere', workflowId };
        throw err;
      }
    }),
  );
  return { runDay, quizzes };
}
