/**
 * The daily quiz generation schedule (issue 38, item 4), for quiz administrators (quiz.admin): its
 * state (paused and why, the last runs and what each made, the next runs, the spec), pausing and
 * resuming it, and running it now. The use cases: operations/quiz/schedule.ts; the schedule is kept
 * by the workers (workers/schedules.ts).
 */
import { pauseQuizSchedule, quizScheduleState, triggerQuizSchedule, unpauseQuizSchedule, type QuizScheduleState } from '../../operations/quiz/schedule';
import { bearer } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import { QuizSchedulePauseBody, QuizScheduleTriggered, QuizScheduleUnpauseBody, QuizScheduleView } from './contracts';
import type { QuizDeps } from './deps';
import { QUIZ_ADMIN } from './editions.routes';
import { quizScheduleExample, quizScheduleResumedExample, quizScheduleTriggeredExample } from './examples';

const route = routeFactory<QuizDeps>();
const admin = bearer(QUIZ_ADMIN);
const tags = ['quiz admin'];
const MISSING = 'The schedule is made by the workers at start-up (unless QUIZ_SCHEDULE_ENABLED=false): 404 while it does not exist. 503 when Temporal cannot be reached.';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const present = (s: QuizScheduleState) => ({
  ...s,
  nextRuns: s.nextRuns.map((d) => d.toISOString()),
  recentRuns: s.recentRuns.map((r) => ({ ...r, scheduledAt: r.scheduledAt.toISOString(), startedAt: r.startedAt.toISOString(), closedAt: iso(r.closedAt) })),
  createdAt: iso(s.createdAt),
  updatedAt: iso(s.updatedAt),
});

export const scheduleRoutes = [
  route({
    method: 'get',
    path: '/quiz/admin/schedule',
    summary: 'The daily generation schedule',
    description:
      'Paused or not (with the note saying why, and who), the last runs (newest first; Temporal keeps ten) with what each made, the next run times, the spec (cron, time zone) ' +
      `and this deployment's configured time, and links into the Temporal UI. ${MISSING}`,
    tags,
    auth: admin,
    response: QuizScheduleView,
    errors: [404, 503],
    example: { response: quizScheduleExample },
    handler: async ({ deps }) => present(await quizScheduleState(deps)),
  }),

  route({
    method: 'post',
    path: '/quiz/admin/schedule/pause',
    summary: 'Pause the daily generation',
    description:
      'No run starts until it is resumed (a run already going goes on). The note (optional) is kept in Temporal with who paused it; pausing a paused schedule replaces the note. ' +
      `Answers the schedule's new state. ${MISSING}`,
    tags,
    auth: admin,
    body: QuizSchedulePauseBody,
    response: QuizScheduleView,
    errors: [404, 503],
    example: { body: { note: 'Edição de quarta atrasada: gerar à mão depois da publicação' }, response: quizScheduleExample, message: 'Quiz schedule paused' },
    handler: async ({ auth, body, deps }) => reply({ message: 'Quiz schedule paused', data: present(await pauseQuizSchedule(deps, { note: body.note, by: auth.sub })) }),
  }),

  route({
    method: 'post',
    path: '/quiz/admin/schedule/unpause',
    summary: 'Resume the daily generation',
    description:
      "Runs start again at the next scheduled time; the days missed while paused are not made up (POST /quiz/admin/generate makes a day's quizzes). " +
      `The note (optional) is kept with who resumed it. Answers the schedule's new state. ${MISSING}`,
    tags,
    auth: admin,
    body: QuizScheduleUnpauseBody,
    response: QuizScheduleView,
    errors: [404, 503],
    example: { body: { note: 'Edição de quarta publicada' }, response: quizScheduleResumedExample, message: 'Quiz schedule resumed' },
    handler: async ({ auth, body, deps }) => reply({ message: 'Quiz schedule resumed', data: present(await unpauseQuizSchedule(deps, { note: body.note, by: auth.sub })) }),
  }),

  route({
    method: 'post',
    path: '/quiz/admin/schedule/trigger',
    summary: 'Run the daily generation now',
    description:
      "Starts the schedule's run now, as if it were due (also while paused): it makes the quizzes due today (both editions of the last edition day before today); quizzes that exist are left as they are. " +
      "The schedule's overlap policy applies, SKIP: while a run of it is still going the trigger would be dropped, so it is refused (409, naming the run) and nothing changes. " +
      `202 with the run started (its id is null when Temporal had not shown it within 3 s). ${MISSING}`,
    tags,
    auth: admin,
    response: QuizScheduleTriggered,
    status: 202,
    errors: [404, 409, 503],
    example: { response: quizScheduleTriggeredExample, message: 'Quiz schedule triggered' },
    handler: async ({ deps }) => reply({ status: 202, message: 'Quiz schedule triggered', data: await triggerQuizSchedule(deps) }),
  }),
];
