/**
 * Quizzes (issue 12, spec §4.1, §4.2): what a reader may take, the quiz itself (never its
 * answers), one attempt per reader and quiz, the history of attempts; and the administrative
 * routes (generate, create, list, one quiz with its answers, regenerate, delete). docs/decisions.md "Quizzes".
 */
import { notFound } from '../../models/errors';
import { MAX_DAYS_RECOVERY } from '../../models/quiz/calendar.rules';
import { QUIZ_RULES } from '../../models/quiz/quiz.rules';
import { availableQuizzes, createQuiz, quizForReader, regenerateQuiz, startDayGeneration, submitAnswers } from '../../operations/quiz/quizzes';
import { bearer } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import {
  adminDetailView,
  AdminQuizDetail,
  AdminQuizList,
  AdminQuizListQuery,
  adminView,
  AttemptHistory,
  AttemptResultView,
  AvailableQuizzes,
  CreateQuizBody,
  GenerateQuizzesBody,
  GenerationStarted,
  QuizCreated,
  QuizDeleted,
  QuizHistoryQuery,
  QuizIdParams,
  QuizRegenerated,
  QuizWithQuestions,
  SubmitAnswersBody,
} from './contracts';
import type { QuizDeps } from './deps';
import { QUIZ_ADMIN } from './editions.routes';
import {
  fridayNightQuizId,
  mondayMorningAdminQuiz,
  mondayMorningAnswers,
  mondayMorningQuiz,
  mondayMorningQuizId,
  mondayMorningQuizWithQuestions,
  mondayMorningRegenerated,
  mondayMorningResult,
  quizHistory,
  saturdayMorningQuizId,
  saturdayNightQuiz,
  saturdayNightQuizId,
} from './examples';

const route = routeFactory<QuizDeps>();
const admin = bearer(QUIZ_ADMIN);
const readerTags = ['quiz'];
const adminTags = ['quiz admin'];

const pagination = (page: number, limit: number, total: number) => ({ page, limit, total, totalPages: Math.ceil(total / limit) });

