/**
 * Quizzes, the use cases (issue 12, spec §4.1, §4.2; docs/decisions.md "Quizzes"): which quizzes a
 * reader can take and how each went, one quiz without its answers, submitting an answer sheet (one
 * attempt per reader and quiz, within its days, for a day not read), and the administrators'
 * generating and creating. Routes parse and present; these decide.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Config } from '../../models/config';
import { chatFailure } from '../../models/ai/ai-failures';
import { AppError, notFound } from '../../models/errors';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import { quizDailyWorkflow, quizGenerationWorkflow, type QuizGenerationResult } from '../../workflows/quiz/generation.workflow';
import type { AttemptDoc } from '../../models/quiz/attempt.repo';
import { EDITIONS, MAX_DAYS_RECOVERY, previousEditionDay, quizDateOf, withinRecovery, type Edition } from '../../models/quiz/calendar.rules';
import { addDays } from '../../models/shared/calendar.rules';
import { editionId, EditionDate } from '../../models/quiz/edition.rules';
import { publicQuestions, QUIZ_FAILURES, QUIZ_RULES, quizDescription, quizTitle, score, type QuizDoc, type QuizQuestion, type Scored } from '../../models/quiz/quiz.rules';
import { activityBetween, markRecovered, today, type ReaderDaysDeps } from './reader-days';

export interface QuizOperationDeps extends ReaderDaysDeps {
  temporal: { client: Pick<Client, 'workflow'> };
  config: Pick<Config, 'quiz' | 'temporal'>;
}

/** A quiz as a reader sees it in a list: how their attempt went and whether they can still submit. */
export interface QuizSummary {
  id: string;
  title: string;
  description: string;
  quizDate: string;
  edition: Edition;
  postId: string;
  minCorrectAnswers: number;
  alreadyAttempted: boolean;
  attemptResult: { passed: boolean; correctAnswers: number; streakRecovered: boolean } | null;
  date: string;
  availableUntil: string;
  canSubmit: boolean;
}

function summary(q: Omit<QuizDoc, 'questions'>, attempt: AttemptDoc | undefined, readDays: ReadonlySet<string>, on: string): QuizSummary {
  return {
    id: q._id,
    title: q.title,
    description: q.description,
    quizDate: q.quizDate,
    edition: q.edition,
    postId: q.postId,
    minCorrectAnswers: q.minCorrectAnswers,
    alreadyAttempted: attempt !== undefined,
    attemptResult: attempt ? { passed: attempt.passed, correctAnswers: attempt.correctAnswers, streakRecovered: attempt.streakRecovered } : null,
    date: q.date,
    availableUntil: addDays(q.date, MAX_DAYS_RECOVERY),
    canSubmit: attempt === undefined && withinRecovery(q.date, on) && !readDays.has(q.date),
  };
}

const attemptAt = (attempts: readonly AttemptDoc[], quizId: string) => attempts.find((a) => a.quizId === quizId);

/** The quizzes of the last MAX_DAYS_RECOVERY days, newest first, as the reader sees them. */
export async function availableQuizzes(deps: QuizOperationDeps, userId: string): Promise<QuizSummary[]> {
  const on = today(deps);
  const window = { from: addDays(on, -MAX_DAYS_RECOVERY), to: addDays(on, -1) };
  const [quizzes, days] = await Promise.all([deps.quiz.quizzes.between(window.from, window.to), activityBetween(deps, userId, window.from, window.to)]);
  return quizzes.map((q) => summary(q, attemptAt(days.attempts, q._id), days.read, on));
}

/** One quiz with its questions and options, never which option is correct. */
export async function quizForReader(deps: QuizOperationDeps, userId: string, quizId: string) {
  const quiz = (await deps.quiz.quizzes.get(quizId)) ?? notFound('Quiz');
  const days = await activityBetween(deps, userId, quiz.date, quiz.date);
  return { ...summary(quiz, attemptAt(days.attempts, quiz._id), days.read, today(deps)), totalQuestions: quiz.questions.length, questions: publicQuestions(quiz.questions) };
}

export interface Submitted extends Scored {
  quiz: QuizDoc;
}

const alreadyAttempted = () => new AppError('FORBIDDEN', 'You have already attempted this quiz');

