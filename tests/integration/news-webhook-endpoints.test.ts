/**
 * Webhook endpoints managed by the news API (issue 40, part 5): CRUD under an API key of the
 * account, the signing secret shown in the creation's and the rotation's answers only and stored
 * sealed, rotation's 24-hour overlap, URLs the sender would refuse refused at registration with
 * nothing stored, another account's endpoint not found, and the plan's cap under racing creations.
 * Host names resolve through a fake resolver (the sandbox has no DNS to trust); addresses given
 * literally, and the fetcher's allow-listed loopback ports, are checked as they are.
 */
import type { LookupAddress } from 'node:dns';
import request from 'supertest';
import { WEBHOOK_ENDPOINT_COUNTS, WEBHOOK_ENDPOINTS, type WebhookEndpointDoc } from '../../models/events/webhook-endpoint.repo';
import { collectionOf } from '../../models/infra/mongo';
import { PLAN_LIMITS } from '../../models/shared/plan.rules';
import { accountWithKey, startNewsService, type NewsService } from '../helpers/news';

const HOUR = 3_600_000;
const BASE = '/api/webhooks/endpoints';

let svc: NewsService;
/** An allow-listed development address (the fetcher's list, NEWS_FETCH_ALLOW_HOSTS). */
let devUrl: string;

