/**
 * The AI administrators' usage report (GET /ai/admin/usage, issue 38 item 5) on the real stack:
 * per user and model, the numbers of the usage recorded (by the repository, as every run records
 * it, and by a real agent run through the OpenAI double), the largest first, a page at a time, one
 * user or every user, within a period; 403 without ai.edit, 401 without a token, 400 for a bad
 * query; read by an index. The same through the staff console (/api/staff/ai/admin/usage): an AI
 * editor reads it, a member without ai.edit gets 403.
 *
 * This file has a database of its own, so "every user" is exactly what it recorded, and a worker of
 * its own (its task-queue prefix, its database) for the agent run, which records its usage there.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { inviteMember } from '../../operations/staff/members';
import type { StaffRole } from '../../models/staff/staff.rules';
import { aiUser, post, startAiService, type AiService } from '../helpers/ai';
import { killGroup, startOwnWorker } from '../helpers/processes';
import { testConfig } from '../helpers/service';
import { Browser, startWebService, type WebService } from '../helpers/web';

jest.setTimeout(120_000);

const db = `aiusage_${randomUUID().slice(0, 8)}`;
const prefix = `aiusage-${randomUUID().slice(0, 6)}-`;
const config = testConfig({ MONGODB_DB: db, TASK_QUEUE_PREFIX: prefix });
let worker: ChildProcess | undefined;
let svc: AiService;
let web: WebService;
let editor: { id: string; auth: string };
let viewer: { id: string; auth: string };

const today = new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const at = (day: string) => new Date(`${day}T12:00:00Z`);

/** What this file records: [user, model, day, prompt, completion]. */
const RECORDS: [string, string, string, number, number][] = [
  ['usr_em_ana', 'gpt-4o', today, 1_000, 500],
  ['usr_em_ana', 'gpt-4o', daysAgo(1), 2_000, 700],
  ['usr_em_ana', 'gpt-4o-mini', daysAgo(2), 300, 100],
  ['usr_em_bruno', 'gpt-4o-mini', daysAgo(3), 4_000, 1_000],
  ['usr_em_bruno', 'gpt-4o-mini', today, 10, 5],
  ['usr_em_carla', 'gpt-3.5-turbo', daysAgo(5), 50, 50],
  // Outside the default 30 days.
  ['usr_em_ana', 'gpt-4o', daysAgo(40), 99_000, 1_000],
];

beforeAll(async () => {
  svc = await startAiService(config);
  web = await startWebService({ MONGODB_DB: db });
  editor = await aiUser(['ai.view', 'ai.edit']);
  viewer = await aiUser(['ai.view']);
  for (const [i, [userId, model, day, prompt, completion]] of RECORDS.entries()) {
    await svc.deps.ai.usage.record(`aiusage-${i}`, { userId, model, usage: { promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion }, at: at(day) });
  }
});
afterAll(async () => {
  killGroup(worker);
  await svc?.deps.mongo.conn.dropDatabase().catch(() => undefined);
  await Promise.all([svc?.close(), web?.close()]);
});

const get = (query: string, auth = editor.auth) => request(svc.callback).get(`/ai/admin/usage${query}`).set('Authorization', auth);

const row = (userId: string, model: string, requests: number, promptTokens: number, completionTokens: number) => ({
  userId,
  model,
  requests,
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
});

