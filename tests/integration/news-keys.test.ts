/** API keys of the News API: the dashboard endpoints, key states, per-account limits, quotas and the sandbox. */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { apiKeyModel } from '../../models/news/api-key.model';
import { hashApiKey } from '../../models/news/api-key.rules';
import { monthOf } from '../../models/news/usage.repo';
import { accountWithKey, startNewsService, withKey, type NewsService } from '../helpers/news';
import { eventually, tokenFor } from '../helpers/service';
import { createApiKeyRepo } from '../../models/news/api-key.repo';

let svc: NewsService;
beforeAll(async () => {
  svc = await startNewsService();
});
afterAll(() => svc?.close());

const dashboard = (jwt: string) => ({
  post: (body: object) => request(svc.callback).post('/api/keys').set('Authorization', `Bearer ${jwt}`).send(body),
  list: () => request(svc.callback).get('/api/keys').set('Authorization', `Bearer ${jwt}`),
  revoke: (id: string) => request(svc.callback).delete(`/api/keys/${id}`).set('Authorization', `Bearer ${jwt}`),
});

describe('dashboard key endpoints', () => {
  it('creates a key shown once, lists it without the key, stores only its hash', async () => {
    const jwt = await tokenFor(`dash-${Date.now()}`, [], 'dash@example.com');
    const created = await dashboard(jwt).post({ name: 'Produção', expiry: '90d', scopes: ['read:articles'] }).expect(201);
    const key = created.body.data.key as string;
    expect(key).toMatch(/^nws_live_[A-Za-z0-9_-]{32}$/);
    expect(created.body).toMatchObject({ success: true, data: { name: 'Produção', mode: 'live', scopes: ['read:articles'], status: 'active', lastUsedAt: null } });
    const days = (Date.parse(created.body.data.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThan(90.1);

    const listed = await dashboard(jwt).list().expect(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: created.body.data.id, prefix: key.slice(0, 15), status: 'active' })]);
    expect(JSON.stringify(listed.body)).not.toContain(key);
    const stored = await apiKeyModel(svc.deps.mongo.conn).findOne({ keyId: created.body.data.id }).lean();
    expect(stored?._id).toBe(hashApiKey(key));
    expect(JSON.stringify(stored)).not.toContain(key);

    // The new account is on Starter until billing says otherwise.
    const usage = await withKey(svc, key, '/api/usage').expect(200);
    expect(usage.body.data.plan).toBe('Starter');
  });

  it('creates test keys, and keys with all scopes when none are given', async () => {
    const jwt = await tokenFor(`dash-test-${Date.now()}`);
    const res = await dashboard(jwt).post({ name: 'sandbox', mode: 'test' }).expect(201);
    expect(res.body.data).toMatchObject({ mode: 'test', scopes: ['*'], expiresAt: null });
    expect(res.body.data.key).toMatch(/^nws_test_/);
  });

  it.each([
    ['an unknown expiry', { name: 'x', expiry: '2w' }, 'body.expiry'],
    ['a past date', { name: 'x', expiry: '2020-01-01' }, 'body.expiry'],
    ['an impossible date', { name: 'x', expiry: '2027-02-30' }, 'body.expiry'],
    ['an unknown scope', { name: 'x', scopes: ['write:articles'] }, 'body.scopes.0'],
    ['no name', { expiry: 'none' }, 'body.name'],
    ['an unknown field', { name: 'x', plan: 'business' }, ''],
  ])('rejects %s with 400 and creates nothing', async (_label, body, path) => {
    const jwt = await tokenFor(`dash-bad-${Date.now()}-${Math.random()}`);
    const res = await dashboard(jwt).post(body).expect(400);
    expect(res.body).toMatchObject({ success: false, statusCode: 400, code: 'VALIDATION_FAILED' });
    if (path) expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect((await dashboard(jwt).list().expect(200)).body.data).toEqual([]);
  });

  it('needs the account token, not an API key', async () => {
    const { key } = await accountWithKey(svc, 'pro');
    const res = await request(svc.callback).get('/api/keys').set('X-API-Key', key).expect(401);
    expect(res.body).toMatchObject({ success: false, statusCode: 401 });
  });

  it('revokes a key: 401 from then on; another account cannot revoke it', async () => {
    const owner = await accountWithKey(svc, 'pro');
    const other = await accountWithKey(svc, 'pro');
    await withKey(svc, owner.key, '/api/usage').expect(200);
    await dashboard(other.jwt).revoke(owner.keyId).expect(404);
    await withKey(svc, owner.key, '/api/usage').expect(200);
    const res = await dashboard(owner.jwt).revoke(owner.keyId).expect(200);
    expect(res.body.data).toMatchObject({ id: owner.keyId, status: 'revoked' });
    const denied = await withKey(svc, owner.key, '/api/usage').expect(401);
    expect(denied.body.error).toMatch(/revoked.*POST \/api\/keys/);
    await dashboard(owner.jwt).revoke(owner.keyId).expect(200);
    await dashboard(owner.jwt).revoke('9b2f3c1e-0000-4000-8000-000000000000').expect(404);
  });

  it('the key cache: a key read once is reused for its time; revoking through the repo forgets it at once', async () => {
    const owner = await accountWithKey(svc, 'pro');
    const hash = hashApiKey(owner.key);
    const repo = createApiKeyRepo(svc.deps.mongo.conn, { cacheMs: 60_000 });
    expect((await repo.findByHashWithPlan(hash))?.key.revokedAt).toBeFalsy();
    // Revoked behind this repo's back (another process): it still has the key as it read it.
    await apiKeyModel(svc.deps.mongo.conn).updateOne({ _id: hash }, { $set: { revokedAt: new Date() } });
    expect((await repo.findByHashWithPlan(hash))?.key.revokedAt).toBeFalsy();
    expect((await createApiKeyRepo(svc.deps.mongo.conn).findByHashWithPlan(hash))?.key.revokedAt).toBeInstanceOf(Date);
    await apiKeyModel(svc.deps.mongo.conn).updateOne({ _id: hash }, { $set: { revokedAt: null } });
    await repo.revoke(hash);
    expect((await repo.findByHashWithPlan(hash))?.key.revokedAt).toBeInstanceOf(Date);
    expect(await repo.findByHashWithPlan(hashApiKey(owner.key.slice(0, -1) + (owner.key.endsWith('a') ? 'b' : 'a')))).toBeNull();
  });

  it('an unknown key costs one lookup, not one a request', async () => {
    const repo = createApiKeyRepo(svc.deps.mongo.conn, { cacheMs: 5_000 });
    const hash = hashApiKey(`nws_live_${'Z'.repeat(32)}`);
    await apiKeyModel(svc.deps.mongo.conn).deleteOne({ _id: hash });
    expect(await repo.findByHashWithPlan(hash)).toBeNull();
    // Were it looked up again, this row would be found: the repo answers from what it learned.
    await apiKeyModel(svc.deps.mongo.conn).create({ _id: hash, keyId: randomUUID(), userId: 'nobody', name: 'planted', displayPrefix: 'nws_live_ZZZZZZ', mode: 'live', scopes: ['*'], expiresAt: null });
    try {
      expect(await repo.findByHashWithPlan(hash)).toBeNull();
      expect(await createApiKeyRepo(svc.deps.mongo.conn).findByHashWithPlan(hash)).not.toBeNull();
    } finally {
      await apiKeyModel(svc.deps.mongo.conn).deleteOne({ _id: hash });
    }
  });

  it("holds an account to its plan's number of active keys, live and test together", async () => {
    const jwt = await tokenFor(`dash-cap-${randomUUID()}`);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await dashboard(jwt).post({ name: `k${i}`, mode: i % 2 ? 'test' : 'live' }).expect(201)).body.data.id);
    const refused = await dashboard(jwt).post({ name: 'one more', mode: 'test' }).expect(403);
    expect(refused.body).toMatchObject({ success: false, statusCode: 403, error: expect.stringMatching(/^The Starter plan allows 5 active API keys \(live and test together\)/) });
    expect((await dashboard(jwt).list().expect(200)).body.data).toHaveLength(5);
    // A revoked key frees its place.
    await dashboard(jwt).revoke(made[0]!).expect(200);
    await dashboard(jwt).post({ name: 'replacement' }).expect(201);
    await dashboard(jwt).post({ name: 'still too many' }).expect(403);
  });

  it('keys created at once for the last place: the account never keeps more than its plan allows', async () => {
    const userId = `dash-race-${randomUUID()}`;
    const jwt = await tokenFor(userId);
    for (let i = 0; i < 3; i++) await dashboard(jwt).post({ name: `k${i}` }).expect(201);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => dashboard(jwt).post({ name: `racer${i}` })));
    const created = answers.filter((r) => r.status === 201).length;
    expect(answers.every((r) => r.status === 201 || r.status === 403)).toBe(true);
    expect(created).toBeLessThanOrEqual(2);
    expect(await svc.deps.apiKeys.countActive(userId, new Date())).toBe(3 + created);
  });

  it('a key revoked on one API process stops working on another within API_KEY_CACHE_SECONDS', async () => {
    const other = await startNewsService({ API_KEY_CACHE_SECONDS: '1' });
    try {
      const owner = await accountWithKey(svc, 'pro');
      await withKey(other, owner.key, '/api/usage').expect(200); // cached there now
      await dashboard(owner.jwt).revoke(owner.keyId).expect(200);
      await withKey(svc, owner.key, '/api/usage').expect(401); // at once where it was revoked
      const status = () => withKey(other, owner.key, '/api/usage').then((r) => r.status);
      expect(await eventually(status, 401, 5_000)).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe('X-API-Key', () => {
  it.each([
    ['missing', undefined, /^Missing API key.*POST \/api\/keys/],
    ['malformed', 'not-a-key', /^Invalid API key.*POST \/api\/keys/],
    ['unknown', 'nws_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', /^Invalid API key/],
  ])('answers 401 for a %s key, saying where keys come from', async (_label, key, message) => {
    const req = request(svc.callback).get('/api/usage');
    const res = await (key ? req.set('X-API-Key', key) : req).expect(401);
    expect(res.body).toMatchObject({ success: false, statusCode: 401, error: expect.stringMatching(message) });
  });

  it('answers 401 for an expired key', async () => {
    const { key } = await accountWithKey(svc, 'business', { expiresAt: new Date(Date.now() - 1000) });
    const res = await withKey(svc, key, '/api/usage').expect(401);
    expect(res.body.error).toMatch(/^This API key has expired/);
  });

  it("holds the plan's minute limit per account: more keys are not more requests", async () => {
    const { userId, key } = await accountWithKey(svc, 'starter');
    const more = [
      (await svc.deps.apiKeys.create({ userId, name: 'second', mode: 'live', scopes: ['*'], expiresAt: null })).key,
      (await svc.deps.apiKeys.create({ userId, name: 'sandbox', mode: 'test', scopes: ['*'], expiresAt: null })).key,
    ];
    const keys = [key, ...more];
    for (let i = 0; i < 100; i++) expect((await withKey(svc, keys[i % 3]!, '/api/usage')).status).toBe(200);
    for (const k of keys) {
      const limited = await withKey(svc, k, '/api/usage').expect(429);
      expect(limited.body.error).toBe('Rate limit exceeded: 100 requests per minute per account on this plan, all its keys together');
    }
    // Another account is not affected.
    await withKey(svc, (await accountWithKey(svc, 'starter')).key, '/api/usage').expect(200);
  });

  it('counts down the per-account minute limit of the plan to 429 with Retry-After', async () => {
    const { key } = await accountWithKey(svc, 'starter', { mode: 'test' });
    let last = await withKey(svc, key, '/api/usage').expect(200);
    expect(last.headers['x-ratelimit-limit']).toBe('100');
    expect(last.headers['x-ratelimit-remaining']).toBe('99');
    const reset = Number(last.headers['x-ratelimit-reset']);
    expect(reset * 1000).toBeGreaterThan(Date.now());
    expect(reset * 1000).toBeLessThanOrEqual(Date.now() + 61_000);
    for (let i = 2; i <= 100; i += 1) last = await withKey(svc, key, '/api/usage').expect(200);
    expect(last.headers['x-ratelimit-remaining']).toBe('0');
    const limited = await withKey(svc, key, '/api/usage').expect(429);
    expect(limited.body).toMatchObject({ success: false, statusCode: 429 });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('gives each plan its own minute limit', async () => {
    for (const [plan, limit] of [['pro', '500'], ['business', '2000']] as const) {
      const { key } = await accountWithKey(svc, plan);
      expect((await withKey(svc, key, '/api/usage').expect(200)).headers['x-ratelimit-limit']).toBe(limit);
    }
  });

  it('counts live keys against the monthly quota and test keys not at all', async () => {
    const live = await accountWithKey(svc, 'starter');
    const first = await withKey(svc, live.key, '/api/usage').expect(200);
    expect(first.headers['x-quota-limit']).toBe('500000');
    expect(first.body.data.month).toMatchObject({ limit: 500_000, used: 1, remaining: 499_999 });
    const second = await withKey(svc, live.key, '/api/usage').expect(200);
    expect(second.body.data.month.used).toBe(2);
    expect(second.body.data.minute).toMatchObject({ limit: 100, used: 2, remaining: 98 });

    const sandbox = await accountWithKey(svc, 'starter', { mode: 'test' });
    const t = await withKey(svc, sandbox.key, '/api/usage').expect(200);
    // A test key's quota is the sandbox's day.
    expect(t.headers['x-quota-limit']).toBe('1000');
    expect(t.headers['x-quota-remaining']).toBe('999');
    expect(t.body.data).toMatchObject({ key: { mode: 'test', countedMonthly: false }, month: { used: 0 }, sandbox: { limit: 1000, used: 1, remaining: 999 } });

    const unlimited = await accountWithKey(svc, 'business');
    const b = await withKey(svc, unlimited.key, '/api/usage').expect(200);
    expect(b.headers['x-quota-limit']).toBeUndefined();
    expect(b.body.data.month).toMatchObject({ limit: null, remaining: null });
  });

  it("caps the sandbox per account and day: test keys are not a free production", async () => {
    const { userId, key } = await accountWithKey(svc, 'business', { mode: 'test' });
    const other = (await svc.deps.apiKeys.create({ userId, name: 'another sandbox', mode: 'test', scopes: ['*'], expiresAt: null })).key;
    const live = (await svc.deps.apiKeys.create({ userId, name: 'production', mode: 'live', scopes: ['*'], expiresAt: null })).key;
    const now = new Date();
    await svc.deps.mongo.conn.db!.collection('news_usage').insertOne({ _id: `${userId}:${monthOf(now)}` as never, userId, month: monthOf(now), count: 0, sandbox: { [now.toISOString().slice(8, 10)]: 999 } });
    const lastOne = await withKey(svc, key, '/api/articles?limit=1').expect(200);
    expect(lastOne.headers['x-quota-remaining']).toBe('0');
    for (const k of [key, other]) {
      const refused = await withKey(svc, k, '/api/articles?limit=1').expect(429);
      expect(refused.body.error).toMatch(/^The sandbox's 1,000 requests a day \(all test keys of the account together\) are used up; they reset on \d{4}-\d{2}-\d{2} at 00:00 UTC/);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(86_400);
    }
    // The account's live key is not the sandbox.
    await withKey(svc, live, '/api/articles?limit=1').expect(200);
  });

  it('answers 429 once the monthly quota is used up, until the month ends', async () => {
    const { key, userId } = await accountWithKey(svc, 'pro');
    await svc.deps.mongo.conn.db!.collection('news_usage').insertOne({ _id: `${userId}:${monthOf(new Date())}` as never, userId, month: monthOf(new Date()), count: 3_000_000 });
    const res = await withKey(svc, key, '/api/usage').expect(429);
    expect(res.body.error).toMatch(/^Monthly quota of 3,000,000 requests of the Pro plan is used up; it resets on \d{4}-\d{2}-01$/);
    expect(res.headers['x-quota-remaining']).toBe('0');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});
