/**
 * The quiz routes over HTTP (issue 12, spec §4.1, §4.2, §7): what a reader may take, one attempt
 * per reader and quiz (twenty at once), the 3-day window's edges, days already read, streaks with
 * recovered days, history, and the admin's create, list and delete. "Today" is a day of this file's
 * own (the service's clock is set), in 2032, so its quizzes meet no other test's.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { addDays, weekday } from '../../models/shared/calendar.rules';
import { startAiService, type AiService } from '../helpers/ai';
import { manualQuestions } from '../helpers/quiz';
import { tokenFor } from '../helpers/service';

let svc: AiService;
let admin: string;
let sender: string;

// A Thursday: Wednesday, Tuesday and Monday are the 3 days before it; then Sunday and Saturday.
let THU = '2032-06-03';
while (weekday(THU) !== 4) THU = addDays(THU, 1);
const WED = addDays(THU, -1);
const TUE = addDays(THU, -2);
const MON = addDays(THU, -3);
const SAT = addDays(THU, -5);
const FRI = addDays(THU, 1);
/** Sets the service's "today" (noon in São Paulo). */
const setToday = (date: string) => {
  svc.deps.quiz.now = () => new Date(`${date}T12:00:00-03:00`);
};

/** The correct options of every quiz this file creates. */
const CORRECT = [0, 1, 2, 3, 0, 1, 2, 3, 0, 1];
/** Answers with `right` of the ten correct. */
const answersWith = (right: number) => CORRECT.map((c, i) => (i < right ? c : (c + 1) % 4));

const ids: Record<string, string> = {};

async function reader(): Promise<{ id: string; auth: string }> {
  const id = `reader-${randomUUID().slice(0, 8)}`;
  return { id, auth: `Bearer ${await tokenFor(id)}` };
}
const get = (path: string, auth: string) => request(svc.callback).get(path).set('Authorization', auth);
const submit = (auth: string, quizId: string, answers: number[]) => request(svc.callback).post('/quiz/submit').set('Authorization', auth).send({ quizId, answers });
const attempts = () => svc.deps.mongo.conn.db!.collection('quiz_attempts');

beforeAll(async () => {
  svc = await startAiService();
  admin = `Bearer ${await tokenFor('quiz-admin', ['quiz.admin'])}`;
  sender = `Bearer ${await tokenFor('newsletter-sender', ['quiz.readings'])}`;
  setToday(THU);
  for (const [date, edition] of [
    [WED, 'morning'],
    [WED, 'night'],
    [TUE, 'morning'],
    [TUE, 'night'],
    [MON, 'morning'],
    [SAT, 'morning'],
    [THU, 'morning'],
  ] as const) {
    const res = await request(svc.callback).post('/quiz/admin/create').set('Authorization', admin).send({ date, edition, questions: manualQuestions(CORRECT) }).expect(201);
    expect(res.body).toMatchObject({ success: true, data: { quizId: expect.any(String), date, edition } });
    ids[`${date}-${edition}`] = res.body.data.quizId;
  }
});
afterAll(() => svc?.close());

describe('GET /quiz/available', () => {
  it('lists the quizzes of the 3 days before today, newest first, with the rules', async () => {
    const r = await reader();
    const res = await get('/quiz/available', r.auth).expect(200);
    expect(res.body.data.rules).toEqual({ maxDaysRecovery: 3, minCorrectAnswers: 6, totalQuestions: 10, attemptsPerQuiz: 1 });
    expect(res.body.data.quizzes.map((q: { quizDate: string }) => q.quizDate)).toEqual([WED, `${WED}-night`, TUE, `${TUE}-night`, MON]);
    expect(res.body.data.quizzes[1]).toEqual({
      id: ids[`${WED}-night`],
      title: `Quiz da edição da noite de ${WED.split('-').reverse().join('/')}`,
      description: expect.any(String),
      quizDate: `${WED}-night`,
      edition: 'night',
      postId: `${WED}-night`,
      minCorrectAnswers: 6,
      alreadyAttempted: false,
      attemptResult: null,
      date: WED,
      availableUntil: addDays(WED, 3),
      canSubmit: true,
    });
  });

  it('needs a bearer token (401 in the quiz envelope)', async () => {
    const res = await request(svc.callback).get('/quiz/available').expect(401);
    expect(res.body).toMatchObject({ success: false, message: expect.any(String) });
  });
});

