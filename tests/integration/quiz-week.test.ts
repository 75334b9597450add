/**
 * A week of daily quiz generation on Temporal's time-skipping test server (issue 12): the daily
 * workflow runs once a day, Monday to Sunday, seven days skipped in seconds, against the real
 * database and the OpenAI double. It checks the weekday table of docs/decisions.md "Quiz
 * generation": which edition each run's quizzes derive from, that none is dated Sunday, and that
 * Sunday's run finds Saturday's quizzes made. Also: a missing edition or AI provider ends a quiz's
 * generation with its reason, and a model answer that fails the checks is asked for again.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowClient } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import mongoose from 'mongoose';
import { createQuizActivities } from '../../activities/quiz.activities';
import { createLlmClient } from '../../models/infra/llm';
import { EDITIONS } from '../../models/quiz/calendar.rules';
import { addDays, localDate, WEEKDAYS, weekday } from '../../models/shared/calendar.rules';
import { createEditionRepo } from '../../models/quiz/edition.repo';
import type { QuizDoc } from '../../models/quiz/quiz.rules';
import { quizDailyWorkflow, quizGenerationWorkflow } from '../../workflows/quiz/generation.workflow';
import { provider } from '../helpers/ai';
import { editionText, modelQuiz } from '../helpers/quiz';
import { testConfig } from '../helpers/service';
import { timeSkippingEnvironment } from '../helpers/time-skipping';

jest.setTimeout(180_000);

const TZ = 'America/Sao_Paulo';
let env: TestWorkflowEnvironment;
/**
 * Runs are awaited with a plain client, so the clock moves only when the test says (env.sleep):
 * the environment's own client lets the server skip time while it waits, and the test server
 * then jumps to the farthest pending timeout (ten years) between a child's end and its parent's turn.
 */
let client: WorkflowClient;
let conn: mongoose.Connection;
const workflowsPath = require.resolve('../../workflows');

beforeAll(async () => {
  ({ env, client } = await timeSkippingEnvironment());
  const config = testConfig();
  conn = await mongoose.createConnection(config.mongo.uri!, { dbName: `quiz_week_${randomUUID().slice(0, 8)}` }).asPromise();
});
afterAll(async () => {
  await conn?.dropDatabase().catch(() => undefined);
  await conn?.close();
  await env?.teardown();
});

const quizzes = () => conn.db!.collection<QuizDoc>('quizzes');

async function worker(taskQueue: string, llm = createLlmClient(testConfig())): Promise<Worker> {
  return await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath, activities: createQuizActivities({ conn, llm, model: 'gpt-4o' }) });
}

