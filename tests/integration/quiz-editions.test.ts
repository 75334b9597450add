/** Newsletter editions: the admin endpoint and the CLI (issue 12). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { startAiService, type AiService } from '../helpers/ai';
import { runTs } from '../helpers/processes';
import { tokenFor } from '../helpers/service';

let svc: AiService;
let admin: string;
// Dates far from the seed's (the last 14 days), unique to this file. 2031-03-03 is a Monday.
const MON = '2031-03-03';
const SUN = '2031-03-02';
const TEXT = 'Bom dia! Nesta edição: o Copom manteve a Selic, a Petrobras anunciou dividendos extraordinários e a Vale voltou a exportar pelo porto de Tubarão. '.repeat(3);

const put = (date: string, edition: string, body: unknown, token = admin) =>
  request(svc.callback).put(`/quiz/admin/editions/${date}/${edition}`).set('Authorization', `Bearer ${token}`).send(body as object);

beforeAll(async () => {
  svc = await startAiService();
  admin = await tokenFor('quiz-admin', ['quiz.admin']);
});
afterAll(() => svc?.close());

describe('PUT /quiz/admin/editions/{date}/{edition}', () => {
  it('creates an edition (201), replaces it (200), and reads it back', async () => {
    const created = await put(MON, 'morning', { title: 'Manhã de segunda', text: TEXT, publishedAt: '2031-03-03T09:00:00-03:00' }).expect(201);
    expect(created.body).toMatchObject({ success: true, message: 'edition created', data: { id: `${MON}-morning`, date: MON, edition: 'morning', title: 'Manhã de segunda', publishedAt: '2031-03-03T12:00:00.000Z' } });
    const replaced = await put(MON, 'morning', { title: 'Manhã de segunda (corrigida)', text: TEXT }).expect(200);
    expect(replaced.body).toMatchObject({ message: 'edition replaced', data: { id: `${MON}-morning`, title: 'Manhã de segunda (corrigida)' } });
    const read = await request(svc.callback).get(`/quiz/admin/editions/${MON}/morning`).set('Authorization', `Bearer ${admin}`).expect(200);
    expect(read.body.data).toMatchObject({ title: 'Manhã de segunda (corrigida)', text: TEXT.trim() });
  });

  it('refuses Sundays, impossible dates, unknown editions and a text too short to make a quiz from, storing nothing', async () => {
    const cases: [string, string, unknown, RegExp][] = [
      [SUN, 'morning', { title: 'Domingo', text: TEXT }, /Sundays/],
      ['2031-02-30', 'night', { title: 'x', text: TEXT }, /calendar date/],
      [MON, 'afternoon', { title: 'x', text: TEXT }, /edition/],
      [MON, 'night', { title: 'Curta', text: 'Pouco texto.' }, /200 characters/],
      [MON, 'night', { title: 'x', text: TEXT, extra: true }, /extra/],
      [MON, 'night', { title: ` ${'*'.repeat(300)}`, text: TEXT }, /title/], // 301 characters: over the documented maximum, spaces count
    ];
    for (const [date, edition, body, message] of cases) {
      const res = await put(date, edition, body).expect(400);
      expect(res.body).toMatchObject({ success: false, message: expect.stringMatching(message) });
    }
    await request(svc.callback).get(`/quiz/admin/editions/${MON}/night`).set('Authorization', `Bearer ${admin}`).expect(404);
  });

  it('needs a bearer token with quiz.admin', async () => {
    await request(svc.callback).put(`/quiz/admin/editions/${MON}/night`).send({ title: 'x', text: TEXT }).expect(401);
    const reader = await tokenFor('reader', ['ai.view']);
    const res = await put(MON, 'night', { title: 'x', text: TEXT }, reader).expect(403);
    expect(res.body).toMatchObject({ success: false, message: expect.any(String) });
  });
});

describe('GET /quiz/admin/editions', () => {
  it('lists a date range newest first, night after morning of the same day first', async () => {
    await put('2031-03-04', 'night', { title: 'Noite de terça', text: TEXT }).expect(201);
    await put('2031-03-04', 'morning', { title: 'Manhã de terça', text: TEXT }).expect(201);
    const res = await request(svc.callback).get('/quiz/admin/editions?from=2031-03-03&to=2031-03-04').set('Authorization', `Bearer ${admin}`).expect(200);
    expect(res.body.data.map((e: { id: string }) => e.id)).toEqual(['2031-03-04-night', '2031-03-04-morning', '2031-03-03-morning']);
  });

  it('answers any valid date range, however far (fuzzing found a 500 for to=0020-02-29)', async () => {
    const res = await request(svc.callback).get('/quiz/admin/editions?to=0020-02-29').set('Authorization', `Bearer ${admin}`).expect(200);
    expect(res.body.data).toEqual([]);
    await request(svc.callback).get('/quiz/admin/editions?to=2031-02-30').set('Authorization', `Bearer ${admin}`).expect(400);
  });
});

describe('npm run cli -- edition', () => {
  it('creates an edition from a file, titled by its first line; bad input exits 64 and stores nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'edition-'));
    const file = path.join(dir, 'noite.md');
    writeFileSync(file, `# Noite de quarta\n\n${TEXT}`);
    const r = await runTs('ops/cli.ts', ['edition', '--date', '2031-03-05', '--edition', 'night', '--file', file]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.lastLine)).toMatchObject({ id: '2031-03-05-night', created: true, title: 'Noite de quarta' });
    expect((await svc.deps.quiz.editions.get('2031-03-05', 'night'))?.title).toBe('Noite de quarta');
    for (const args of [
      ['--date', SUN, '--edition', 'night', '--file', file],
      ['--date', '2031-03-06', '--edition', 'noon', '--file', file],
      ['--date', '2031-03-06', '--edition', 'night'],
    ]) {
      const bad = await runTs('ops/cli.ts', ['edition', ...args]);
      expect(bad.code).toBe(64);
    }
    expect(await svc.deps.quiz.editions.get('2031-03-06', 'night')).toBeNull();
  });
});
