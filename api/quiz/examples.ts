/**
 * Worked examples of the quiz routes (api/shared/route.ts RouteExample): one reader's Tuesday,
 * 2026-11-24. They read this morning's edition but missed Monday's (2026-11-23), which its quizzes
 * can still recover; Saturday's (2026-11-21) was read. Ids are what the code makes: quizzes
 * `randomUUID()`, editions `YYYY-MM-DD-<edition>`, quiz dates `YYYY-MM-DD` / `YYYY-MM-DD-night`,
 * the reader's id a dashboard account's `usr_em_…`.
 */
import type { z } from 'zod';
import type { AttemptHistory, AttemptResultView, EditionView, QuizSummary, QuizWithQuestions, ReadingView, StreakView } from './contracts';

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