const FAKE_DNS: Record<string, string[]> = {
  'hooks.customer.example': ['93.184.216.34'],
  'other.customer.example': ['93.184.216.35', '2606:2800:220:1::1'],
  'internal.customer.example': ['93.184.216.36', '10.1.2.3'],
  'metadata.customer.example': ['169.254.169.254'],
  localhost: ['127.0.0.1', '::1'],
};
const fakeLookup = async (hostname: string): Promise<LookupAddress[]> => {
  const found = FAKE_DNS[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

beforeAll(async () => {
  svc = await startNewsService();
  svc.deps.webhookLookup = fakeLookup;
  const entry = svc.deps.config.news.fetch.allowHosts.map((h) => /^127\.0\.0\.1:(\d+)/.exec(h)).find(Boolean);
  if (!entry) throw new Error(`the tests need 127.0.0.1 with a port on NEWS_FETCH_ALLOW_HOSTS (have ${svc.deps.config.news.fetch.allowHosts.join(',')})`);
  devUrl = `http://127.0.0.1:${entry[1]}/hooks/dev`;
});
afterAll(() => svc?.close());

const api = (key: string) => ({
  list: () => request(svc.callback).get(BASE).set('X-API-Key', key),
  create: (body: object) => request(svc.callback).post(BASE).set('X-API-Key', key).send(body),
  get: (id: string) => request(svc.callback).get(`${BASE}/${id}`).set('X-API-Key', key),
  patch: (id: string, body: object) => request(svc.callback).patch(`${BASE}/${id}`).set('X-API-Key', key).send(body),
  remove: (id: string) => request(svc.callback).delete(`${BASE}/${id}`).set('X-API-Key', key),
  rotate: (id: string) => request(svc.callback).post(`${BASE}/${id}/secret/rotate`).set('X-API-Key', key),
});

const raw = (id: string) => collectionOf<WebhookEndpointDoc>(svc.deps.mongo.conn, WEBHOOK_ENDPOINTS).findOne({ _id: id });
const storedFor = (accountId: string) => collectionOf<WebhookEndpointDoc>(svc.deps.mongo.conn, WEBHOOK_ENDPOINTS).countDocuments({ accountId });
const slotsOf = async (accountId: string) => (await collectionOf<{ _id: string; n: number }>(svc.deps.mongo.conn, WEBHOOK_ENDPOINT_COUNTS).findOne({ _id: accountId }))?.n ?? 0;

describe('webhook endpoints', () => {
  it('registers, lists, reads, changes and removes an endpoint; the secret is in the creation answer only, stored sealed', async () => {
    const owner = await accountWithKey(svc, 'pro');
    const created = await api(owner.key)
      .create({ url: 'https://hooks.customer.example/news?token=abc', eventTypes: ['article.breaking', 'article.published'], filters: { sectors: ['ENE'], tickers: ['PETR4'] }, description: 'Mesa' })
      .expect(201);
    const endpoint = created.body.data;
    const secret = endpoint.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.headers.location).toBe(`${BASE}/${endpoint.id}`);
    expect(created.body.message).toMatch(/will not be shown again/);
    expect(endpoint).toMatchObject({
      id: expect.stringMatching(/^we_[A-Za-z0-9_-]{22}$/),
      url: 'https://hooks.customer.example/news?token=abc',
      description: 'Mesa',
      eventTypes: ['article.breaking', 'article.published'],
      filters: { sectors: ['ENE'], tickers: ['PETR4'] },
      state: 'enabled',
      disabledReason: null,
      failingSince: null,
      previousSecretExpiresAt: null,
    });

    const listed = await api(owner.key).list().expect(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: endpoint.id, url: endpoint.url })]);
    const one = await api(owner.key).get(endpoint.id).expect(200);
    for (const answer of [listed.body, one.body]) {
      expect(JSON.stringify(answer)).not.toContain('whsec_');
      expect(JSON.stringify(answer)).not.toContain('"secret"');
    }
    const { secret: _shown, ...view } = endpoint;
    expect(one.body.data).toEqual(view);

    // Stored sealed: no whsec_ anywhere in the document, and the sender's read opens it.
    const doc = await raw(endpoint.id);
    expect(doc?.accountId).toBe(owner.userId);
    expect(JSON.stringify(doc)).not.toContain('whsec_');
    expect(JSON.stringify(doc)).not.toContain(secret.slice(6, 30));
    expect(doc?.secrets).toEqual([{ ciphertext: expect.stringMatching(/^v1\./), createdAt: expect.any(Date), expiresAt: null }]);
    expect(await svc.deps.webhookEndpoints.signingSecrets(endpoint.id, new Date())).toEqual([secret]);

    // Changes: only the fields sent; filters replaced whole; description cleared.
    const changed = await api(owner.key).patch(endpoint.id, { eventTypes: ['webhook.test'], filters: { topics: ['DIV'] }, description: null }).expect(200);
    expect(changed.body.data).toMatchObject({ url: endpoint.url, eventTypes: ['webhook.test'], filters: { topics: ['DIV'] }, description: null, state: 'enabled' });
    expect(JSON.stringify(changed.body)).not.toContain('whsec_');
    // Disabled by the owner, then enabled again (the failing streak the sender left is cleared).
    expect((await api(owner.key).patch(endpoint.id, { state: 'disabled' }).expect(200)).body.data).toMatchObject({ state: 'disabled', disabledReason: 'owner' });
    await collectionOf<WebhookEndpointDoc>(svc.deps.mongo.conn, WEBHOOK_ENDPOINTS).updateOne({ _id: endpoint.id }, { $set: { disabledReason: 'failing', failingSince: new Date(Date.now() - 120 * HOUR) } });
    expect((await api(owner.key).patch(endpoint.id, { state: 'enabled' }).expect(200)).body.data).toMatchObject({ state: 'enabled', disabledReason: null, failingSince: null });
    // An allow-listed development URL (plain http on loopback) is accepted.
    expect((await api(owner.key).patch(endpoint.id, { url: devUrl }).expect(200)).body.data.url).toBe(devUrl);

    const removed = await api(owner.key).remove(endpoint.id).expect(200);
    expect(removed.body.data).toEqual({ id: endpoint.id, deleted: true });
    await api(owner.key).get(endpoint.id).expect(404);
    await api(owner.key).remove(endpoint.id).expect(404);
    expect(await raw(endpoint.id)).toBeNull();
    expect(await slotsOf(owner.userId)).toBe(0);
  });

  it('rotates the secret: the new one is in the answer once, the old one signs 24 more hours, then is dropped', async () => {
    const owner = await accountWithKey(svc, 'starter');
    const first = (await api(owner.key).create({ url: 'https://other.customer.example/hooks', eventTypes: ['article.published'] }).expect(201)).body.data;
    const before = Date.now();
    const rotated = await api(owner.key).rotate(first.id).expect(200);
    const second = rotated.body.data.secret as string;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first.secret);
    expect(rotated.body.message).toMatch(/will not be shown again/);
    const overlapEnds = Date.parse(rotated.body.data.previousSecretExpiresAt);
    expect(overlapEnds).toBeGreaterThanOrEqual(before + 24 * HOUR);
    expect(overlapEnds).toBeLessThanOrEqual(Date.now() + 24 * HOUR);
    expect(Date.parse(rotated.body.data.secretCreatedAt)).toBeGreaterThanOrEqual(before);

    // Neither secret is readable afterwards, nor stored in clear.
    const read = await api(owner.key).get(first.id).expect(200);
    expect(JSON.stringify(read.body)).not.toContain('whsec_');
    expect(read.body.data.previousSecretExpiresAt).toBe(rotated.body.data.previousSecretExpiresAt);
    expect(JSON.stringify(await raw(first.id))).not.toContain('whsec_');

    // Both sign until the overlap ends, the new one first; then the new one alone.
    const repo = svc.deps.webhookEndpoints;
    expect(await repo.signingSecrets(first.id, new Date())).toEqual([second, first.secret]);
    expect(await repo.signingSecrets(first.id, new Date(overlapEnds - 1000))).toEqual([second, first.secret]);
    expect(await repo.signingSecrets(first.id, new Date(overlapEnds + 1))).toEqual([second]);
    // A delivery reads the endpoint and the same secrets at once; the stored (sealed) ones are not in it.
    const forDelivery = await repo.forDelivery(first.id, new Date(overlapEnds + 1));
    expect(forDelivery?.secrets).toEqual([second]);
    expect(forDelivery?.endpoint).toMatchObject({ _id: first.id, url: 'https://other.customer.example/hooks', state: 'enabled' });
    expect(forDelivery?.endpoint).not.toHaveProperty('secrets');
    expect((await repo.forDelivery(first.id, new Date()))?.secrets).toEqual([second, first.secret]);
    expect(await repo.forDelivery('we_AAAAAAAAAAAAAAAAAAAAAA', new Date())).toBeNull();

    // A rotation 25 hours later drops the secret whose overlap ended, and keeps the one it replaces.
    const later = new Date(Date.now() + 25 * HOUR);
    await repo.rotateSecret(owner.userId, first.id, 'whsec_dGhpcmQgc2VjcmV0IGZvciB0aGUgdGVzdCBvbmx5ISE=', later);
    const doc = await raw(first.id);
    expect(doc?.secrets).toHaveLength(2);
    expect(doc?.secrets[1]?.expiresAt?.getTime()).toBe(later.getTime() + 24 * HOUR);
    expect(await repo.signingSecrets(first.id, later)).toEqual(['whsec_dGhpcmQgc2VjcmV0IGZvciB0aGUgdGVzdCBvbmx5ISE=', second]);
  });

  it('rotations racing each other lose no secret: each answered secret still signs, the last one first', async () => {
    const owner = await accountWithKey(svc, 'pro');
    const made = (await api(owner.key).create({ url: 'https://hooks.customer.example/racing', eventTypes: ['article.published'] }).expect(201)).body.data;
    const answers = await Promise.all([1, 2, 3].map(() => api(owner.key).rotate(made.id)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    const signing = await svc.deps.webhookEndpoints.signingSecrets(made.id, new Date());
    expect(signing).toHaveLength(4);
    expect(new Set(signing).size).toBe(4);
    expect(signing).toEqual(expect.arrayContaining([made.secret, ...answers.map((r) => r.body.data.secret)]));
    expect(answers.map((r) => r.body.data.secret)).toContain(signing[0]);
    expect(signing[3]).toBe(made.secret);
  });

  it.each([
    ['a private address', 'http://10.0.0.1/hook'],
    ['a private address over https', 'https://10.0.0.1/hook'],
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['the metadata address over https', 'https://169.254.169.254/latest/meta-data/'],
    ['localhost', 'http://localhost/hook'],
    ['localhost over https (loopback)', 'https://localhost/hook'],
    ['IPv6 loopback', 'https://[::1]/hook'],
    ['a host with one private address', 'https://internal.customer.example/hook'],
    ['a host on the metadata address', 'https://metadata.customer.example/hook'],
    ['credentials', 'https://user:pw@hooks.customer.example/hook'],
    ['ftp', 'ftp://hooks.customer.example/hook'],
    ['a host that does not resolve', 'https://nowhere.customer.example/hook'],
    ['not a URL', 'hooks.customer.example/hook'],
  ])('refuses %s with 400 and stores nothing', async (_label, url) => {
    const owner = await accountWithKey(svc, 'starter');
    const res = await api(owner.key).create({ url, eventTypes: ['article.published'] }).expect(400);
    expect(res.body).toMatchObject({ success: false, statusCode: 400 });
    expect(JSON.stringify(res.body)).not.toContain('pw@');
    expect(await storedFor(owner.userId)).toBe(0);
    expect(await slotsOf(owner.userId)).toBe(0);
    expect((await api(owner.key).list().expect(200)).body.data).toEqual([]);
  });

  it('says why: a refused address, an unresolvable host', async () => {
    const owner = await accountWithKey(svc, 'starter');
    const metadata = await api(owner.key).create({ url: 'https://169.254.169.254/latest/meta-data/', eventTypes: ['article.published'] }).expect(400);
    expect(metadata.body.error).toMatch(/refused.*169\.254\.169\.254.*linkLocal.*public addresses only/);
    const dns = await api(owner.key).create({ url: 'https://nowhere.customer.example/hook', eventTypes: ['article.published'] }).expect(400);
    expect(dns.body.error).toMatch(/cannot resolve the host nowhere\.customer\.example/);
    const http = await api(owner.key).create({ url: 'http://hooks.customer.example/hook', eventTypes: ['article.published'] }).expect(400);
    expect(http.body.error).toMatch(/only https/);
  });

  it('refuses a change to a refused URL, or an invalid body, with 400 and changes nothing', async () => {
    const owner = await accountWithKey(svc, 'starter');
    const made = (await api(owner.key).create({ url: 'https://hooks.customer.example/a', eventTypes: ['article.published'] }).expect(201)).body.data;
    const before = await raw(made.id);
    await api(owner.key).patch(made.id, { url: 'https://10.0.0.1/a' }).expect(400);
    await api(owner.key).patch(made.id, { url: 'http://localhost/a', eventTypes: ['webhook.test'] }).expect(400);
    await api(owner.key).patch(made.id, {}).expect(400);
    await api(owner.key).patch(made.id, { state: 'gone' }).expect(400);
    await api(owner.key).patch(made.id, { eventTypes: [] }).expect(400);
    await api(owner.key).patch(made.id, { secret: 'whsec_mine' }).expect(400);
    expect(await raw(made.id)).toEqual(before);
    for (const body of [{ url: 'https://hooks.customer.example/b' }, { url: 'https://hooks.customer.example/b', eventTypes: [] }, { url: 'https://hooks.customer.example/b', eventTypes: ['article.updated'] }, { url: 'https://hooks.customer.example/b', eventTypes: ['webhook.test', 'webhook.test'] }, { url: 'https://hooks.customer.example/b', eventTypes: ['webhook.test'], filters: { sectors: ['XYZ'] } }, { url: 'https://hooks.customer.example/b', eventTypes: ['webhook.test'], state: 'enabled' }]) {
      await api(owner.key).create(body).expect(400);
    }
    expect(await storedFor(owner.userId)).toBe(1);
    await request(svc.callback).get(`${BASE}/not-an-id`).set('X-API-Key', owner.key).expect(400);
  });

  it("answers 404 for another account's endpoint, to read, change, remove or rotate it", async () => {
    const owner = await accountWithKey(svc, 'pro');
    const other = await accountWithKey(svc, 'business');
    const made = (await api(owner.key).create({ url: 'https://hooks.customer.example/mine', eventTypes: ['article.breaking'] }).expect(201)).body.data;
    const before = await raw(made.id);
    await api(other.key).get(made.id).expect(404);
    await api(other.key).patch(made.id, { state: 'disabled' }).expect(404);
    await api(other.key).patch(made.id, { url: 'https://hooks.customer.example/theirs' }).expect(404);
    await api(other.key).rotate(made.id).expect(404);
    await api(other.key).remove(made.id).expect(404);
    expect((await api(other.key).list().expect(200)).body.data).toEqual([]);
    expect(await raw(made.id)).toEqual(before);
    expect(await slotsOf(owner.userId)).toBe(1);
    expect(await slotsOf(other.userId)).toBe(0);
    // Unknown ids are 404 too.
    await api(owner.key).get('we_AAAAAAAAAAAAAAAAAAAAAA').expect(404);
    await api(owner.key).rotate('we_AAAAAAAAAAAAAAAAAAAAAA').expect(404);
  });

  it('wants an API key that may read articles', async () => {
    const entitiesOnly = await accountWithKey(svc, 'pro', { scopes: ['read:entities'] });
    await api(entitiesOnly.key).list().expect(403);
    await api(entitiesOnly.key).create({ url: 'https://hooks.customer.example/x', eventTypes: ['article.published'] }).expect(403);
    await request(svc.callback).get(BASE).expect(401);
    const articles = await accountWithKey(svc, 'pro', { scopes: ['read:articles'] });
    await api(articles.key).list().expect(200);
  });

  it("holds the plan's cap under creations fired at once: exactly the cap succeed, and a removal frees a place", async () => {
    const owner = await accountWithKey(svc, 'starter');
    const cap = PLAN_LIMITS.starter.webhookEndpoints;
    const answers = await Promise.all(Array.from({ length: cap + 3 }, (_, i) => api(owner.key).create({ url: `https://hooks.customer.example/race/${i}`, eventTypes: ['article.published'] })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(cap).fill(201), ...Array(3).fill(409)]);
    const refused = answers.find((r) => r.status === 409)!;
    expect(refused.body).toMatchObject({ success: false, statusCode: 409, error: expect.stringMatching(/^The Starter plan allows 5 webhook endpoints/) });
    expect(await storedFor(owner.userId)).toBe(cap);
    expect(await slotsOf(owner.userId)).toBe(cap);
    const listed = (await api(owner.key).list().expect(200)).body.data as { id: string; createdAt: string }[];
    expect(listed).toHaveLength(cap);
    // Newest first.
    expect(listed.map((e) => e.createdAt)).toEqual([...listed.map((e) => e.createdAt)].sort().reverse());

    await api(owner.key).remove(listed[0]!.id).expect(200);
    await api(owner.key).create({ url: 'https://hooks.customer.example/again', eventTypes: ['article.published'] }).expect(201);
    await api(owner.key).create({ url: 'https://hooks.customer.example/over', eventTypes: ['article.published'] }).expect(409);
    expect(await storedFor(owner.userId)).toBe(cap);
  });
});