it('runs a week and a day: each run makes the quizzes of the last edition day before it, none on Sunday', async () => {
  // To 07:00 UTC (the default schedule) of the first Monday at least a day away, on the server's clock.
  const now = await env.currentTimeMs();
  let monday = addDays(new Date(now).toISOString().slice(0, 10), 2);
  while (weekday(monday) !== 1) monday = addDays(monday, 1);
  await env.sleep(Date.parse(`${monday}T07:00:00Z`) - now);

  // Editions from the Saturday before to the Saturday; each quiz's model answer quotes its edition.
  const editions = createEditionRepo(conn);
  for (let d = addDays(monday, -2); d <= addDays(monday, 5); d = addDays(d, 1)) {
    if (weekday(d) === 0) continue;
    for (const edition of EDITIONS) {
      const text = editionText(`${d} ${edition}`);
      await editions.put(d, edition, { title: `Edição ${d} ${edition}`, text });
      const user = `quiz-generation:${edition === 'night' ? `${d}-night` : d}`;
      await provider().reset(user);
      await provider().script(user, [{ kind: 'reply', content: modelQuiz(text) }]);
    }
  }

  const taskQueue = `quiz-week-${randomUUID().slice(0, 6)}`;
  const table: string[] = [];
  await (await worker(taskQueue)).runUntil(async () => {
    for (let day = 0; day < 8; day++) {
      const result = await client.execute(quizDailyWorkflow, {
        taskQueue,
        workflowId: `${taskQueue}-run-${day}`,
        args: [{ timeZone: TZ }],
      });
      const ran = WEEKDAYS[weekday(result.runDay)];
      table.push(`${ran}: ${result.quizzes.map((q) => `${WEEKDAYS[weekday(q.quizDate.slice(0, 10))]}${q.quizDate.endsWith('night') ? ' night' : ' morning'} ${q.status}`).join(', ')}`);
      await env.sleep('1 day');
    }
  });
  expect(table).toEqual([
    'Monday: Saturday morning created, Saturday night created',
    'Tuesday: Monday morning created, Monday night created',
    'Wednesday: Tuesday morning created, Tuesday night created',
    'Thursday: Wednesday morning created, Wednesday night created',
    'Friday: Thursday morning created, Thursday night created',
    'Saturday: Friday morning created, Friday night created',
    'Sunday: Saturday morning created, Saturday night created',
    'Monday: Saturday morning exists, Saturday night exists',
  ]);
  const stored = await quizzes().find({}, { projection: { date: 1, edition: 1, questions: 1, postId: 1 } }).toArray();
  expect(stored).toHaveLength(14);
  expect(stored.some((q) => weekday(q.date) === 0)).toBe(false);
  for (const q of stored) {
    expect(q.postId).toBe(`${q.date}-${q.edition}`);
    expect(q.questions).toHaveLength(10);
  }
  // The clock really moved: it is the Tuesday after, in São Paulo.
  expect(localDate(new Date(await env.currentTimeMs()), TZ)).toBe(addDays(monday, 8));
});

it('ends a quiz whose edition is missing, or whose AI provider is not configured, with the reason and no quiz', async () => {
  const taskQueue = `quiz-reasons-${randomUUID().slice(0, 6)}`;
  const date = '2033-05-17'; // a Tuesday
  await createEditionRepo(conn).put(date, 'morning', { title: 'Terça', text: editionText(date) });
  const noProvider = createLlmClient({ ai: { ...testConfig().ai, apiKey: undefined } });
  await (await worker(taskQueue, noProvider)).runUntil(async () => {
    const run = (edition: 'morning' | 'night') =>
      client.execute(quizGenerationWorkflow, { taskQueue, workflowId: `${taskQueue}-${edition}`, args: [{ date, edition }] });
    expect(await run('night')).toEqual({ quizDate: `${date}-night`, status: 'skipped', failure: 'QUIZ_EDITION_MISSING', reason: `no edition ${date}-night is stored` });
    expect(await run('morning')).toMatchObject({ quizDate: date, status: 'skipped', failure: 'AI_PROVIDER_NOT_CONFIGURED' });
  });
  expect(await quizzes().countDocuments({ date })).toBe(0);
});

it('asks again when the model answers with something unusable, and keeps the first valid quiz', async () => {
  const taskQueue = `quiz-retry-${randomUUID().slice(0, 6)}`;
  const date = '2033-05-18'; // a Wednesday
  const text = editionText(date);
  await createEditionRepo(conn).put(date, 'night', { title: 'Quarta à noite', text });
  const user = `quiz-generation:${date}-night`;
  await provider().reset(user);
  await provider().script(user, [
    { kind: 'reply', content: 'Aqui está o seu quiz!' },
    { kind: 'reply', content: modelQuiz(text, 7) },
    { kind: 'error', status: 503 },
    { kind: 'reply', content: modelQuiz(text) },
  ]);
  await (await worker(taskQueue)).runUntil(async () => {
    const result = await client.execute(quizGenerationWorkflow, { taskQueue, workflowId: `${taskQueue}-1`, args: [{ date, edition: 'night' }] });
    expect(result).toMatchObject({ quizDate: `${date}-night`, status: 'created' });
  });
  expect(await provider().requests(user)).toHaveLength(4);
  expect(await quizzes().countDocuments({ date, edition: 'night' })).toBe(1);
});