describe('GET /quiz/{id}', () => {
  it('gives the questions and their options, never the correct ones', async () => {
    const r = await reader();
    const res = await get(`/quiz/${ids[`${TUE}-morning`]}`, r.auth).expect(200);
    expect(res.body.data).toMatchObject({ id: ids[`${TUE}-morning`], quizDate: TUE, totalQuestions: 10, canSubmit: true });
    expect(res.body.data.questions).toHaveLength(10);
    expect(res.body.data.questions[0]).toEqual({ number: 1, text: 'Pergunta número 1 da edição?', options: ['Opção A', 'Opção B', 'Opção C', 'Opção D'] });
    expect(JSON.stringify(res.body)).not.toMatch(/"correct"|evidence/);
  });

  it('is 404 for an unknown quiz', async () => {
    const r = await reader();
    const res = await get(`/quiz/${randomUUID()}`, r.auth).expect(404);
    expect(res.body).toMatchObject({ success: false, message: 'Quiz not found' });
  });
});

describe('POST /quiz/submit', () => {
  it('passes with 6 correct: recovers the day in the streak in the same write, and shows the correct options', async () => {
    const r = await reader();
    // Read Saturday and Monday; Tuesday missed; Wednesday read.
    for (const [date, edition] of [
      [SAT, 'night'],
      [MON, 'morning'],
      [WED, 'night'],
    ])
      await request(svc.callback).post('/quiz/readings').set('Authorization', sender).send({ userId: r.id, date, edition }).expect(201);
    const before = (await get('/quiz/streak', r.auth).expect(200)).body.data;
    expect(before).toMatchObject({ current: 1, missedRecoverable: [{ date: TUE, quizDates: [TUE, `${TUE}-night`] }] });

    const res = await submit(r.auth, ids[`${TUE}-morning`]!, answersWith(6)).expect(200);
    expect(res.body).toMatchObject({
      success: true,
      message: 'Quiz passed: the day is recovered in your streak',
      data: { quizId: ids[`${TUE}-morning`], quizDate: TUE, passed: true, correctAnswers: 6, totalQuestions: 10, minCorrectAnswers: 6, streakRecovered: true },
    });
    expect(res.body.data.results[6]).toEqual({ number: 7, chosen: (CORRECT[6]! + 1) % 4, correct: CORRECT[6], isCorrect: false });
    // Saturday, (Sunday never breaks a streak), Monday, Tuesday recovered, Wednesday.
    const after = (await get('/quiz/streak', r.auth).expect(200)).body.data;
    expect(after).toMatchObject({ current: 4, longest: 4, lastReadDate: WED, missedRecoverable: [] });

    const available = (await get('/quiz/available', r.auth).expect(200)).body.data.quizzes;
    const tue = available.find((q: { id: string }) => q.id === ids[`${TUE}-morning`]);
    expect(tue).toMatchObject({ alreadyAttempted: true, attemptResult: { passed: true, correctAnswers: 6, streakRecovered: true }, canSubmit: false });
    // Tuesday night recovers nothing more: the day is read now.
    const night = await submit(r.auth, ids[`${TUE}-night`]!, answersWith(10)).expect(403);
    expect(night.body).toMatchObject({ success: false, message: `You already read the edition of ${TUE}: there is nothing to recover` });
    expect(await attempts().countDocuments({ userId: r.id })).toBe(1);
  });

  it('fails with 5 correct: recorded, nothing recovered, and no second attempt', async () => {
    const r = await reader();
    const res = await submit(r.auth, ids[`${MON}-morning`]!, answersWith(5)).expect(200);
    expect(res.body.data).toMatchObject({ passed: false, correctAnswers: 5, streakRecovered: false });
    expect(res.body.message).toBe('Quiz not passed: 5 of 10 correct, 6 needed');
    const again = await submit(r.auth, ids[`${MON}-morning`]!, answersWith(10)).expect(403);
    expect(again.body).toMatchObject({ success: false, message: 'You have already attempted this quiz' });
    expect((await get('/quiz/streak', r.auth).expect(200)).body.data.missedRecoverable.map((d: { date: string }) => d.date)).toContain(MON);
  });

  it('takes exactly one of twenty submissions that arrive at once; the other nineteen are 403', async () => {
    const r = await reader();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => submit(r.auth, ids[`${WED}-morning`]!, answersWith(i % 2 ? 10 : 3))));
    const statuses = results.map((x) => x.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 403)).toHaveLength(19);
    for (const x of results.filter((y) => y.status === 403)) expect(x.body).toMatchObject({ success: false, message: 'You have already attempted this quiz' });
    expect(await attempts().countDocuments({ userId: r.id })).toBe(1);
  });

  it('opens a quiz the day after its date and closes it after the third day, recording nothing outside', async () => {
    const r = await reader();
    // Today's quiz is not open yet; Saturday's (5 days ago) is closed; Monday's is on its third day.
    expect((await submit(r.auth, ids[`${THU}-morning`]!, answersWith(10)).expect(403)).body.message).toBe(`This quiz opens on ${FRI}`);
    expect((await submit(r.auth, ids[`${SAT}-morning`]!, answersWith(10)).expect(403)).body.message).toBe(`This quiz could be taken until ${addDays(SAT, 3)}; it can no longer be submitted`);
    try {
      setToday(FRI); // Monday's quiz on its fourth day
      expect((await submit(r.auth, ids[`${MON}-morning`]!, answersWith(10)).expect(403)).body.message).toMatch(/can no longer be submitted/);
      expect(await attempts().countDocuments({ userId: r.id })).toBe(0);
      setToday(THU); // its third day
      await submit(r.auth, ids[`${MON}-morning`]!, answersWith(10)).expect(200);
    } finally {
      setToday(THU);
    }
  });

  it('refuses a day already read and malformed answers, recording nothing', async () => {
    const r = await reader();
    await request(svc.callback).post('/quiz/readings').set('Authorization', sender).send({ userId: r.id, date: WED, edition: 'morning' }).expect(201);
    const read = await submit(r.auth, ids[`${WED}-night`]!, answersWith(10)).expect(403);
    expect(read.body.message).toBe(`You already read the edition of ${WED}: there is nothing to recover`);
    for (const answers of [[0, 1, 2], [...CORRECT.slice(0, 9), 4], 'abc'])
      expect((await submit(r.auth, ids[`${TUE}-morning`]!, answers as number[]).expect(400)).body).toMatchObject({ success: false, message: expect.stringMatching(/answers/) });
    await submit(r.auth, randomUUID(), CORRECT).expect(404);
    expect(await attempts().countDocuments({ userId: r.id })).toBe(0);
  });
});

