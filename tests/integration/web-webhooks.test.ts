/**
 * Webhook endpoints in the dashboard's API (issue 40, part 5: "managed in the dashboard and by the
 * news API"): the same use cases and the same endpoints as the news API's, through the session
 * (cookie and CSRF token). CRUD, the secret in the creation's and the rotation's answers only,
 * another account's endpoint not found with nothing changed, hostile inputs refused with nothing
 * stored, the plan's cap, and a change without the CSRF token refused. Host names resolve through a
 * fake resolver; the fetcher's allow-listed loopback port (NEWS_FETCH_ALLOW_HOSTS) is the one
 * development URL accepted.
 */
import type { LookupAddress } from 'node:dns';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { emailUserId } from '../../models/accounts/sign-in.rules';
import { WEBHOOK_ENDPOINTS, type WebhookEndpointDoc } from '../../models/events/webhook-endpoint.repo';
import { WEBHOOK_LIMITS } from '../../models/events/webhook.rules';
import { collectionOf } from '../../models/infra/mongo';
import { PLAN_LIMITS } from '../../models/shared/plan.rules';
import { startNewsService, type NewsService } from '../helpers/news';
import { Browser, startWebService, type WebService } from '../helpers/web';

const BASE = '/api/account/webhooks/endpoints';

let web: WebService;
let news: NewsService;
let devUrl: string;

