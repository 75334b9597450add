/** Reading history and streaks over HTTP (issue 12): recording readings, and a reader's streak. */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { hasEditions, previousEditionDay } from '../../models/quiz/calendar.rules';
import { addDays, localDate } from '../../models/shared/calendar.rules';
import { startAiService, type AiService } from '../helpers/ai';
import { tokenFor } from '../helpers/service';

let svc: AiService;
let sender: string;
const today = () => localDate(new Date(), 'America/Sao_Paulo');

const record = (body: unknown, token = sender) => request(svc.callback).post('/quiz/readings').set('Authorization', `Bearer ${token}`).send(body as object);
const streak = async (userId: string) => (await request(svc.callback).get('/quiz/streak').set('Authorization', `Bearer ${await tokenFor(userId)}`).expect(200)).body.data;

beforeAll(async () => {
  svc = await startAiService();
  sender = await tokenFor('newsletter-sender', ['quiz.readings']);
});
afterAll(() => svc?.close());

describe('POST /quiz/readings', () => {
  it('records a reading once: 201, then 200 with the first record', async () => {
    const userId = `reader-${randomUUID()}`;
    const date = previousEditionDay(today());
    const first = await record({ userId, date, edition: 'morning' }).expect(201);
    expect(first.body).toMatchObject({ success: true, message: 'reading recorded', data: { userId, date, edition: 'morning', source: 'read' } });
    const again = await record({ userId, date, edition: 'morning' }).expect(200);
    expect(again.body.data.at).toBe(first.body.data.at);
    expect(await svc.deps.mongo.conn.db!.collection('readings').countDocuments({ userId })).toBe(1);
  });

  it('refuses Sundays, future days, bad editions and a missing reader, recording nothing', async () => {
    const userId = `reader-${randomUUID()}`;
    let sunday = today();
    while (hasEditions(sunday)) sunday = addDays(sunday, -1);
    let future = addDays(today(), 1);
    if (!hasEditions(future)) future = addDays(future, 1);
    for (const body of [
      { userId, date: sunday, edition: 'morning' },
      { userId, date: future, edition: 'morning' },
      { userId, date: previousEditionDay(today()), edition: 'noon' },
      { date: previousEditionDay(today()), edition: 'night' },
    ]) {
      const res = await record(body).expect(400);
      expect(res.body).toMatchObject({ success: false, message: expect.any(String) });
    }
    expect(await svc.deps.mongo.conn.db!.collection('readings').countDocuments({ userId })).toBe(0);
  });

  it('needs the quiz.readings permission', async () => {
    const body = { userId: 'someone', date: previousEditionDay(today()), edition: 'night' };
    await request(svc.callback).post('/quiz/readings').send(body).expect(401);
    await record(body, await tokenFor('a-reader')).expect(403);
  });
});

describe('GET /quiz/streak', () => {
  it('counts the edition days read up to yesterday while today is unread, Sundays skipped', async () => {
    const userId = `reader-${randomUUID()}`;
    const days: string[] = [];
    for (let d = previousEditionDay(today()); days.length < 10; d = previousEditionDay(d)) days.push(d);
    for (const [i, date] of days.entries()) await record({ userId, date, edition: i % 2 ? 'night' : 'morning' }).expect(201);
    await record({ userId, date: days[0], edition: 'night' }).expect(201); // both editions of one day: still one day
    const s = await streak(userId);
    expect(s).toMatchObject({ current: 10, longest: 10, lastReadDate: days[0], today: today(), missedRecoverable: [] });
  });

  it('lists the missed days still recoverable with their quizzes, newest first', async () => {
    const s = await streak(`reader-${randomUUID()}`);
    const missed = [1, 2, 3].map((n) => addDays(today(), -n)).filter(hasEditions);
    expect(s).toMatchObject({ current: 0, longest: 0, lastReadDate: null });
    expect(s.missedRecoverable).toEqual(missed.map((date) => ({ date, quizDates: [date, `${date}-night`] })));
  });

  it("gathers a reader's days recorded before their day document existed, once, and reads the document from then on", async () => {
    const userId = `reader-${randomUUID()}`;
    const db = svc.deps.mongo.conn.db!;
    const days: string[] = [];
    for (let d = previousEditionDay(today()); days.length < 3; d = previousEditionDay(d)) days.push(d);
    // Readings stored by an earlier release: no day document.
    await db.collection('readings').insertMany(days.map((date) => ({ _id: `${userId}|${date}|morning`, userId, date, edition: 'morning', source: 'read', at: new Date() })) as never[]);
    expect(await streak(userId)).toMatchObject({ current: 3, longest: 3, lastReadDate: days[0] });
    expect(await db.collection('read_days').findOne({ _id: userId as never })).toMatchObject({ complete: true });
    // The document is what streaks read now: a reading slipped into the history behind the API's back is not seen…
    const older = previousEditionDay(days[2]!);
    await db.collection('readings').insertOne({ _id: `${userId}|${older}|night`, userId, date: older, edition: 'night', source: 'read', at: new Date() } as never);
    expect(await streak(userId)).toMatchObject({ current: 3 });
    // …one recorded through it is.
    await record({ userId, date: older, edition: 'night' }).expect(200);
    expect(await streak(userId)).toMatchObject({ current: 4, longest: 4 });
  });

  it('a day whose mark was lost after its reading was stored is marked by the retry (200)', async () => {
    const userId = `reader-${randomUUID()}`;
    const date = previousEditionDay(today());
    await record({ userId, date, edition: 'morning' }).expect(201);
    expect(await streak(userId)).toMatchObject({ current: 1 });
    // As if the mark had failed after the insert: the document without the day.
    await svc.deps.mongo.conn.db!.collection('read_days').updateOne({ _id: userId as never }, { $set: { months: {} } });
    expect(await streak(userId)).toMatchObject({ current: 0, lastReadDate: null });
    await record({ userId, date, edition: 'morning' }).expect(200);
    expect(await streak(userId)).toMatchObject({ current: 1, lastReadDate: date });
  });

  it('needs a bearer token', async () => {
    const res = await request(svc.callback).get('/quiz/streak').expect(401);
    expect(res.body).toMatchObject({ success: false, message: expect.any(String) });
  });
});
