/**
 * Quiz generation on the running stack (issue 12): the schedule made at start-up and triggered
 * through the Temporal client, the admin's generate and create racing it, and a model that answers
 * badly twice before a valid quiz. This file has its own worker, task-queue prefix and database,
 * so its schedule and quizzes (dated around today) meet no other test's.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { ScheduleHandle } from '@temporalio/client';
import request from 'supertest';
import { EDITIONS, previousEditionDay, quizDateOf, type Edition } from '../../models/quiz/calendar.rules';
import { localDate } from '../../models/shared/calendar.rules';
import type { QuizDoc } from '../../models/quiz/quiz.rules';
import { ensureQuizSchedule } from '../../workers/schedules';
import { provider, startAiService, type AiService } from '../helpers/ai';
import { killGroup, startOwnWorker } from '../helpers/processes';
import { editionText, modelQuiz } from '../helpers/quiz';
import { testConfig, tokenFor } from '../helpers/service';

jest.setTimeout(180_000);

const prefix = `quizgen-${randomUUID().slice(0, 6)}-`;
const db = `quizgen_${randomUUID().slice(0, 8)}`;
const config = testConfig({ TASK_QUEUE_PREFIX: prefix, MONGODB_DB: db });
let svc: AiService;
let worker: ChildProcess | undefined;
let admin: string;
let schedule: ScheduleHandle | undefined;

beforeAll(async () => {
  svc = await startAiService(config);
  worker = await startOwnWorker(prefix, config, { MONGODB_DB: db });
  admin = `Bearer ${await tokenFor('quiz-admin', ['quiz.admin'])}`;
});
afterAll(async () => {
  await schedule?.delete().catch(() => undefined);
  killGroup(worker);
  await svc?.deps.mongo.conn.dropDatabase().catch(() => undefined);
  await svc?.close();
});

const quizzes = () => svc.deps.mongo.conn.db!.collection<QuizDoc>('quizzes');

/** Stores an edition and scripts what the model answers for its quiz. */
async function editionWithModel(date: string, edition: Edition, answers: string[] | 'valid' = 'valid'): Promise<string> {
  const text = editionText(`${date} ${edition}`);
  await svc.deps.quiz.editions.put(date, edition, { title: `Edição ${date} ${edition}`, text });
  const user = `quiz-generation:${quizDateOf(date, edition)}`;
  await provider().reset(user);
  await provider().script(user, (answers === 'valid' ? [modelQuiz(text)] : answers.map((a) => (a === 'valid' ? modelQuiz(text) : a))).map((content) => ({ kind: 'reply' as const, content })));
  return user;
}

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const found = await probe();
    if (found) return found;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function expectValidQuiz(q: QuizDoc): void {
  expect(q.questions).toHaveLength(10);
  for (const question of q.questions) {
    expect(question.options).toHaveLength(4);
    expect(new Set(question.options).size).toBe(4);
    expect(question.correct).toBeGreaterThanOrEqual(0);
    expect(question.correct).toBeLessThan(4);
    expect(question.options[question.correct]).toMatch(/verdadeiro/);
  }
  expect(q).toMatchObject({ postId: `${q.date}-${q.edition}`, minCorrectAnswers: 6, origin: 'generated', model: config.quiz.model });
}

describe('the daily schedule', () => {
  it('is created once however often workers start, runs at the configured time, and generates when triggered', async () => {
    const client = svc.deps.temporal.client;
    // Three workers starting at once, then a fourth later: one schedule, in step with the config.
    const outcomes = await Promise.all([1, 2, 3].map(() => ensureQuizSchedule(client, config)));
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
    expect(await ensureQuizSchedule(client, config)).toBe('updated');
    schedule = client.schedule.getHandle(`${prefix}quiz-daily-generation`);
    const described = await schedule.describe();
    expect(described.spec.calendars?.[0]).toMatchObject({ hour: [{ start: 7, end: 7, step: 1 }], minute: [{ start: 0, end: 0, step: 1 }] });
    expect(described.spec.timezone).toBe('UTC');
    expect(described.action).toMatchObject({ workflowType: 'quizDailyWorkflow', taskQueue: `${prefix}quiz-generation` });
    expect(described.info.nextActionTimes.length).toBeGreaterThan(0);
    for (const at of described.info.nextActionTimes) expect(at.toISOString()).toMatch(/T07:00:00\.000Z$/);

    // Triggered now, it makes the quizzes of the last edition day before today (São Paulo).
    const date = previousEditionDay(localDate(new Date(), config.quiz.timeZone));
    for (const edition of EDITIONS) await editionWithModel(date, edition);
    await schedule.trigger();
    const made = await until('both quizzes', async () => {
      const found = await quizzes().find({ date }).toArray();
      return found.length === 2 && found;
    });
    for (const q of made) expectValidQuiz(q);
    expect(made.map((q) => q.workflowId).sort()).toEqual(EDITIONS.map((e) => `quiz-generation-${quizDateOf(date, e)}`).sort());
    // The run that made them is the schedule's, visible as such.
    const runs = (await schedule.describe()).info.recentActions;
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.at(-1)!.action.workflow.workflowId).toMatch(new RegExp(`^${prefix}quiz-daily-`));
  });
});