/**
 * Scores a reader's answer sheet and stores it as their one attempt at the quiz. Refused (403,
 * nothing recorded) outside the quiz's days, for a day already read, and for a second attempt,
 * however many arrive at once (the attempt's unique index decides). A pass recovers the day.
 */
export async function submitAnswers(deps: QuizOperationDeps, input: { userId: string; quizId: string; answers: number[] }): Promise<Submitted> {
  const quiz = (await deps.quiz.quizzes.get(input.quizId)) ?? notFound('Quiz');
  const on = today(deps);
  if (!withinRecovery(quiz.date, on)) {
    const until = addDays(quiz.date, MAX_DAYS_RECOVERY);
    throw new AppError('FORBIDDEN', on <= quiz.date ? `This quiz opens on ${addDays(quiz.date, 1)}` : `This quiz could be taken until ${until}; it can no longer be submitted`);
  }
  const days = await activityBetween(deps, input.userId, quiz.date, quiz.date);
  const before = attemptAt(days.attempts, quiz._id);
  if (before) {
    // A retry after a pass whose day was not marked (the mark failed after the attempt was stored).
    if (before.streakRecovered) await markRecovered(deps, input.userId, quiz.date);
    throw alreadyAttempted();
  }
  if (days.read.has(quiz.date)) throw new AppError('FORBIDDEN', `You already read the edition of ${quiz.date}: there is nothing to recover`);
  const scored = score(quiz, input.answers);
  const recorded = await deps.quiz.attempts.insert({
    userId: input.userId,
    quizId: quiz._id,
    quizDate: quiz.quizDate,
    date: quiz.date,
    edition: quiz.edition,
    title: quiz.title,
    answers: input.answers,
    correctAnswers: scored.correctAnswers,
    totalQuestions: quiz.questions.length,
    minCorrectAnswers: quiz.minCorrectAnswers,
    passed: scored.passed,
    streakRecovered: scored.passed,
    at: new Date(),
  });
  // Another submission of the same reader got there first.
  if (!recorded) throw alreadyAttempted();
  if (scored.passed) await markRecovered(deps, input.userId, quiz.date);
  return { ...scored, quiz };
}

/**
 * Starts the generation of both editions' quizzes of a day (what the daily schedule runs), by
 * default the last edition day before today. Asking again while it runs joins the same run.
 */
export async function startDayGeneration(deps: QuizOperationDeps, input: { date?: string | undefined }) {
  const date = input.date ?? previousEditionDay(today(deps));
  const workflowId = workflowIds.quizGenerationDay(date);
  const handle = await deps.temporal.client.workflow.start(quizDailyWorkflow, {
    taskQueue: taskQueueName(deps.config.temporal.taskQueuePrefix, TASK_QUEUES.quiz),
    workflowId,
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [{ timeZone: deps.config.quiz.timeZone, date }],
    workflowExecutionTimeout: '1 hour',
  });
  return { workflowId, runId: handle.firstExecutionRunId, date, quizDates: EDITIONS.map((e) => quizDateOf(date, e)) };
}

const exists = (quizDate: string) => new AppError('CONFLICT', `A quiz already exists for ${quizDate}`);

/** What a generation that gave up means to the admin who asked for it. */
function generationRefused(result: Extract<QuizGenerationResult, { status: 'skipped' }>): AppError {
  if (result.failure === QUIZ_FAILURES.editionMissing) return new AppError('VALIDATION_FAILED', `${result.reason}: store it first (PUT /quiz/admin/editions/{date}/{edition}) or send the questions`);
  return new AppError('DEPENDENCY_UNAVAILABLE', `The AI provider did not produce a quiz: ${result.reason}`, { details: { dependency: 'ai-provider' } });
}

export interface CreateQuizInput {
  date?: string | undefined;
  edition: Edition;
  title?: string | undefined;
  description?: string | undefined;
  questions?: QuizQuestion[] | undefined;
}

/**
 * Creates a quiz for a day (retroactive or future, by default today): stored as written when the
 * admin sends the questions, otherwise generated from the stored edition and waited for (joining a
 * generation of it already under way). 409 when the day and edition have one; 400 when the edition
 * is not stored; 503 when the AI provider cannot make it.
 */
