/**
 * Reading history and streaks (issue 12). The sending system records that a reader read an edition
 * (JWT permission quiz.readings; idempotent); a reader sees their streak with their own token.
 */
import { recordReading, streakToday } from '../../operations/quiz/reader-days';
import { bearer } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import { presentReading, ReadingBody, ReadingView, StreakView } from './contracts';
import type { QuizDeps } from './deps';
import { readerId, readerStreak, tuesdayReading } from './examples';

const route = routeFactory<QuizDeps>();
export const QUIZ_READINGS = 'quiz.readings';
const tags = ['quiz'];

export const readingRoutes = [
  route({
    method: 'post',
    path: '/quiz/readings',
    summary: 'Record that a reader read an edition',
    description: 'For the sending system (JWT permission quiz.readings). Idempotent: 201 when recorded, 200 when it was recorded before. The date is a day with editions (Monday to Saturday), not after today.',
    tags,
    auth: bearer(QUIZ_READINGS),
    body: ReadingBody,
    response: ReadingView,
    status: 201,
    alsoStatus: [200],
    example: { body: { userId: readerId, date: '2026-11-24', edition: 'morning' }, response: tuesdayReading, message: 'reading recorded' },
    handler: async ({ body, deps }) => {
      const { doc, created } = await recordReading(deps, body.userId, body.date, body.edition);
      return reply({ status: created ? 201 : 200, message: created ? 'reading recorded' : 'reading already recorded', data: presentReading(doc) });
    },
  }),

  route({
    method: 'get',
    path: '/quiz/streak',
    summary: 'Your reading streak',
    description: 'Current and longest streak, the last day read, and the missed days still recoverable with their quizzes. Days are calendar days in the newsletter time zone.',
    tags,
    auth: bearer(),
    response: StreakView,
    example: { response: readerStreak },
    handler: async ({ auth, deps }) => await streakToday(deps, auth.sub),
  }),
];
