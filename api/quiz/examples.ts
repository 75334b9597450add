/**
 * Worked examples of the quiz routes (api/shared/route.ts RouteExample): one reader's Tuesday,
 * 2026-11-24. They read this morning's edition but missed Monday's (2026-11-23), which its quizzes
 * can still recover; Saturday's (2026-11-21) was read. Ids are what the code makes: quizzes
 * `randomUUID()`, editions `YYYY-MM-DD-<edition>`, quiz dates `YYYY-MM-DD` / `YYYY-MM-DD-night`,
 * the reader's id a dashboard account's `usr_em_…`.
 */
import type { z } from 'zod';
import type { AdminQuizDetail, AttemptHistory, AttemptResultView, EditionView, QuizRegenerated, QuizScheduleTriggered, QuizScheduleView, QuizSummary, QuizWithQuestions, ReadingView, StreakView } from './contracts';

/** The reader (a token's `sub`: a dashboard account's user id). */
export const readerId = 'usr_em_cc5e872af5e567ad37bb8946';

/** Monday morning's quiz (generated) and Saturday night's. */
export const mondayMorningQuizId = '1ac93759-4d42-4971-a551-332c69cc2b69';
export const saturdayNightQuizId = '7a54c8a1-2cc5-4b16-a7c0-893de84f3d17';
/** Saturday morning's, written by an administrator. */
export const saturdayMorningQuizId = '5d2f8b9e-61a4-4c3b-9e07-b84c2a1f6d90';
/** Friday night's, created retroactively with POST /quiz/admin/create. */
export const fridayNightQuizId = 'b7e35a69-bcfa-4a83-841a-a9a9c30e5e13';

const mondayMorningTitle = 'Petrobras aprova dividendos extraordinários e ata do Copom reforça Selic estável';

/** The description generated quizzes get (models/quiz/quiz.rules.ts quizDescription). */
const describedAs = (editionTitle: string) =>
  `10 perguntas sobre a edição "${editionTitle}". Acerte 6 ou mais para recuperar o dia na sua sequência de leitura.`;

// ---- Editions -----------------------------------------------------------------------------------

export const mondayMorningEdition = {
  id: '2026-11-23-morning',
  date: '2026-11-23',
  edition: 'morning',
  title: mondayMorningTitle,
  text:
    'Bom dia! O conselho da Petrobras (PETR4) aprovou o pagamento de R$ 1,12 por ação em dividendos extraordinários, e os papéis ' +
    'sobem 3,4% no pré-mercado. A ata do Copom, divulgada pelo Banco Central, reforça que a Selic deve ficar em 10,75% até o fim ' +
    'do ano, com o IPCA de outubro em 0,29%. Na Vale (VALE3), o minério de ferro recuou 1,8% em Dalian.',
  publishedAt: '2026-11-23T09:00:00.000Z',
  updatedAt: '2026-11-23T08:47:12.000Z',
} satisfies z.input<typeof EditionView>;

export const mondayNightEdition = {
  id: '2026-11-23-night',
  date: '2026-11-23',
  edition: 'night',
  title: 'Fechamento: Ibovespa sobe 1,2% puxado por Petrobras; Vale recua com minério',
  text:
    'Boa noite! O Ibovespa fechou em alta de 1,2%, aos 133.450 pontos, puxado pela Petrobras (PETR4), que subiu 3,9% depois do ' +
    'anúncio de dividendos extraordinários. A Vale (VALE3) caiu 1,5% com o minério de ferro, e o Itaú (ITUB4) avançou 0,8%. ' +
    'O dólar recuou 0,6%, a R$ 5,41, na véspera do IPCA-15 de novembro.',
  publishedAt: '2026-11-23T22:00:00.000Z',
  updatedAt: '2026-11-23T21:52:30.000Z',
} satisfies z.input<typeof EditionView>;

/** The edition PUT /quiz/admin/editions/2026-11-24/morning stores (its body, and what it answers). */
export const tuesdayMorningContent = {
  title: 'Itaú anuncia recompra de ações e IPCA-15 de novembro desacelera',
  text:
    'Bom dia! O Itaú Unibanco (ITUB4) aprovou um programa de recompra de até 75 milhões de ações preferenciais nos próximos ' +
    '18 meses. O IPCA-15 de novembro, divulgado hoje pelo IBGE, deve desacelerar para 0,21%, segundo a mediana das projeções. ' +
    'Na B3, o Ibovespa futuro abre em leve queda depois da alta de 1,2% de ontem.',
  publishedAt: '2026-11-24T06:00:00-03:00',
};

export const tuesdayMorningEdition = {
  id: '2026-11-24-morning',
  date: '2026-11-24',
  edition: 'morning',
  title: tuesdayMorningContent.title,
  text: tuesdayMorningContent.text,
  publishedAt: '2026-11-24T09:00:00.000Z',
  updatedAt: '2026-11-24T08:55:40.000Z',
} satisfies z.input<typeof EditionView>;

