/**
 * The daily quiz schedule's administration (issue 38, item 4) and regenerating a quiz, on the real
 * stack: GET /quiz/admin/schedule, pause, unpause and trigger against the Temporal dev server; the
 * run a trigger starts, refused while it runs (SKIP), then completed by a worker with its result;
 * a schedule that does not exist (404) and Temporal away (503); hostile input (400, nothing
 * changed) and callers without quiz.admin (401, 403). Then GET /quiz/admin/{id} (the answers) and
 * POST /quiz/admin/{id}/regenerate with the OpenAI double.
 *
 * This file has its own task-queue prefix (so its own schedule id), database and worker; the
 * shared test worker makes no schedule (QUIZ_SCHEDULE_ENABLED=false), nor does this file's.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { quizDateOf, type Edition } from '../../models/quiz/calendar.rules';
import { addDays, weekday } from '../../models/shared/calendar.rules';
import { ensureQuizSchedule } from '../../workers/schedules';
import { provider, startAiService, type AiService } from '../helpers/ai';
import { killGroup, startOwnWorker } from '../helpers/processes';
import { editionText, manualQuestions, modelQuiz } from '../helpers/quiz';
import { CLOSED_PORT, testConfig, tokenFor } from '../helpers/service';

jest.setTimeout(180_000);

const prefix = `quizsched-${randomUUID().slice(0, 6)}-`;
const db = `quizsched_${randomUUID().slice(0, 8)}`;
const UI = 'http://temporal-ui.test:8233';
const config = testConfig({ TASK_QUEUE_PREFIX: prefix, MONGODB_DB: db, TEMPORAL_UI_URL: `${UI}/` });
const scheduleId = `${prefix}quiz-daily-generation`;
let svc: AiService;
let worker: ChildProcess | undefined;
let admin: string;
let notAdmin: string;

beforeAll(async () => {
  svc = await startAiService(config);
  admin = `Bearer ${await tokenFor('quiz-admin-sched', ['quiz.admin'])}`;
  notAdmin = `Bearer ${await tokenFor('support-agent-sched', ['support.agent', 'quiz.readings'])}`;
});
afterAll(async () => {
  const client = svc?.deps.temporal.client;
  await client?.schedule.getHandle(scheduleId).delete().catch(() => undefined);
  killGroup(worker);
  await svc?.deps.mongo.conn.dropDatabase().catch(() => undefined);
  await svc?.close();
});

const get = (path: string, auth = admin) => request(svc.callback).get(path).set('Authorization', auth);
const post = (path: string, body?: unknown, auth = admin) => {
  const req = request(svc.callback).post(path).set('Authorization', auth);
  return body === undefined ? req : req.send(body as object);
};
const describeSchedule = () => svc.deps.temporal.client.schedule.getHandle(scheduleId).describe();
/** This file's worker (its prefix and database), started when a test first needs runs made. */
const ownWorker = async () => {
  worker ??= await startOwnWorker(prefix, config, { MONGODB_DB: db });
};

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const found = await probe();
    if (found) return found;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('the daily schedule', () => {
  it('is 404 on every route while it does not exist, saying why, and creates nothing', async () => {
    for (const res of [await get('/quiz/admin/schedule'), await post('/quiz/admin/schedule/pause', { note: 'x' }), await post('/quiz/admin/schedule/unpause'), await post('/quiz/admin/schedule/trigger')]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND', message: expect.stringMatching(new RegExp(`${scheduleId} does not exist: .*QUIZ_SCHEDULE_ENABLED=false`)) });
    }
    await expect(describeSchedule()).rejects.toThrow();
  });

  it('shows its spec, its next runs and no runs yet once the workers made it', async () => {
    await ensureQuizSchedule(svc.deps.temporal.client, config);
    const res = await get('/quiz/admin/schedule').expect(200);
    const s = res.body.data;
    expect(s).toMatchObject({
      scheduleId,
      paused: false,
      note: null,
      spec: { cron: ['0 7 * * *'], timeZone: 'UTC' },
      configured: { time: '07:00', timeZone: 'UTC', createdByWorkers: false },
      overlap: 'SKIP',
      catchupWindowMs: 86_400_000,
      recentRuns: [],
      running: [],
      actionsTaken: 0,
      temporalUiUrl: `${UI}/namespaces/default/schedules/${scheduleId}`,
    });
    expect(s.nextRuns.length).toBeGreaterThan(0);
    for (const at of s.nextRuns) expect(at).toMatch(/T07:00:00\.000Z$/);
  });

  it('is refused to callers without quiz.admin (403) or a token (401), changing nothing', async () => {
    for (const auth of [notAdmin]) {
      await get('/quiz/admin/schedule', auth).expect(403);
      await post('/quiz/admin/schedule/pause', { note: 'no' }, auth).expect(403);
      await post('/quiz/admin/schedule/trigger', undefined, auth).expect(403);
    }
    await request(svc.callback).get('/quiz/admin/schedule').expect(401);
    await request(svc.callback).post('/quiz/admin/schedule/pause').send({}).expect(401);
    const d = await describeSchedule();
    expect(d.state.paused).toBe(false);
    expect(d.info.numActionsTaken).toBe(0);
  });

  it('pauses with a note kept with who paused it, refuses hostile notes changing nothing, and resumes', async () => {
    const paused = await post('/quiz/admin/schedule/pause', { note: '  Edição de quarta atrasada  ' }).expect(200);
    expect(paused.body).toMatchObject({ success: true, message: 'Quiz schedule paused', data: { paused: true, note: 'Edição de quarta atrasada (by quiz-admin-sched)' } });
    expect((await describeSchedule()).state).toMatchObject({ paused: true, note: 'Edição de quarta atrasada (by quiz-admin-sched)' });

    for (const body of [{ note: 'a\u0000b' }, { note: 'line\nbreak' }, { note: 'x'.repeat(401) }, { note: '   ' }, { note: 42 }, { note: 'ok', paused: false }, ['note']]) {
      const res = await post('/quiz/admin/schedule/pause', body);
      expect([res.status, res.body.success, res.body.code]).toEqual([400, false, 'VALIDATION_FAILED']);
      const resumed = await post('/quiz/admin/schedule/unpause', body);
      expect(resumed.status).toBe(400);
    }
    expect((await describeSchedule()).state).toMatchObject({ paused: true, note: 'Edição de quarta atrasada (by quiz-admin-sched)' });
    // A worker starting brings the schedule in step with its configuration, and leaves it paused.
    expect(await ensureQuizSchedule(svc.deps.temporal.client, config)).toBe('updated');
    expect((await describeSchedule()).state).toMatchObject({ paused: true, note: 'Edição de quarta atrasada (by quiz-admin-sched)' });

    // No note: a default one, with who.
    const resumed = await post('/quiz/admin/schedule/unpause').expect(200);
    expect(resumed.body.data).toMatchObject({ paused: false, note: 'Resumed (by quiz-admin-sched)' });
    const again = await post('/quiz/admin/schedule/pause', {}).expect(200);
    expect(again.body.data).toMatchObject({ paused: true, note: 'Paused (by quiz-admin-sched)' });
    await post('/quiz/admin/schedule/unpause', { note: 'Edição publicada' }).expect(200);
    expect((await describeSchedule()).state.paused).toBe(false);
  });

  it('runs now under SKIP: 202 with the run, 409 while it runs (nothing started), and the run with its result once a worker made it', async () => {
    // No worker yet: the run waits, running.
    const triggered = await post('/quiz/admin/schedule/trigger').expect(202);
    expect(triggered.body).toMatchObject({ success: true, message: 'Quiz schedule triggered', data: { scheduleId, overlap: 'SKIP' } });
    const { workflowId, runId } = triggered.body.data as { workflowId: string; runId: string };
    expect(workflowId).toMatch(new RegExp(`^${prefix}quiz-daily-\\d{4}-\\d\\d-\\d\\dT`));
    expect(triggered.body.data.temporalUiUrl).toBe(`${UI}/namespaces/default/workflows/${encodeURIComponent(workflowId)}/${runId}/history`);

    const running = (await get('/quiz/admin/schedule').expect(200)).body.data;
    expect(running.running).toEqual([{ workflowId, runId }]);
    expect(running.recentRuns[0]).toMatchObject({ workflowId, runId, status: 'RUNNING', closedAt: null, result: null, failure: null });

    const refused = await post('/quiz/admin/schedule/trigger').expect(409);
    expect(refused.body).toMatchObject({ success: false, code: 'CONFLICT', message: expect.stringContaining(workflowId), details: { reason: 'run_in_progress', overlap: 'SKIP' } });
    const d = await describeSchedule();
    expect([d.info.numActionsTaken, d.info.numActionsSkippedOverlap]).toEqual([1, 0]);

    // A worker makes the run: no edition is stored in this database, so both quizzes are skipped with why.
    await ownWorker();
    const done = await until('the run completed', async () => {
      const s = (await get('/quiz/admin/schedule').expect(200)).body.data;
      return s.recentRuns[0]?.status === 'COMPLETED' && s;
    });
    expect(done.running).toEqual([]);
    expect(done.recentRuns[0]).toMatchObject({ workflowId, status: 'COMPLETED', closedAt: expect.any(String), failure: null });
    const result = done.recentRuns[0].result;
    expect(result.quizzes).toHaveLength(2);
    for (const q of result.quizzes) expect(q).toMatchObject({ status: 'skipped', quizId: null, reason: expect.stringMatching(/^no edition .* is stored$/) });
  });

  it('is 503 when Temporal cannot be reached, within seconds', async () => {
    const down = await startAiService(testConfig({ TASK_QUEUE_PREFIX: prefix, MONGODB_DB: db, TEMPORAL_ADDRESS: `127.0.0.1:${CLOSED_PORT}` }));
    try {
      const started = Date.now();
      const res = await request(down.callback).get('/quiz/admin/schedule').set('Authorization', admin).expect(503);
      expect(res.body).toMatchObject({ success: false, code: 'DEPENDENCY_UNAVAILABLE', details: { dependency: 'temporal' } });
      await request(down.callback).post('/quiz/admin/schedule/pause').set('Authorization', admin).send({ note: 'x' }).expect(503);
      expect(Date.now() - started).toBeLessThan(8_000);
    } finally {
      await down.close();
    }
    expect((await describeSchedule()).state.paused).toBe(false);
  });
});

