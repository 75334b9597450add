/**
 * Newsletter editions (issue 12): the text quizzes are made from. An administrator (JWT permission
 * quiz.admin) creates or replaces one edition; `npm run cli -- edition` does the same from a file.
 */
import { z } from 'zod';
import { notFound } from '../../models/errors';
import { addDays, localDate } from '../../models/shared/calendar.rules';
import type { EditionDoc } from '../../models/quiz/edition.rules';
import { bearer } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import { EditionBody, EditionListQuery, EditionParams, EditionView } from './contracts';
import type { QuizDeps } from './deps';
import { mondayMorningEdition, mondayNightEdition, tuesdayMorningContent, tuesdayMorningEdition } from './examples';

const route = routeFactory<QuizDeps>();
export const QUIZ_ADMIN = 'quiz.admin';
const admin = bearer(QUIZ_ADMIN);
const tags = ['quiz admin'];

const present = (d: EditionDoc): z.input<typeof EditionView> => ({
  id: d._id,
  date: d.date,
  edition: d.edition,
  title: d.title,
  text: d.text,
  publishedAt: d.publishedAt.toISOString(),
  updatedAt: d.updatedAt.toISOString(),
});

export const editionRoutes = [
  route({
    method: 'put',
    path: '/quiz/admin/editions/:date/:edition',
    summary: 'Create or replace one edition',
    description: 'Editions are published Monday to Saturday, morning and night (a Sunday date is 400). 201 when new, 200 when replaced. Needs quiz.admin.',
    tags,
    auth: admin,
    params: EditionParams,
    body: EditionBody,
    response: EditionView,
    status: 201,
    alsoStatus: [200],
    example: {
      params: { date: '2026-11-24', edition: 'morning' },
      body: tuesdayMorningContent,
      response: tuesdayMorningEdition,
      message: 'edition created',
    },
    handler: async ({ params, body, deps }) => {
      const { doc, created } = await deps.quiz.editions.put(params.date, params.edition, body);
      return reply({ status: created ? 201 : 200, message: created ? 'edition created' : 'edition replaced', data: present(doc) });
    },
  }),

  route({
    method: 'get',
    path: '/quiz/admin/editions/:date/:edition',
    summary: 'One edition',
    tags,
    auth: admin,
    params: EditionParams,
    response: EditionView,
    errors: [404],
    example: { params: { date: '2026-11-23', edition: 'morning' }, response: mondayMorningEdition },
    handler: async ({ params, deps }) => present((await deps.quiz.editions.get(params.date, params.edition)) ?? notFound('Edition')),
  }),

  route({
    method: 'get',
    path: '/quiz/admin/editions',
    summary: 'Editions of a date range',
    description: 'Newest first. from and to are calendar dates (YYYY-MM-DD, inclusive); by default the last 14 days.',
    tags,
    auth: admin,
    query: EditionListQuery,
    response: z.array(EditionView),
    example: { query: { from: '2026-11-23', to: '2026-11-24' }, response: [tuesdayMorningEdition, mondayNightEdition] },
    handler: async ({ query, deps }) => {
      const to = query.to ?? localDate(deps.quiz.now(), deps.config.quiz.timeZone);
      const from = query.from ?? addDays(to, -13);
      return (await deps.quiz.editions.between(from, to)).map(present);
    },
  }),
];