describe('GET /quiz/history', () => {
  it('lists your attempts, newest first, paginated', async () => {
    const r = await reader();
    await submit(r.auth, ids[`${MON}-morning`]!, answersWith(7)).expect(200);
    await submit(r.auth, ids[`${TUE}-night`]!, answersWith(2)).expect(200);
    const page1 = (await get('/quiz/history?limit=1', r.auth).expect(200)).body.data;
    expect(page1.pagination).toEqual({ page: 1, limit: 1, total: 2, totalPages: 2 });
    expect(page1.attempts[0]).toMatchObject({ quizId: ids[`${TUE}-night`], quizDate: `${TUE}-night`, passed: false, correctAnswers: 2, answers: answersWith(2) });
    const page2 = (await get('/quiz/history?limit=1&page=2', r.auth).expect(200)).body.data;
    expect(page2.attempts[0]).toMatchObject({ quizId: ids[`${MON}-morning`], passed: true, streakRecovered: true });
    await get('/quiz/history?limit=0', r.auth).expect(400);
  });
});

describe('admin', () => {
  it('creates (201), refuses a second quiz for the date and edition (409), and refuses bad input (400)', async () => {
    const date = addDays(THU, 7);
    const created = await request(svc.callback).post('/quiz/admin/create').set('Authorization', admin).send({ date, questions: manualQuestions(), title: 'Quiz especial' }).expect(201);
    expect(created.body).toEqual({ success: true, message: 'Quiz created', data: { quizId: expect.any(String), date, quizDate: date, edition: 'morning' } });
    const again = await request(svc.callback).post('/quiz/admin/create').set('Authorization', admin).send({ date, questions: manualQuestions() }).expect(409);
    expect(again.body).toMatchObject({ success: false, message: `A quiz already exists for ${date}` });
    let sunday = date;
    while (weekday(sunday) !== 0) sunday = addDays(sunday, 1);
    for (const body of [{ date: sunday, questions: manualQuestions() }, { date: addDays(date, 1), questions: manualQuestions().slice(0, 9) }, { date: '2032-02-30' }, { date: addDays(date, 1), edition: 'afternoon' }])
      expect((await request(svc.callback).post('/quiz/admin/create').set('Authorization', admin).send(body).expect(400)).body.success).toBe(false);
    const list = (await request(svc.callback).get(`/quiz/admin/list?from=${date}&to=${addDays(date, 6)}`).set('Authorization', admin).expect(200)).body.data;
    expect(list.quizzes.map((q: { id: string }) => q.id)).toEqual([created.body.data.quizId]);
  });

  it('needs quiz.admin: 401 without a token, 403 for a reader', async () => {
    await request(svc.callback).post('/quiz/admin/create').send({}).expect(401);
    const r = await reader();
    for (const [method, path] of [
      ['post', '/quiz/admin/create'],
      ['post', '/quiz/admin/generate'],
      ['get', '/quiz/admin/list'],
      ['delete', `/quiz/admin/${ids[`${SAT}-morning`]}`],
    ] as const)
      expect((await request(svc.callback)[method](path).set('Authorization', r.auth).send({}).expect(403)).body).toMatchObject({ success: false });
  });

  it('lists quizzes newest first, by page, date range and edition', async () => {
    const url = (q: string) => request(svc.callback).get(`/quiz/admin/list?${q}`).set('Authorization', admin);
    const all = (await url(`from=${SAT}&to=${THU}&limit=2`).expect(200)).body.data;
    expect(all.pagination).toEqual({ page: 1, limit: 2, total: 7, totalPages: 4 });
    expect(all.quizzes.map((q: { quizDate: string }) => q.quizDate)).toEqual([THU, WED]);
    expect(all.quizzes[0]).toMatchObject({ origin: 'manual', workflowId: null, postId: `${THU}-morning` });
    const nights = (await url(`from=${SAT}&to=${THU}&edition=night`).expect(200)).body.data;
    expect(nights.quizzes.map((q: { quizDate: string }) => q.quizDate)).toEqual([`${WED}-night`, `${TUE}-night`]);
    await url(`from=${THU}&to=${SAT}`).expect(400);
    await url('edition=afternoon').expect(400);
  });

  it('deletes a quiz (404 when unknown); attempts made stay in their readers\' history', async () => {
    const date = addDays(THU, 14);
    const quizId = (await request(svc.callback).post('/quiz/admin/create').set('Authorization', admin).send({ date, edition: 'night', questions: manualQuestions() }).expect(201)).body.data.quizId;
    const r = await reader();
    await attempts().insertOne({ _id: `${r.id}|${quizId}` as never, userId: r.id, quizId, quizDate: `${date}-night`, date, edition: 'night', title: 'x', answers: CORRECT, correctAnswers: 10, totalQuestions: 10, minCorrectAnswers: 6, passed: true, streakRecovered: true, at: new Date() });
    const res = await request(svc.callback).delete(`/quiz/admin/${quizId}`).set('Authorization', admin).expect(200);
    expect(res.body).toEqual({ success: true, message: 'Quiz deleted', data: { id: quizId } });
    await get(`/quiz/${quizId}`, r.auth).expect(404);
    await request(svc.callback).delete(`/quiz/admin/${quizId}`).set('Authorization', admin).expect(404);
    expect((await get('/quiz/history', r.auth).expect(200)).body.data.attempts.map((a: { quizId: string }) => a.quizId)).toEqual([quizId]);
    // A new quiz for that date and edition can be made.
    await request(svc.callback).post('/quiz/admin/create').set('Authorization', admin).send({ date, edition: 'night', questions: manualQuestions() }).expect(201);
  });
});
