/**
 * Quizzes (issue 12, spec §4.1, §4.2): what a reader may take, the quiz itself (never its
 * answers), one attempt per reader and quiz, the history of attempts; and the administrative
 * routes (generate, create, list, delete). docs/decisions.md "Quizzes".
 */
import { z } from 'zod';
import { AppError, notFound } from '../../models/errors';
import { addDays, EDITIONS, localDate, MAX_DAYS_RECOVERY, previousEditionDay, quizDateOf, withinRecovery } from '../../models/quiz/calendar.rules';
import { editionId, EditionDate, EditionName } from '../../models/quiz/edition.rules';
import type { AttemptDoc } from '../../models/quiz/attempt.repo';
import { Answers, ManualQuestion, publicQuestions, QUIZ_FAILURES, QUIZ_RULES, quizDescription, quizTitle, score, type QuizDoc } from '../../models/quiz/quiz.rules';
import { wholeNumber } from '../../models/params.rules';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import type { quizDailyWorkflow, quizGenerationWorkflow, QuizGenerationResult } from '../../workflows/quiz/generation.workflow';
import { chatFailure } from '../shared/ai-failures';
import { bearer } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import type { QuizDeps } from './deps';
import { QUIZ_ADMIN } from './editions.routes';

const route = routeFactory<QuizDeps>();
const admin = bearer(QUIZ_ADMIN);
const readerTags = ['quiz'];
const adminTags = ['quiz admin'];

const today = (deps: QuizDeps) => localDate(deps.quiz.now(), deps.config.quiz.timeZone);

const AttemptResult = z.object({ passed: z.boolean(), correctAnswers: z.number().int().min(0).max(QUIZ_RULES.totalQuestions), streakRecovered: z.boolean() });
const attemptResult = (a: AttemptDoc | undefined) => (a ? { passed: a.passed, correctAnswers: a.correctAnswers, streakRecovered: a.streakRecovered } : null);

// Bounds: a generated title and description (quizTitle, quizDescription) or an admin's (≤ 200, ≤ 1,000).
const QuizId = z.string().max(100);
const QuizDate = z.string().max(16);
const QuizSummary = z.object({
  id: QuizId,
  title: z.string().max(200),
  description: z.string().max(1_000),
  quizDate: QuizDate.describe('YYYY-MM-DD for the morning edition, YYYY-MM-DD-night for the night edition'),
  edition: EditionName,
  postId: z.string().max(32).describe('Id of the edition the quiz derives from'),
  minCorrectAnswers: z.number().int().min(0).max(QUIZ_RULES.totalQuestions),
  alreadyAttempted: z.boolean(),
  attemptResult: AttemptResult.nullable(),
  date: z.iso.date().max(10).describe('The edition day the quiz recovers'),
  availableUntil: z.iso.date().max(10).describe('The last day it can be taken (its date + 3 days)'),
  canSubmit: z.boolean().describe('Not attempted yet, within its 3 days, and its day not read yet'),
}).meta({ id: 'QuizSummary' });
type QuizSummary = z.input<typeof QuizSummary>;

const summary = (q: Omit<QuizDoc, 'questions'>, attempt: AttemptDoc | undefined, readDays: ReadonlySet<string>, on: string): QuizSummary => ({
  id: q._id,
  title: q.title,
  description: q.description,
  quizDate: q.quizDate,
  edition: q.edition,
  postId: q.postId,
  minCorrectAnswers: q.minCorrectAnswers,
  alreadyAttempted: attempt !== undefined,
  attemptResult: attemptResult(attempt),
  date: q.date,
  availableUntil: addDays(q.date, MAX_DAYS_RECOVERY),
  canSubmit: attempt === undefined && withinRecovery(q.date, on) && !readDays.has(q.date),
});

const Rules = z.object({ maxDaysRecovery: z.number().int(), minCorrectAnswers: z.number().int(), totalQuestions: z.number().int(), attemptsPerQuiz: z.number().int() });
const Pagination = z
  .object({ page: z.number().int().min(1).max(100_000), limit: z.number().int().min(1).max(100), total: z.number().int().min(0), totalPages: z.number().int().min(0) })
  .meta({ id: 'QuizPagination' });
