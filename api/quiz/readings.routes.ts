/**
 * Reading history and streaks (issue 12). The sending system records that a reader read an edition
 * (JWT permission quiz.readings; idempotent); a reader sees their streak with their own token.
 */
import { z } from 'zod';
import { EDITIONS, MAX_DAYS_RECOVERY } from '../../models/quiz/calendar.rules';
import { EditionDate, EditionName } from '../../models/quiz/edition.rules';
import { recordReading, streakToday } from '../../models/quiz/operations/reader-days';
import { READING_SOURCES, type ReadingDoc } from '../../models/quiz/reading.repo';
import { bearer } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import { IsoDate, IsoDateTime, Text } from '../shared/views';
import type { QuizDeps } from './deps';

const route = routeFactory<QuizDeps>();
export const QUIZ_READINGS = 'quiz.readings';
const tags = ['quiz'];

const ReadingView = z.object({ userId: Text(200), date: IsoDate, edition: EditionName, source: z.enum(READING_SOURCES), at: IsoDateTime });
const present = (r: ReadingDoc): z.input<typeof ReadingView> => ({ userId: r.userId, date: r.date, edition: r.edition, source: r.source, at: r.at.toISOString() });

export const StreakView = z.object({
  current: z.number().int().describe('Consecutive edition days read (Monday to Saturday; Sundays never break a streak)'),
  longest: z.number().int(),
  lastReadDate: IsoDate.nullable(),
  today: IsoDate.describe('Today in the newsletter time zone'),
  missedRecoverable: z
    .array(z.object({ date: IsoDate, quizDates: z.array(Text(16)).max(EDITIONS.length) }))
    .max(MAX_DAYS_RECOVERY)
    .describe('Edition days of the last 3 days not read, newest first, with the quizzes that recover each'),
});

export const readingRoutes = [
  route({
    method: 'post',
    path: '/quiz/readings',
    summary: 'Record that a reader read an edition',
    description: 'For the sending system (JWT permission quiz.readings). Idempotent: 201 when recorded, 200 when it was recorded before. The date is a day with editions (Monday to Saturday), not after today.',
    tags,
    auth: bearer(QUIZ_READINGS),
    body: z.strictObject({ userId: z.string().max(200).trim().min(1), date: EditionDate, edition: EditionName }),
    response: ReadingView,
    status: 201,
    alsoStatus: [200],
    handler: async ({ body, deps }) => {
      const { doc, created } = await recordReading(deps, body.userId, body.date, body.edition);
      return reply({ status: created ? 201 : 200, message: created ? 'reading recorded' : 'reading already recorded', data: present(doc) });
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
    handler: async ({ auth, deps }) => await streakToday(deps, auth.sub),
  }),
];