export async function createQuiz(deps: QuizOperationDeps, input: CreateQuizInput): Promise<{ quizId: string; date: string; quizDate: string; edition: Edition }> {
  const date = input.date ?? today(deps);
  if (date !== input.date && !EditionDate.safeParse(date).success) throw new AppError('VALIDATION_FAILED', 'Today is a Sunday, which has no editions: give a date');
  const quizDate = quizDateOf(date, input.edition);
  if (await deps.quiz.quizzes.find(date, input.edition)) throw exists(quizDate);
  if (input.questions) {
    const edition = await deps.quiz.editions.get(date, input.edition);
    const { doc, created } = await deps.quiz.quizzes.insert({
      date,
      edition: input.edition,
      quizDate,
      postId: editionId(date, input.edition),
      title: input.title ?? quizTitle(date, input.edition),
      description: input.description ?? (edition ? quizDescription(edition.title) : `${QUIZ_RULES.totalQuestions} perguntas sobre a edição.`),
      minCorrectAnswers: QUIZ_RULES.minCorrectAnswers,
      questions: input.questions.map((q) => ({ text: q.text, options: q.options, correct: q.correct })),
      origin: 'manual',
    });
    if (!created) throw exists(quizDate);
    return { quizId: doc._id, date, quizDate, edition: input.edition };
  }
  let result: QuizGenerationResult;
  try {
    result = await deps.temporal.client.workflow.execute(quizGenerationWorkflow, {
      taskQueue: taskQueueName(deps.config.temporal.taskQueuePrefix, TASK_QUEUES.quiz),
      workflowId: workflowIds.quizGeneration(quizDate),
      // Joins a generation of this quiz already under way (the schedule's) instead of racing it.
      workflowIdConflictPolicy: 'USE_EXISTING',
      args: [{ date, edition: input.edition }],
      workflowExecutionTimeout: '10 minutes',
    });
  } catch (err) {
    throw chatFailure(err);
  }
  if (result.status === 'skipped') throw generationRefused(result);
  if (result.status !== 'created') throw exists(quizDate);
  return { quizId: result.quizId, date, quizDate, edition: input.edition };
}

export interface QuizRegenerated {
  quizId: string;
  replacedQuizId: string;
  date: string;
  quizDate: string;
  edition: Edition;
  workflowId: string;
}

/**
 * Makes a quiz again from its edition (issue 38, item 4: "regenerate"): the generation workflow
 * drafts a new quiz while the old one stands, and the draft takes its place only once it passed the
 * checks, so a failure changes nothing (400 when the edition is not stored, 503 when the AI
 * provider cannot make it). It runs as the quiz's generation (`quiz-generation-<quizDate>`), one at
 * a time: 409 while another generation of the quiz runs (the schedule's), or when the quiz was
 * replaced meanwhile. The new quiz has a new id: as after a deletion, attempts at the old one stay
 * in the readers' history and do not count against the new one (a day recovered stays recovered).
 */
export async function regenerateQuiz(deps: QuizOperationDeps, quizId: string): Promise<QuizRegenerated> {
  const quiz = (await deps.quiz.quizzes.get(quizId)) ?? notFound('Quiz');
  const workflowId = workflowIds.quizGeneration(quiz.quizDate);
  let result: QuizGenerationResult;
  try {
    result = await deps.temporal.client.workflow.execute(quizGenerationWorkflow, {
      taskQueue: taskQueueName(deps.config.temporal.taskQueuePrefix, TASK_QUEUES.quiz),
      workflowId,
      // Never joins a generation under way: that one would keep the quiz, not replace it.
      workflowIdConflictPolicy: 'FAIL',
      args: [{ date: quiz.date, edition: quiz.edition, replaces: quiz._id }],
      workflowExecutionTimeout: '10 minutes',
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      throw new AppError('CONFLICT', `A generation of the quiz of ${quiz.quizDate} is running (${workflowId}): try again when it ends`, { details: { reason: 'generation_running', workflowId } });
    }
    throw chatFailure(err);
  }
  if (result.status === 'skipped') throw generationRefused(result);
  if (result.status === 'exists' || result.status === 'running elsewhere') {
    throw new AppError('CONFLICT', `The quiz of ${quiz.quizDate} was replaced meanwhile${result.status === 'exists' ? ` (now ${result.quizId})` : ''}: read it again before regenerating`, { details: { reason: 'replaced_meanwhile' } });
  }
  return { quizId: result.quizId, replacedQuizId: quiz._id, date: quiz.date, quizDate: quiz.quizDate, edition: quiz.edition, workflowId };
}