describe('GET /ai/admin/usage', () => {
  it("sums the last 30 days per user and model, the largest first, with the period's totals", async () => {
    const res = await get('').expect(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        from: daysAgo(29),
        to: today,
        user: null,
        rows: [
          row('usr_em_bruno', 'gpt-4o-mini', 2, 4_010, 1_005),
          row('usr_em_ana', 'gpt-4o', 2, 3_000, 1_200),
          row('usr_em_ana', 'gpt-4o-mini', 1, 300, 100),
          row('usr_em_carla', 'gpt-3.5-turbo', 1, 50, 50),
        ],
        totals: { requests: 6, promptTokens: 7_360, completionTokens: 2_355, totalTokens: 9_715 },
        pagination: { page: 1, limit: 20, total: 4, totalPages: 1 },
      },
    });
  });

  it('pages through the rows without overlap, and keeps the totals of the whole period', async () => {
    const first = (await get('?limit=3').expect(200)).body.data;
    const second = (await get('?limit=3&page=2').expect(200)).body.data;
    expect(first.rows.map((r: { userId: string; model: string }) => `${r.userId}/${r.model}`)).toEqual(['usr_em_bruno/gpt-4o-mini', 'usr_em_ana/gpt-4o', 'usr_em_ana/gpt-4o-mini']);
    expect(second.rows.map((r: { userId: string; model: string }) => `${r.userId}/${r.model}`)).toEqual(['usr_em_carla/gpt-3.5-turbo']);
    expect(first.pagination).toEqual({ page: 1, limit: 3, total: 4, totalPages: 2 });
    expect(second.pagination).toEqual({ page: 2, limit: 3, total: 4, totalPages: 2 });
    expect(second.totals).toEqual(first.totals);
    const beyond = (await get('?limit=3&page=3').expect(200)).body.data;
    expect(beyond.rows).toEqual([]);
  });

  it('reads one user, and a period of its own (the older record counted once inside it)', async () => {
    const ana = (await get(`?user=usr_em_ana&from=${daysAgo(45)}&to=${today}`).expect(200)).body.data;
    expect(ana).toMatchObject({ from: daysAgo(45), to: today, user: 'usr_em_ana' });
    expect(ana.rows).toEqual([row('usr_em_ana', 'gpt-4o', 3, 102_000, 2_200), row('usr_em_ana', 'gpt-4o-mini', 1, 300, 100)]);
    expect(ana.totals).toEqual({ requests: 4, promptTokens: 102_300, completionTokens: 2_300, totalTokens: 104_600 });
    const yesterday = (await get(`?from=${daysAgo(1)}&to=${daysAgo(1)}`).expect(200)).body.data;
    expect(yesterday.rows).toEqual([row('usr_em_ana', 'gpt-4o', 1, 2_000, 700)]);
    const nobody = (await get('?user=usr_em_nobody').expect(200)).body.data;
    expect(nobody).toMatchObject({ rows: [], totals: { requests: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 }, pagination: { total: 0, totalPages: 0 } });
  });

  it("counts a real agent run as it recorded it (the run's own usage, its model)", async () => {
    worker ??= await startOwnWorker(prefix, config, { MONGODB_DB: db });
    const runner = await aiUser(['ai.view']);
    const run = await post(svc, '/ai/agent/tech-support', runner.auth, { prompt: 'Como envio o X-API-Key?' }).expect(200);
    const usage = run.body.data.usage as { promptTokens: number; completionTokens: number; totalTokens: number };
    expect(usage.totalTokens).toBeGreaterThan(0);
    const mine = (await get(`?user=${runner.id}`).expect(200)).body.data;
    expect(mine.rows).toEqual([{ userId: runner.id, model: config.ai.models.mini, requests: 1, ...usage }]);
  });

  it('is 403 without ai.edit and 401 without a token', async () => {
    const refused = await get('', viewer.auth).expect(403);
    expect(refused.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
    await request(svc.callback).get('/ai/admin/usage').expect(401);
  });

  it('refuses a bad query (400) in the AI envelope', async () => {
    for (const q of [
      '?from=2026-02-30',
      '?from=2026-11-10&to=2026-11-01',
      `?from=2020-01-01&to=${today}`,
      '?limit=0',
      '?limit=101',
      '?page=0',
      '?page=10001',
      '?page=1.5',
      '?limit=',
      `?user=${'x'.repeat(201)}`,
      '?user=%20%20',
    ]) {
      const res = await get(q);
      expect({ q, status: res.status, code: res.body.code, success: res.body.success }).toEqual({ q, status: 400, code: 'VALIDATION_FAILED', success: false });
      expect(typeof res.body.error).toBe('string');
    }
  });

  it('is read by an index that starts with the day (every user) or the user (one user)', async () => {
    const indexes = await svc.deps.mongo.conn.db!.collection('ai_usage').indexes();
    const keys = indexes.map((i) => Object.keys(i.key).join(','));
    expect(keys).toEqual(expect.arrayContaining(['day,userId,model', 'userId,day']));
  });
});

describe('through the staff console', () => {
  async function staff(roles: StaffRole[]): Promise<Browser> {
    const email = `${roles.join('-').replace(/\./g, '')}-${randomUUID().slice(0, 8)}@example.com`;
    await inviteMember({ ...web.deps, mailer: undefined }, { actor: 'cli', email, roles });
    const browser = new Browser(web);
    await browser.signIn(email);
    return browser;
  }

  it('answers an AI editor with the same numbers, in the dashboard envelope', async () => {
    const browser = await staff(['ai.edit']);
    const res = await browser.get('/api/staff/ai/admin/usage?limit=2').expect(200);
    expect(res.body.data.rows).toEqual([row('usr_em_bruno', 'gpt-4o-mini', 2, 4_010, 1_005), row('usr_em_ana', 'gpt-4o', 2, 3_000, 1_200)]);
    expect(res.body.data.pagination).toEqual({ page: 1, limit: 2, total: expect.any(Number), totalPages: expect.any(Number) });
  });

  it('is 403 for a member without ai.edit', async () => {
    const browser = await staff(['quiz.admin', 'platform.ops']);
    const res = await browser.get('/api/staff/ai/admin/usage').expect(403);
    expect(res.body).toMatchObject({ success: false, statusCode: 403, code: 'FORBIDDEN' });
  });
});