// ---- Quizzes ------------------------------------------------------------------------------------

/** Monday morning's quiz in the reader's list, before their attempt. */
export const mondayMorningQuiz = {
  id: mondayMorningQuizId,
  title: 'Quiz da edição da manhã de 23/11/2026',
  description: describedAs(mondayMorningTitle),
  quizDate: '2026-11-23',
  edition: 'morning',
  postId: '2026-11-23-morning',
  minCorrectAnswers: 6,
  alreadyAttempted: false,
  attemptResult: null,
  date: '2026-11-23',
  availableUntil: '2026-11-26',
  canSubmit: true,
} satisfies z.input<typeof QuizSummary>;

/** Saturday night's quiz: still open until today, but Saturday was read, so nothing to recover. */
export const saturdayNightQuiz = {
  id: saturdayNightQuizId,
  title: 'Quiz da edição da noite de 21/11/2026',
  description: describedAs('Fechamento da semana: Vale recua com minério e Itaú lidera alta dos bancos'),
  quizDate: '2026-11-21-night',
  edition: 'night',
  postId: '2026-11-21-night',
  minCorrectAnswers: 6,
  alreadyAttempted: false,
  attemptResult: null,
  date: '2026-11-21',
  availableUntil: '2026-11-24',
  canSubmit: false,
} satisfies z.input<typeof QuizSummary>;

/** GET /quiz/{id}: the quiz with its questions (two of the ten shown), never the correct options. */
export const mondayMorningQuizWithQuestions = {
  ...mondayMorningQuiz,
  totalQuestions: 10,
  questions: [
    {
      number: 1,
      text: 'Quanto a Petrobras (PETR4) vai pagar por ação em dividendos extraordinários?',
      options: ['R$ 0,85', 'R$ 1,12', 'R$ 1,47', 'R$ 2,03'],
    },
    {
      number: 2,
      text: 'Segundo a ata do Copom, em que nível a Selic deve ficar até o fim do ano?',
      options: ['10,25%', '10,50%', '10,75%', '11,00%'],
    },
  ],
} satisfies z.input<typeof QuizWithQuestions>;

/** The reader's ten answers to Monday morning's quiz (8 right: questions 6 and 8 wrong). */
export const mondayMorningAnswers = [1, 2, 0, 3, 1, 1, 2, 0, 3, 2];
const mondayMorningCorrect = [1, 2, 0, 3, 1, 0, 2, 1, 3, 2];

export const mondayMorningResult = {
  quizId: mondayMorningQuizId,
  quizDate: '2026-11-23',
  passed: true,
  correctAnswers: 8,
  totalQuestions: 10,
  minCorrectAnswers: 6,
  streakRecovered: true,
  results: mondayMorningAnswers.map((chosen, i) => ({ number: i + 1, chosen, correct: mondayMorningCorrect[i]!, isCorrect: chosen === mondayMorningCorrect[i] })),
} satisfies z.input<typeof AttemptResultView>;

export const quizHistory = {
  attempts: [
    {
      quizId: mondayMorningQuizId,
      quizDate: '2026-11-23',
      edition: 'morning',
      title: mondayMorningQuiz.title,
      passed: true,
      correctAnswers: 8,
      totalQuestions: 10,
      minCorrectAnswers: 6,
      streakRecovered: true,
      answers: mondayMorningAnswers,
      attemptedAt: '2026-11-24T12:41:37.000Z',
    },
  ],
  pagination: { page: 1, limit: 20, total: 1, totalPages: 1 },
} satisfies z.input<typeof AttemptHistory>;

// ---- Readings and streaks -----------------------------------------------------------------------

export const tuesdayReading = {
  userId: readerId,
  date: '2026-11-24',
  edition: 'morning',
  source: 'read',
  at: '2026-11-24T11:32:05.000Z',
} satisfies z.input<typeof ReadingView>;

/** Tuesday read, Monday missed (recoverable with either of its quizzes), Saturday read. */
export const readerStreak = {
  current: 1,
  longest: 18,
  lastReadDate: '2026-11-24',
  today: '2026-11-24',
  missedRecoverable: [{ date: '2026-11-23', quizDates: ['2026-11-23', '2026-11-23-night'] }],
} satisfies z.input<typeof StreakView>;

// ---- Quiz administration (issue 38, item 4) -----------------------------------------------------

/** GET /quiz/admin/{id}: Monday morning's generated quiz as its administrator reads it (two of the ten questions shown). */
export const mondayMorningAdminQuiz = {
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
  questions: [
    {
      number: 1,
      text: mondayMorningQuizWithQuestions.questions[0]!.text,
      options: mondayMorningQuizWithQuestions.questions[0]!.options,
      correct: 1,
      evidence: 'O conselho da Petrobras (PETR4) aprovou o pagamento de R$ 1,12 por ação em dividendos extraordinários, e os papéis sobem 3,4% no pré-mercado.',
    },
    {
      number: 2,
      text: mondayMorningQuizWithQuestions.questions[1]!.text,
      options: mondayMorningQuizWithQuestions.questions[1]!.options,
      correct: 2,
      evidence: 'A ata do Copom, divulgada pelo Banco Central, reforça que a Selic deve ficar em 10,75% até o fim do ano, com o IPCA de outubro em 0,29%.',
    },
  ],
} satisfies z.input<typeof AdminQuizDetail>;