const FAKE_DNS: Record<string, string[]> = {
  'hooks.customer.example': ['93.184.216.34'],
  'internal.customer.example': ['93.184.216.36', '10.1.2.3'],
  localhost: ['127.0.0.1', '::1'],
};
const fakeLookup = async (hostname: string): Promise<LookupAddress[]> => {
  const found = FAKE_DNS[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

beforeAll(async () => {
  [web, news] = await Promise.all([startWebService(), startNewsService()]);
  web.deps.webhookLookup = fakeLookup;
  news.deps.webhookLookup = fakeLookup;
  const entry = web.deps.config.news.fetch.allowHosts.map((h) => /^127\.0\.0\.1:(\d+)/.exec(h)).find(Boolean);
  if (!entry) throw new Error(`the tests need 127.0.0.1 with a port on NEWS_FETCH_ALLOW_HOSTS (have ${web.deps.config.news.fetch.allowHosts.join(',')})`);
  devUrl = `http://127.0.0.1:${entry[1]}/hooks/dashboard`;
});
afterAll(async () => {
  await Promise.all([web?.close(), news?.close()]);
});

const address = () => `hooks-${randomUUID().slice(0, 8)}@example.com`;
async function signedIn(): Promise<{ b: Browser; userId: string }> {
  const email = address();
  const b = new Browser(web);
  await b.signIn(email);
  return { b, userId: emailUserId(email) };
}

const endpoints = () => collectionOf<WebhookEndpointDoc>(web.deps.mongo.conn, WEBHOOK_ENDPOINTS);
const stored = (accountId: string) => endpoints().find({ accountId }).toArray();

describe('webhook endpoints in the dashboard', () => {
  it('registers, lists, reads, changes, disables, enables, rotates and removes an endpoint through the session; the secret only in the creation and rotation answers', async () => {
    const { b, userId } = await signedIn();
    const created = await b.post(BASE, { url: 'https://hooks.customer.example/in', eventTypes: ['article.breaking'], filters: { sectors: ['FIN', 'ENE'], tickers: ['PETR4'] }, description: 'Mesa' }).expect(201);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.body.message).toMatch(/will not be shown again/);
    const endpoint = created.body.data;
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint).toMatchObject({ url: 'https://hooks.customer.example/in', description: 'Mesa', eventTypes: ['article.breaking'], filters: { sectors: ['FIN', 'ENE'], tickers: ['PETR4'] }, state: 'enabled', disabledReason: null });
    expect((await stored(userId)).map((d) => d._id)).toEqual([endpoint.id]);

    const list = await b.get(BASE).expect(200);
    const one = await b.get(`${BASE}/${endpoint.id}`).expect(200);
    expect(list.body.data).toEqual([expect.objectContaining({ id: endpoint.id })]);
    const { secret, ...view } = endpoint;
    expect(one.body.data).toEqual(view);
    for (const answer of [list.body, one.body]) {
      expect(JSON.stringify(answer)).not.toContain('whsec_');
      expect(JSON.stringify(answer)).not.toContain(secret);
    }

    const changed = await b.patch(`${BASE}/${endpoint.id}`, { eventTypes: ['article.published', 'webhook.test'], filters: {}, description: '' }).expect(200);
    expect(changed.body.data).toMatchObject({ eventTypes: ['article.published', 'webhook.test'], filters: {}, description: null });
    expect((await b.patch(`${BASE}/${endpoint.id}`, { state: 'disabled' }).expect(200)).body.data).toMatchObject({ state: 'disabled', disabledReason: 'owner' });
    expect((await b.patch(`${BASE}/${endpoint.id}`, { state: 'enabled' }).expect(200)).body.data).toMatchObject({ state: 'enabled', disabledReason: null });
    // The fetcher's allow-listed development address is accepted, plain http and all.
    expect((await b.patch(`${BASE}/${endpoint.id}`, { url: devUrl }).expect(200)).body.data.url).toBe(devUrl);

    const rotated = await b.post(`${BASE}/${endpoint.id}/secret/rotate`).expect(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(secret);
    expect(rotated.body.data.previousSecretExpiresAt).not.toBeNull();
    expect(await web.deps.webhookEndpoints.signingSecrets(endpoint.id, new Date())).toEqual([rotated.body.data.secret, secret]);
    expect(JSON.stringify((await b.get(`${BASE}/${endpoint.id}`).expect(200)).body)).not.toContain('whsec_');

    expect((await b.delete(`${BASE}/${endpoint.id}`).expect(200)).body.data).toEqual({ id: endpoint.id, deleted: true });
    await b.get(`${BASE}/${endpoint.id}`).expect(404);
    expect(await stored(userId)).toEqual([]);
  });

  it('manages the same endpoints as the news API: one made with an API key is listed, changed and removed in the dashboard', async () => {
    const { b, userId } = await signedIn();
    const { key } = await news.deps.apiKeys.create({ userId, name: 'hooks', mode: 'live', scopes: ['read:articles'], expiresAt: null });
    const made = (await request(news.callback).post('/api/webhooks/endpoints').set('X-API-Key', key).send({ url: 'https://hooks.customer.example/api', eventTypes: ['article.published'] }).expect(201)).body.data;
    expect((await b.get(BASE).expect(200)).body.data).toEqual([expect.objectContaining({ id: made.id, url: 'https://hooks.customer.example/api' })]);
    await b.patch(`${BASE}/${made.id}`, { state: 'disabled' }).expect(200);
    expect((await request(news.callback).get(`/api/webhooks/endpoints/${made.id}`).set('X-API-Key', key).expect(200)).body.data.state).toBe('disabled');
    await b.delete(`${BASE}/${made.id}`).expect(200);
    await request(news.callback).get(`/api/webhooks/endpoints/${made.id}`).set('X-API-Key', key).expect(404);
  });

  it("answers 404 for another account's endpoint, and changes nothing of it", async () => {
    const owner = await signedIn();
    const stranger = await signedIn();
    const endpoint = (await owner.b.post(BASE, { url: 'https://hooks.customer.example/mine', eventTypes: ['article.breaking'] }).expect(201)).body.data;
    const before = await endpoints().findOne({ _id: endpoint.id });

    await stranger.b.get(`${BASE}/${endpoint.id}`).expect(404);
    await stranger.b.patch(`${BASE}/${endpoint.id}`, { state: 'disabled' }).expect(404);
    await stranger.b.patch(`${BASE}/${endpoint.id}`, { url: 'https://hooks.customer.example/theirs' }).expect(404);
    await stranger.b.post(`${BASE}/${endpoint.id}/secret/rotate`).expect(404);
    await stranger.b.delete(`${BASE}/${endpoint.id}`).expect(404);
    expect((await stranger.b.get(BASE).expect(200)).body.data).toEqual([]);

    expect(await endpoints().findOne({ _id: endpoint.id })).toEqual(before);
    expect(await web.deps.webhookEndpoints.signingSecrets(endpoint.id, new Date())).toEqual([endpoint.secret]);
  });

  it('refuses hostile inputs with 400 in the envelope (the field named) and stores nothing', async () => {
    const { b, userId } = await signedIn();
    const attacks: [string, object, string][] = [
      ['loopback', { url: 'https://127.0.0.1/hook', eventTypes: ['article.breaking'] }, 'body.url'],
      ['private network', { url: 'https://10.0.0.7/hook', eventTypes: ['article.breaking'] }, 'body.url'],
      ['a name resolving to a private address', { url: 'https://internal.customer.example/hook', eventTypes: ['article.breaking'] }, 'body.url'],
      ['cloud metadata', { url: 'https://169.254.169.254/latest/meta-data', eventTypes: ['article.breaking'] }, 'body.url'],
      ['plain http', { url: 'http://hooks.customer.example/hook', eventTypes: ['article.breaking'] }, 'body.url'],
      ['credentials in the URL', { url: 'https://user:pw@hooks.customer.example/hook', eventTypes: ['article.breaking'] }, 'body.url'],
      ['an unknown event type', { url: 'https://hooks.customer.example/hook', eventTypes: ['article.deleted'] }, 'body.eventTypes'],
      ['no event type', { url: 'https://hooks.customer.example/hook', eventTypes: [] }, 'body.eventTypes'],
      ['a description too long', { url: 'https://hooks.customer.example/hook', eventTypes: ['article.breaking'], description: 'x'.repeat(WEBHOOK_LIMITS.descriptionLength + 1) }, 'body.description'],
      ['an unknown sector', { url: 'https://hooks.customer.example/hook', eventTypes: ['article.breaking'], filters: { sectors: ['XXX'] } }, 'body.filters'],
      ['an extra field', { url: 'https://hooks.customer.example/hook', eventTypes: ['article.breaking'], secret: 'whsec_mine' }, 'body'],
    ];
    for (const [what, body, path] of attacks) {
      const res = await b.post(BASE, body);
      expect({ what, status: res.status }).toEqual({ what, status: 400 });
      expect(res.body).toMatchObject({ success: false, statusCode: 400, code: 'VALIDATION_FAILED' });
      expect({ what, named: JSON.stringify(res.body.details ?? []).includes(path) }).toEqual({ what, named: true });
    }
    expect(await stored(userId)).toEqual([]);

    // A change to a refused URL leaves the endpoint as it was.
    const endpoint = (await b.post(BASE, { url: 'https://hooks.customer.example/ok', eventTypes: ['article.breaking'] }).expect(201)).body.data;
    await b.patch(`${BASE}/${endpoint.id}`, { url: 'https://127.0.0.1/hook' }).expect(400);
    await b.patch(`${BASE}/${endpoint.id}`, { state: 'paused' }).expect(400);
    await b.get(`${BASE}/not-an-id`).expect(400);
    expect((await b.get(`${BASE}/${endpoint.id}`).expect(200)).body.data).toMatchObject({ url: 'https://hooks.customer.example/ok', state: 'enabled' });
  });

  it("answers 409 past the plan's cap, with nothing stored", async () => {
    const { b, userId } = await signedIn();
    const cap = PLAN_LIMITS.starter.webhookEndpoints;
    for (let i = 0; i < cap; i++) await b.post(BASE, { url: `https://hooks.customer.example/${i}`, eventTypes: ['article.published'] }).expect(201);
    const over = await b.post(BASE, { url: 'https://hooks.customer.example/over', eventTypes: ['article.published'] }).expect(409);
    expect(over.body).toMatchObject({ success: false, statusCode: 409, error: expect.stringMatching(/Starter plan allows 5 webhook endpoints/) });
    expect(await stored(userId)).toHaveLength(cap);
  });

  it('refuses a change without the CSRF token, or from another origin, and changes nothing', async () => {
    const { b, userId } = await signedIn();
    const endpoint = (await b.post(BASE, { url: 'https://hooks.customer.example/csrf', eventTypes: ['article.breaking'] }).expect(201)).body.data;
    const noToken = (req: request.Test) => req.set('Origin', web.origin).set('Cookie', b.cookie);
    await noToken(request(web.callback).post(BASE)).send({ url: 'https://hooks.customer.example/forged', eventTypes: ['article.breaking'] }).expect(403);
    await noToken(request(web.callback).patch(`${BASE}/${endpoint.id}`)).send({ state: 'disabled' }).expect(403);
    await noToken(request(web.callback).post(`${BASE}/${endpoint.id}/secret/rotate`)).expect(403);
    await noToken(request(web.callback).delete(`${BASE}/${endpoint.id}`)).expect(403);
    await request(web.callback).delete(`${BASE}/${endpoint.id}`).set('Origin', 'https://evil.example').set('Cookie', b.cookie).set('X-CSRF-Token', b.csrf).expect(403);
    await request(web.callback).get(BASE).expect(401);

    const [doc] = await stored(userId);
    expect(doc).toMatchObject({ _id: endpoint.id, state: 'enabled', url: 'https://hooks.customer.example/csrf' });
    expect(await web.deps.webhookEndpoints.signingSecrets(endpoint.id, new Date())).toEqual([endpoint.secret]);
  });
});