const paging = { page: wholeNumber((n) => n.min(1).max(100_000)).default(1), limit: wholeNumber((n) => n.min(1).max(100)).default(20) };
const pagination = (page: number, limit: number, total: number) => ({ page, limit, total, totalPages: Math.ceil(total / limit) });
const QuizIdParams = z.object({ id: QuizId });

/** The reader's attempt at a quiz among attempts. */
const attemptAt = (attempts: readonly AttemptDoc[], quizId: string) => attempts.find((a) => a.quizId === quizId);

const AdminQuiz = z.object({
  id: QuizId,
  title: z.string().max(200),
  description: z.string().max(1_000),
  quizDate: QuizDate,
  date: z.iso.date().max(10),
  edition: EditionName,
  postId: z.string().max(32),
  minCorrectAnswers: z.number().int().min(0).max(QUIZ_RULES.totalQuestions),
  origin: z.enum(['generated', 'manual']),
  workflowId: z.string().max(200).nullable(),
  model: z.string().max(200).nullable(),
  createdAt: z.iso.datetime().max(30),
});
const adminView = (q: Omit<QuizDoc, 'questions'>): z.input<typeof AdminQuiz> => ({
  id: q._id,
  title: q.title,
  description: q.description,
  quizDate: q.quizDate,
  date: q.date,
  edition: q.edition,
  postId: q.postId,
  minCorrectAnswers: q.minCorrectAnswers,
  origin: q.origin,
  workflowId: q.workflowId ?? null,
  model: q.model ?? null,
  createdAt: q.createdAt.toISOString(),
});

const exists = (quizDate: string) => new AppError('CONFLICT', `A quiz already exists for ${quizDate}`);

/** What a generation that gave up means to the admin who asked for it. */
function generationRefused(result: Extract<QuizGenerationResult, { status: 'skipped' }>): AppError {
  if (result.failure === QUIZ_FAILURES.editionMissing) return new AppError('VALIDATION_FAILED', `${result.reason}: store it first (PUT /quiz/admin/editions/{date}/{edition}) or send the questions`);
  return new AppError('DEPENDENCY_UNAVAILABLE', `The AI provider did not produce a quiz: ${result.reason}`, { details: { dependency: 'ai-provider' } });
}