/** POST /quiz/admin/{id}/regenerate: Monday morning's quiz made again from its edition. */
export const mondayMorningRegenerated = {
  quizId: '3e9d41c7-58b2-4f0a-9c6e-d1a27b84f5e3',
  replacedQuizId: mondayMorningQuizId,
  date: '2026-11-23',
  quizDate: '2026-11-23',
  edition: 'morning',
  workflowId: 'quiz-generation-2026-11-23',
} satisfies z.input<typeof QuizRegenerated>;

const ui = 'http://127.0.0.1:8233/namespaces/default';
/** A run of the schedule: its workflow id is the schedule's action id and the time it was scheduled for. */
const dailyRun = (at: string, runId: string) => ({
  workflowId: `quiz-daily-${at}`,
  runId,
  temporalUiUrl: `${ui}/workflows/${encodeURIComponent(`quiz-daily-${at}`)}/${runId}/history`,
});

/** GET /quiz/admin/schedule on Tuesday 2026-11-24 at 10:00 (UTC): paused by an editor after Tuesday's run. */
export const quizScheduleExample = {
  scheduleId: 'quiz-daily-generation',
  paused: true,
  note: 'Edição de quarta atrasada: gerar à mão depois da publicação (by usr_em_4b1f0c2d9e8a7b6c5d4e3f21)',
  spec: { cron: ['0 7 * * *'], timeZone: 'UTC' },
  configured: { time: '07:00', timeZone: 'UTC', createdByWorkers: true },
  overlap: 'SKIP',
  catchupWindowMs: 86_400_000,
  nextRuns: ['2026-11-25T07:00:00.000Z', '2026-11-26T07:00:00.000Z', '2026-11-27T07:00:00.000Z'],
  recentRuns: [
    {
      scheduledAt: '2026-11-24T07:00:00.000Z',
      startedAt: '2026-11-24T07:00:00.212Z',
      ...dailyRun('2026-11-24T07:00:00Z', '019374a2-1c3e-7d41-9b0a-5e6f7a8b9c0d'),
      status: 'COMPLETED',
      closedAt: '2026-11-24T07:00:43.871Z',
      result: {
        runDay: '2026-11-24',
        quizzes: [
          { quizDate: '2026-11-23', status: 'created', quizId: mondayMorningQuizId, reason: null },
          { quizDate: '2026-11-23-night', status: 'created', quizId: 'c41f7e2a-9d8b-4a6c-b3e5-72f1d0a9c864', reason: null },
        ],
      },
      failure: null,
    },
    {
      scheduledAt: '2026-11-23T07:00:00.000Z',
      startedAt: '2026-11-23T07:00:00.187Z',
      ...dailyRun('2026-11-23T07:00:00Z', '01936f7b-8a2d-7c15-a4e9-0b1c2d3e4f5a'),
      status: 'COMPLETED',
      closedAt: '2026-11-23T07:00:39.402Z',
      result: {
        runDay: '2026-11-23',
        quizzes: [
          { quizDate: '2026-11-21', status: 'exists', quizId: saturdayMorningQuizId, reason: null },
          { quizDate: '2026-11-21-night', status: 'created', quizId: saturdayNightQuizId, reason: null },
        ],
      },
      failure: null,
    },
  ],
  running: [],
  actionsTaken: 41,
  skippedOverlap: 0,
  missedCatchupWindow: 0,
  createdAt: '2026-10-14T18:22:05.000Z',
  updatedAt: '2026-11-24T09:58:17.000Z',
  temporalUiUrl: `${ui}/schedules/quiz-daily-generation`,
} satisfies z.input<typeof QuizScheduleView>;

/** The same schedule resumed (POST /quiz/admin/schedule/unpause). */
export const quizScheduleResumedExample = {
  ...quizScheduleExample,
  paused: false,
  note: 'Edição de quarta publicada (by usr_em_4b1f0c2d9e8a7b6c5d4e3f21)',
  updatedAt: '2026-11-25T09:12:44.000Z',
} satisfies z.input<typeof QuizScheduleView>;

/** POST /quiz/admin/schedule/trigger: the run it started. */
export const quizScheduleTriggeredExample = {
  scheduleId: 'quiz-daily-generation',
  overlap: 'SKIP',
  ...dailyRun('2026-11-24T10:02:31Z', '019375d0-4e5f-7a6b-8c9d-0e1f2a3b4c5d'),
} satisfies z.input<typeof QuizScheduleTriggered>;