// ---- One quiz with its answers, and regenerating it ------------------------------------------------

// A Tuesday of 2031 of this file's own (the generation ids `quiz-generation-<quizDate>` are the namespace's).
let TUE = '2031-10-07';
while (weekday(TUE) !== 2) TUE = addDays(TUE, 1);
const WED = addDays(TUE, 1);

const quizzes = () => svc.deps.mongo.conn.db!.collection('quizzes');

/** Stores an edition and scripts one valid quiz for it from the model. */
async function editionWithModel(date: string, edition: Edition): Promise<string> {
  const text = editionText(`${date} ${edition}`);
  await svc.deps.quiz.editions.put(date, edition, { title: `Edição ${date} ${edition}`, text });
  const user = `quiz-generation:${quizDateOf(date, edition)}`;
  await provider().reset(user);
  await provider().script(user, [{ kind: 'reply' as const, content: modelQuiz(text) }]);
  return user;
}

describe('a quiz with its answers, and regenerating it', () => {
  it('replaces a quiz by a new generation from its edition: a new id, the old one gone, the answers and evidence readable', async () => {
    await ownWorker();
    const user = await editionWithModel(TUE, 'morning');
    const created = await post('/quiz/admin/create', { date: TUE, edition: 'morning', questions: manualQuestions() }).expect(201);
    const oldId = created.body.data.quizId as string;
    const before = (await get(`/quiz/admin/${oldId}`).expect(200)).body.data;
    expect(before).toMatchObject({ id: oldId, origin: 'manual', workflowId: null });
    expect(before.questions).toHaveLength(10);
    expect(before.questions[0]).toEqual({ number: 1, text: 'Pergunta número 1 da edição?', options: ['Opção A', 'Opção B', 'Opção C', 'Opção D'], correct: 0, evidence: null });

    const res = await post(`/quiz/admin/${oldId}/regenerate`).expect(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Quiz regenerated',
      data: { quizId: expect.any(String), replacedQuizId: oldId, date: TUE, quizDate: TUE, edition: 'morning', workflowId: `quiz-generation-${TUE}` },
    });
    const newId = res.body.data.quizId as string;
    expect(newId).not.toBe(oldId);
    expect(await provider().requests(user)).toHaveLength(1);

    await get(`/quiz/admin/${oldId}`).expect(404);
    const after = (await get(`/quiz/admin/${newId}`).expect(200)).body.data;
    expect(after).toMatchObject({ id: newId, date: TUE, edition: 'morning', origin: 'generated', workflowId: `quiz-generation-${TUE}`, model: config.quiz.model });
    expect(after.questions).toHaveLength(10);
    for (const q of after.questions) {
      expect(q.options[q.correct]).toMatch(/verdadeiro/);
      expect(q.evidence).toEqual(expect.any(String));
    }
    expect(await quizzes().countDocuments({ date: TUE })).toBe(1);

    // The old id is gone for good: 404, and nothing else changes.
    await post(`/quiz/admin/${oldId}/regenerate`).expect(404);
    expect(await quizzes().find({ date: TUE }).map((q) => q._id).toArray()).toEqual([newId]);
  });

  it('changes nothing when the edition is not stored (400, saying how to fix it)', async () => {
    await ownWorker();
    const created = await post('/quiz/admin/create', { date: WED, edition: 'night', questions: manualQuestions() }).expect(201);
    const id = created.body.data.quizId as string;
    const res = await post(`/quiz/admin/${id}/regenerate`).expect(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', message: expect.stringMatching(/no edition .*-night is stored.*PUT \/quiz\/admin\/editions/) });
    expect((await get(`/quiz/admin/${id}`).expect(200)).body.data).toMatchObject({ id, origin: 'manual' });
  });

  it('refuses hostile ids and callers without quiz.admin, changing nothing', async () => {
    const [quiz] = await quizzes().find({ date: TUE }).toArray();
    await post(`/quiz/admin/${'x'.repeat(101)}/regenerate`).expect(400);
    await get(`/quiz/admin/${'x'.repeat(101)}`).expect(400);
    await post(`/quiz/admin/${encodeURIComponent('{"$ne":null}')}/regenerate`).expect(404);
    await get(`/quiz/admin/${randomUUID()}`).expect(404);
    await get(`/quiz/admin/${quiz!._id}`, notAdmin).expect(403);
    await post(`/quiz/admin/${quiz!._id}/regenerate`, undefined, notAdmin).expect(403);
    await request(svc.callback).post(`/quiz/admin/${quiz!._id}/regenerate`).expect(401);
    expect(await quizzes().find({ date: TUE }).map((q) => q._id).toArray()).toEqual([quiz!._id]);
  });
});