export const quizRoutes = [
  route({
    method: 'get',
    path: '/quiz/available',
    summary: 'Quizzes you can take',
    description: `The quizzes of the last ${MAX_DAYS_RECOVERY} days (newest first), whether you attempted each and how it went, and the rules. A quiz recovers its edition's day in your reading streak.`,
    tags: readerTags,
    auth: bearer(),
    response: AvailableQuizzes,
    example: { response: { quizzes: [mondayMorningQuiz, saturdayNightQuiz], rules: { ...QUIZ_RULES } } },
    handler: async ({ auth, deps }) => ({ quizzes: await availableQuizzes(deps, auth.sub), rules: { ...QUIZ_RULES } }),
  }),

  route({
    method: 'get',
    path: '/quiz/history',
    summary: 'Your quiz attempts',
    description: 'Newest first. An attempt stays in your history when its quiz is deleted.',
    tags: readerTags,
    auth: bearer(),
    query: QuizHistoryQuery,
    response: AttemptHistory,
    example: { query: { page: 1, limit: 20 }, response: quizHistory },
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
    body: SubmitAnswersBody,
    response: AttemptResultView,
    errors: [404],
    example: {
      body: { quizId: mondayMorningQuizId, answers: mondayMorningAnswers },
      response: mondayMorningResult,
      message: 'Quiz passed: the day is recovered in your streak',
    },
    handler: async ({ auth, body, deps }) => {
      const { quiz, ...scored } = await submitAnswers(deps, { userId: auth.sub, quizId: body.quizId, answers: body.answers });
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
    body: GenerateQuizzesBody,
    response: GenerationStarted,
    status: 202,
    example: {
      body: { date: '2026-11-23' },
      response: {
        workflowId: 'quiz-daily-manual-2026-11-23',
        runId: '0f6c3e2a-9b1d-4f58-a7c4-2e8d5b1f9a36',
        date: '2026-11-23',
        quizDates: ['2026-11-23', '2026-11-23-night'],
      },
      message: 'Quiz generation started',
    },
    handler: async ({ body, deps }) => reply({ status: 202, message: 'Quiz generation started', data: await startDayGeneration(deps, { date: body.date }) }),
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
    body: CreateQuizBody,
    response: QuizCreated,
    status: 201,
    errors: [409, 503, 504],
    example: {
      body: { date: '2026-11-20', edition: 'night' },
      response: { quizId: fridayNightQuizId, date: '2026-11-20', quizDate: '2026-11-20-night', edition: 'night' },
      message: 'Quiz created',
    },
    handler: async ({ body, deps }) => reply({ status: 201, message: 'Quiz created', data: await createQuiz(deps, body) }),
  }),

  route({
    method: 'get',
    path: '/quiz/admin/list',
    summary: 'All quizzes',
    description: 'Newest first, paginated; filtered by a date range (inclusive) and edition.',
    tags: adminTags,
    auth: admin,
    query: AdminQuizListQuery,
    response: AdminQuizList,
    example: {
      query: { from: '2026-11-21', to: '2026-11-23', edition: 'morning' },
      response: {
        quizzes: [
          {
            id: mondayMorningQuizId,
            title: mondayMorningQuiz.title,
            description: mondayMorningQuiz.description,
            quizDate: '2026-11-23',
            date: '2026-11-23',
            edition: 'morning',
            postId: '2026-11-23-morning',
            minCorrectAnswers: 6,
            origin: 'generated',
            workflowId: 'quiz-generation-2026-11-23',
            model: 'gpt-4o',
            createdAt: '2026-11-24T07:00:41.000Z',
          },
          {
            id: saturdayMorningQuizId,
            title: 'Quiz da edição da manhã de 21/11/2026',
            description: 'Dez perguntas sobre o balanço da semana: Petrobras, Vale, Itaú e a agenda do Copom. Acerte 6 ou mais para recuperar o dia.',
            quizDate: '2026-11-21',
            date: '2026-11-21',
            edition: 'morning',
            postId: '2026-11-21-morning',
            minCorrectAnswers: 6,
            origin: 'manual',
            workflowId: null,
            model: null,
            createdAt: '2026-11-21T13:15:09.000Z',
          },
        ],
        pagination: { page: 1, limit: 20, total: 2, totalPages: 1 },
      },
    },
    handler: async ({ query, deps }) => {
      const { items, total } = await deps.quiz.quizzes.list(query);
      return { quizzes: items.map(adminView), pagination: pagination(query.page, query.limit, total) };
    },
  }),

  // After the fixed paths of /quiz/admin/… (list here; editions and schedule are registered before these routes).
  route({
    method: 'get',
    path: '/quiz/admin/:id',
    summary: 'A quiz with its answers',
    description: 'Every question with its options, the correct one and, for a generated quiz, the sentence of the edition that answers it; and how the quiz was made (origin, run, model).',
    tags: adminTags,
    auth: admin,
    params: QuizIdParams,
    response: AdminQuizDetail,
    errors: [404],
    example: { params: { id: mondayMorningQuizId }, response: mondayMorningAdminQuiz },
    handler: async ({ params, deps }) => adminDetailView((await deps.quiz.quizzes.get(params.id)) ?? notFound('Quiz')),
  }),

  route({
    method: 'post',
    path: '/quiz/admin/:id/regenerate',
    summary: 'Make a quiz again from its edition',
    description:
      "Replaces the quiz by a new generation from its day's stored edition, waited for: the new quiz is drafted while the old one stands and takes its place once it passed the checks " +
      '(a new id; the old one is gone). A failure changes nothing: 400 when the edition is not stored, 503 when the AI provider cannot make it. ' +
      "409 while another generation of that quiz runs (the daily schedule's), or when it was replaced meanwhile. As after a deletion, attempts at the old quiz stay in the readers' history.",
    tags: adminTags,
    auth: admin,
    params: QuizIdParams,
    response: QuizRegenerated,
    status: 201,
    errors: [404, 409, 503, 504],
    example: { params: { id: mondayMorningQuizId }, response: mondayMorningRegenerated, message: 'Quiz regenerated' },
    handler: async ({ params, deps }) => reply({ status: 201, message: 'Quiz regenerated', data: await regenerateQuiz(deps, params.id) }),
  }),

  route({
    method: 'delete',
    path: '/quiz/admin/:id',
    summary: 'Delete a quiz',
    description: 'Readers can no longer see or take it. Attempts already made stay in their history, and a day a passed attempt recovered stays recovered.',
    tags: adminTags,
    auth: admin,
    params: QuizIdParams,
    response: QuizDeleted,
    errors: [404],
    example: { params: { id: saturdayNightQuizId }, response: { id: saturdayNightQuizId }, message: 'Quiz deleted' },
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
    response: QuizWithQuestions,
    errors: [404],
    example: { params: { id: mondayMorningQuizId }, response: mondayMorningQuizWithQuestions },
    handler: async ({ auth, params, deps }) => await quizForReader(deps, auth.sub, params.id),
  }),
];