describe('POST /quiz/admin/generate and POST /quiz/admin/create', () => {
  it('generates an edition day on request, answering with the workflow id at once; racing requests and a create make one quiz per edition', async () => {
    const date = '2031-09-02'; // a Tuesday
    for (const edition of EDITIONS) await editionWithModel(date, edition);
    const generate = () => request(svc.callback).post('/quiz/admin/generate').set('Authorization', admin).send({ date });
    const create = () => request(svc.callback).post('/quiz/admin/create').set('Authorization', admin).send({ date, edition: 'night' });
    const [a, b, c] = await Promise.all([generate(), generate(), create()]);
    expect(a.status).toBe(202);
    expect(a.body).toMatchObject({ success: true, data: { workflowId: `quiz-daily-manual-${date}`, date, quizDates: [date, `${date}-night`] } });
    expect(b.body.data.workflowId).toBe(a.body.data.workflowId);
    // The create joined (or followed) the generation of the night quiz: created by it, or found made.
    expect([201, 409]).toContain(c.status);
    const result = await svc.deps.temporal.client.workflow.getHandle(a.body.data.workflowId).result();
    expect(result.quizzes.map((q: { status: string }) => q.status).every((s: string) => ['created', 'exists', 'running elsewhere'].includes(s))).toBe(true);
    const made = await until('both quizzes', async () => {
      const found = await quizzes().find({ date }).toArray();
      return found.length === 2 && found;
    });
    for (const q of made) expectValidQuiz(q);
    // Asked again once done: nothing new.
    await generate().expect(202);
    await svc.deps.temporal.client.workflow.getHandle(a.body.data.workflowId).result();
    expect(await quizzes().countDocuments({ date })).toBe(2);
    await create().expect(409);
  });

  it('creates a quiz from the edition when the model answers badly twice and then well (201 {quizId, date})', async () => {
    const date = '2031-09-03'; // a Wednesday
    const user = await editionWithModel(date, 'morning', ['Claro! Segue o quiz sobre a edição.', JSON.stringify({ questions: [] }), 'valid']);
    const res = await request(svc.callback).post('/quiz/admin/create').set('Authorization', admin).send({ date }).expect(201);
    expect(res.body).toEqual({ success: true, message: 'Quiz created', data: { quizId: expect.any(String), date, quizDate: date, edition: 'morning' } });
    expect(await provider().requests(user)).toHaveLength(3);
    const stored = (await quizzes().findOne({ _id: res.body.data.quizId }))!;
    expectValidQuiz(stored);
    // The model was held to the schema and told what to write.
    const sent = (await provider().requests(user))[0]!;
    expect(sent.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'edition_quiz', strict: true } });
    expect(JSON.stringify(sent.messages)).toContain('português do Brasil');
  });

  it('answers 400 when the edition is not stored (and says how to fix it), storing nothing', async () => {
    const date = '2031-09-04'; // a Thursday, no edition
    const res = await request(svc.callback).post('/quiz/admin/create').set('Authorization', admin).send({ date, edition: 'night' }).expect(400);
    expect(res.body).toMatchObject({ success: false, message: expect.stringMatching(/no edition 2031-09-04-night is stored.*PUT \/quiz\/admin\/editions/) });
    expect(await quizzes().countDocuments({ date })).toBe(0);
  });
});