export const quizRoutes = [
  route({
    method: 'get',
    path: '/quiz/available',
    summary: 'Quizzes you can take',
    description: `The quizzes of the last ${MAX_DAYS_RECOVERY} days (newest first), whether you attempted each and how it went, and the rules. A quiz recovers its edition's day in your reading streak.`,
    tags: readerTags,
    auth: bearer(),
    response: z.object({ quizzes: z.array(QuizSummary).max(MAX_DAYS_RECOVERY * EDITIONS.length), rules: Rules }),
    handler: async ({ auth, deps }) => {
      const on = today(deps);
      const window = { from: addDays(on, -MAX_DAYS_RECOVERY), to: addDays(on, -1) };
      const [quizzes, days] = await Promise.all([deps.quiz.quizzes.between(window.from, window.to), deps.quiz.daysBetween(auth.sub, window.from, window.to)]);
      return { quizzes: quizzes.map((q) => summary(q, attemptAt(days.attempts, q._id), days.read, on)), rules: { ...QUIZ_RULES } };
    },
  }),

  route({
    method: 'get',
    path: '/quiz/history',
    summary: 'Your quiz attempts',
    description: 'Newest first. An attempt stays in your history when its quiz is deleted.',
    tags: readerTags,
    auth: bearer(),
    query: z.object(paging),
    response: z.object({
      attempts: z.array(
        z.object({
          quizId: QuizId,
          quizDate: QuizDate,
          edition: EditionName,
          title: z.string().max(200),
          passed: z.boolean(),
          correctAnswers: z.number().int(),
          totalQuestions: z.number().int(),
          minCorrectAnswers: z.number().int(),
          streakRecovered: z.boolean(),
          answers: Answers,
          attemptedAt: z.iso.datetime().max(30),
        }),
      ).max(100),
      pagination: Pagination,
    }),
    handler: async ({ auth, query, deps }) => {
      const { items, total } = await deps.quiz.attempts.history(auth.sub, query.page, query.limit);
      return {
        attempts: items.map((a) => ({
          quizId: a.quizId,
          quizDate: a.quizDate,
          edition: a.edition,
          title: a.title,
          passed: a.passed,
          correctAnswers: a.correctAnswers,
          totalQuestions: a.totalQuestions,
          minCorrectAnswers: a.minCorrectAnswers,
          streakRecovered: a.streakRecovered,
          answers: a.answers,
          attemptedAt: a.at.toISOString(),
        })),
        pagination: pagination(query.page, query.limit, total),
      };
    },
  }),

  route({
    method: 'post',
    path: '/quiz/submit',
    summary: 'Submit your answers',
    description:
      'One attempt per quiz: a second one is 403, however many arrive at once. A quiz can be taken on the 3 days after its date, for a day you have not read ' +
      '(otherwise 403, and nothing is recorded). 6 or more correct answers pass and recover the day in your streak (GET /quiz/streak), in the same write as the attempt. ' +
      'The result shows which options were correct.',
    tags: readerTags,
    auth: bearer(),
    body: z.strictObject({ quizId: z.string().max(100), answers: Answers }),
    response: z.object({
      quizId: QuizId,
      quizDate: QuizDate,
      passed: z.boolean(),
      correctAnswers: z.number().int(),
      totalQuestions: z.number().int(),
      minCorrectAnswers: z.number().int(),
      streakRecovered: z.boolean(),
      results: z
        .array(z.object({ number: z.number().int().min(1).max(QUIZ_RULES.totalQuestions), chosen: z.number().int().min(0).max(3), correct: z.number().int().min(0).max(3), isCorrect: z.boolean() }))
        .max(QUIZ_RULES.totalQuestions),
    }),
    errors: [404],
    handler: async ({ auth, body, deps }) => {
      const quiz = (await deps.quiz.quizzes.get(body.quizId)) ?? notFound('Quiz');
      const on = today(deps);
      if (!withinRecovery(quiz.date, on)) {
        const until = addDays(quiz.date, MAX_DAYS_RECOVERY);
        throw new AppError('FORBIDDEN', on <= quiz.date ? `This quiz opens on ${addDays(quiz.date, 1)}` : `This quiz could be taken until ${until}; it can no longer be submitted`);
      }
      const days = await deps.quiz.daysBetween(auth.sub, quiz.date, quiz.date);
      const before = attemptAt(days.attempts, quiz._id);
      if (before) {
        // A retry after a pass whose day was not marked (the mark failed after the attempt was stored).
        if (before.streakRecovered) await deps.quiz.markRecovered(auth.sub, quiz.date);
        throw new AppError('FORBIDDEN', 'You have already attempted this quiz');
      }
      if (days.read.has(quiz.date)) throw new AppError('FORBIDDEN', `You already read the edition of ${quiz.date}: there is nothing to recover`);
      const scored = score(quiz, body.answers);
      const recorded = await deps.quiz.attempts.insert({
        userId: auth.sub,
        quizId: quiz._id,
        quizDate: quiz.quizDate,
        date: quiz.date,
        edition: quiz.edition,
        title: quiz.title,
        answers: body.answers,
        correctAnswers: scored.correctAnswers,
        totalQuestions: quiz.questions.length,
        minCorrectAnswers: quiz.minCorrectAnswers,
        passed: scored.passed,
        streakRecovered: scored.passed,
        at: new Date(),
      });
      // Another submission of the same reader got there first.
      if (!recorded) throw new AppError('FORBIDDEN', 'You have already attempted this quiz');
      if (scored.passed) await deps.quiz.markRecovered(auth.sub, quiz.date);
      return reply({
        message: scored.passed ? 'Quiz passed: the day is recovered in your streak' : `Quiz not passed: ${scored.correctAnswers} of ${quiz.questions.length} correct, ${quiz.minCorrectAnswers} needed`,
        data: {
          quizId: quiz._id,
          quizDate: quiz.quizDate,
          passed: scored.passed,
          correctAnswers: scored.correctAnswers,
          totalQuestions: quiz.questions.length,
          minCorrectAnswers: quiz.minCorrectAnswers,
          streakRecovered: scored.passed,
          results: scored.results,
        },
      });
    },
  }),

  route({
    method: 'post',
    path: '/quiz/admin/generate',
    summary: 'Generate the quizzes of an edition day now',
    description:
      'Starts the generation workflow (what the daily schedule runs) for both editions of `date`, by default the last edition day before today, and answers with its id at once (202). ' +
      'Quizzes that exist are left as they are; asking again while it runs answers with the same run.',
    tags: adminTags,
    auth: admin,
    body: z.strictObject({ date: EditionDate.optional().describe('The edition day (YYYY-MM-DD, not a Sunday); default: the last one before today') }),
    response: z.object({ workflowId: z.string().max(200), runId: z.string().max(64), date: z.iso.date().max(10), quizDates: z.array(QuizDate).max(EDITIONS.length) }),
    status: 202,
    handler: async ({ body, deps }) => {
      const date = body.date ?? previousEditionDay(today(deps));
      const workflowId = workflowIds.quizGenerationDay(date);
      const handle = await deps.temporal.client.workflow.start<typeof quizDailyWorkflow>('quizDailyWorkflow', {
        taskQueue: taskQueueName(deps.config.temporal.taskQueuePrefix, TASK_QUEUES.quiz),
        workflowId,
        workflowIdConflictPolicy: 'USE_EXISTING',
        args: [{ timeZone: deps.config.quiz.timeZone, date }],
        workflowExecutionTimeout: '1 hour',
      });
      return reply({
        status: 202,
        message: 'Quiz generation started',
        data: { workflowId, runId: handle.firstExecutionRunId, date, quizDates: EDITIONS.map((e) => quizDateOf(date, e)) },
      });
    },
  }),

  route({
    method: 'post',
    path: '/quiz/admin/create',
    summary: 'Create a quiz for a date',
    description:
      'For retroactive or future dates. With `questions` (ten, four options each, `correct` the index of the right one) the quiz is stored as written; ' +
      'without, it is generated from the stored edition of that day and waited for (400 when the edition is not stored, 503 when the AI provider cannot make it). ' +
      '409 when the date and edition already have a quiz.',
    tags: adminTags,
    auth: admin,
    body: z.strictObject({
      date: EditionDate.optional().describe('YYYY-MM-DD, not a Sunday; default: today'),
      edition: EditionName.default('morning'),
      title: z.string().max(200).trim().min(1).optional(),
      description: z.string().max(1_000).trim().min(1).optional(),
      questions: z.array(ManualQuestion).length(QUIZ_RULES.totalQuestions).optional(),
    }),
    response: z.object({ quizId: QuizId, date: z.iso.date().max(10), quizDate: QuizDate, edition: EditionName }),
    status: 201,
    errors: [409, 503, 504],
    handler: async ({ body, deps }) => {
      const date = body.date ?? today(deps);
      if (date !== body.date && !EditionDate.safeParse(date).success) throw new AppError('VALIDATION_FAILED', 'Today is a Sunday, which has no editions: give a date');
      const quizDate = quizDateOf(date, body.edition);
      if (await deps.quiz.quizzes.find(date, body.edition)) throw exists(quizDate);
      let quizId: string;
      if (body.questions) {
        const edition = await deps.quiz.editions.get(date, body.edition);
        const { doc, created } = await deps.quiz.quizzes.insert({
          date,
          edition: body.edition,
          quizDate,
          postId: editionId(date, body.edition),
          title: body.title ?? quizTitle(date, body.edition),
          description: body.description ?? (edition ? quizDescription(edition.title) : `${QUIZ_RULES.totalQuestions} perguntas sobre a edição.`),
          minCorrectAnswers: QUIZ_RULES.minCorrectAnswers,
          questions: body.questions.map((q) => ({ text: q.text, options: q.options, correct: q.correct })),
          origin: 'manual',
        });
        if (!created) throw exists(quizDate);
        quizId = doc._id;
      } else {
        let result: QuizGenerationResult;
        try {
          result = await deps.temporal.client.workflow.execute<typeof quizGenerationWorkflow>('quizGenerationWorkflow', {
            taskQueue: taskQueueName(deps.config.temporal.taskQueuePrefix, TASK_QUEUES.quiz),
            workflowId: workflowIds.quizGeneration(quizDate),
            // Joins a generation of this quiz already under way (the schedule's) instead of racing it.
            workflowIdConflictPolicy: 'USE_EXISTING',
            args: [{ date, edition: body.edition }],
            workflowExecutionTimeout: '10 minutes',
          });
        } catch (err) {
          throw chatFailure(err);
        }
        if (result.status === 'skipped') throw generationRefused(result);
        if (result.status !== 'created') throw exists(quizDate);
        quizId = result.quizId;
      }
      return reply({ status: 201, message: 'Quiz created', data: { quizId, date, quizDate, edition: body.edition } });
    },
  }),

  route({
    method: 'get',
    path: '/quiz/admin/list',
    summary: 'All quizzes',
    description: 'Newest first, paginated; filtered by a date range (inclusive) and edition.',
    tags: adminTags,
    auth: admin,
    query: z
      .object({ from: z.iso.date().optional(), to: z.iso.date().optional(), edition: EditionName.optional(), ...paging })
      .refine((q) => !q.from || !q.to || q.from <= q.to, 'from must not be after to'),
    response: z.object({ quizzes: z.array(AdminQuiz).max(100), pagination: Pagination }),
    handler: async ({ query, deps }) => {
      const { items, total } = await deps.quiz.quizzes.list(query);
      return { quizzes: items.map(adminView), pagination: pagination(query.page, query.limit, total) };
    },
  }),

  route({
    method: 'delete',
    path: '/quiz/admin/:id',
    summary: 'Delete a quiz',
    description: 'Readers can no longer see or take it. Attempts already made stay in their history, and a day a passed attempt recovered stays recovered.',
    tags: adminTags,
    auth: admin,
    params: QuizIdParams,
    response: z.object({ id: QuizId }),
    errors: [404],
    handler: async ({ params, deps }) => {
      if (!(await deps.quiz.quizzes.delete(params.id))) notFound('Quiz');
      return reply({ message: 'Quiz deleted', data: { id: params.id } });
    },
  }),

  // Last: `/quiz/:id` would otherwise answer for the fixed paths above.
  route({
    method: 'get',
    path: '/quiz/:id',
    summary: 'A quiz with its questions',
    description: 'The questions and their options, never which option is correct (the result of POST /quiz/submit shows that).',
    tags: readerTags,
    auth: bearer(),
    params: QuizIdParams,
    response: QuizSummary.extend({
      totalQuestions: z.number().int(),
      questions: z
        .array(z.object({ number: z.number().int().min(1).max(QUIZ_RULES.totalQuestions), text: z.string().max(500), options: z.array(z.string().max(300)).max(4) }))
        .max(QUIZ_RULES.totalQuestions),
    }),
    errors: [404],
    handler: async ({ auth, params, deps }) => {
      const quiz = (await deps.quiz.quizzes.get(params.id)) ?? notFound('Quiz');
      const days = await deps.quiz.daysBetween(auth.sub, quiz.date, quiz.date);
      return { ...summary(quiz, attemptAt(days.attempts, quiz._id), days.read, today(deps)), totalQuestions: quiz.questions.length, questions: publicQuestions(quiz.questions) };
    },
  }),
];
