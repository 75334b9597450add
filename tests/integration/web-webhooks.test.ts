/**
 * Webhook endpoints in the dashboard's API (issue 40, part 5: "managed in the dashboard and by the
 * news API"): the same use cases and the same endpoints as the news API's, through the session
 * (cookie and CSRF token). CRUD, the secret in the creation's and the rotation's answers only,
 * another account's endpoint not found with nothing changed, hostile inputs refused with nothing
 * stored, the plan's cap, and a change without the CSRF token refused. Host names resolve through a
 * fake resolver; the fetcher's allow-listed loopback port (NEWS_FETCH_ALLOW_HOSTS) is the one
 * development URL accepted.
 *
 * Deliveries (a second web service and a worker of this file's own serving news-webhooks, its
 * allow-list the receiver double's host): a test event delivered to the receiver double (verified
 * by the standardwebhooks library) and in the delivery log, a replay arriving with the same
 * webhook-id, another account's endpoint or message 404 with nothing sent, bad ids 400, a disabled
 * endpoint 409, a replay without the CSRF token 403, and 429 past the per-account limit.
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
import { WEBHOOK_SENDS_PER_MINUTE } from '../../api/shared/bundles';
import { startWebhookReceiverDouble, webhookReceiverControl, type WebhookReceiverDouble } from '../doubles/webhook-receiver-double';
import { killGroup, startOwnWorker } from '../helpers/processes';
import { testConfig } from '../helpers/service';
import { until } from '../helpers/time-skipping';

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

describe('webhook deliveries in the dashboard', () => {
  const run = randomUUID().slice(0, 6);
  let receiver: WebhookReceiverDouble;
  let svc: WebService;
  let worker: Awaited<ReturnType<typeof startOwnWorker>> | undefined;

  beforeAll(async () => {
    receiver = await startWebhookReceiverDouble(0);
    // The double on loopback is reachable only because it is on the allow-list.
    const env = { TASK_QUEUE_PREFIX: `web-deliveries-${run}-`, MONGODB_DB: `web_deliveries_${run}`, NEWS_FETCH_ALLOW_HOSTS: new URL(receiver.url).host };
    svc = await startWebService(env);
    worker = await startOwnWorker(env.TASK_QUEUE_PREFIX, testConfig(env), { ...env, WORKER_QUEUES: 'platform-ops,news-webhooks' });
  }, 120_000);
  afterAll(async () => {
    killGroup(worker);
    await svc?.deps.mongo.conn.dropDatabase().catch(() => undefined);
    await svc?.close();
    await receiver?.close();
  });

  it('sends a test event the receiver verifies and the log shows, replays it with the same webhook-id; 404 for another account, 400 for bad ids, 409 disabled, 403 without CSRF, 429 past the limit', async () => {
    const control = webhookReceiverControl(receiver.url);
    const owner = new Browser(svc);
    await owner.signIn(address());
    const stranger = new Browser(svc);
    await stranger.signIn(address());
    const made = (await owner.post(BASE, { url: receiver.endpointUrl(`desk-${run}`), eventTypes: ['article.breaking'] }).expect(201)).body.data;
    await control.endpoint(`desk-${run}`, { secret: made.secret });
    const id = made.id as string;
    const received = () => control.deliveries(`desk-${run}`).then((d) => d.deliveries);
    const log = (b: Browser, query = '') => b.get(`${BASE}/${id}/deliveries${query}`);

    // Nothing yet: an empty log.
    expect((await log(owner).expect(200)).body.data).toEqual({ deliveries: [], next: null });

    // A test event: delivered, verified by the library, and in the log.
    const tested = await owner.post(`${BASE}/${id}/test`).expect(202);
    expect(tested.body.data).toMatchObject({ endpointId: id, type: 'webhook.test', state: 'pending' });
    const msgId = tested.body.data.msgId as string;
    const [delivery] = await until(received, (d) => d.length > 0, 60_000);
    expect(delivery).toMatchObject({ verified: true, webhookId: msgId, attempt: 1 });
    expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'webhook.test', data: { endpointId: id } });
    const first = await until(async () => (await log(owner).expect(200)).body.data, (d: { deliveries: any[] }) => d.deliveries.length > 0);
    expect(first.deliveries[0]).toMatchObject({ msgId, attempt: 1, replay: false, status: 204, error: null, url: receiver.endpointUrl(`desk-${run}`) });
    expect(first.deliveries[0].requestHeaders['webhook-id']).toBe(msgId);
    expect(first.deliveries[0].requestHeaders['webhook-signature']).toBe('(1 signature)');
    expect(JSON.stringify(first)).not.toMatch(/v1,[A-Za-z0-9+/=]{20}/);

    // A replay: the same webhook-id and body again, a second attempt marked as a replay.
    const replayed = await owner.post(`${BASE}/${id}/messages/${msgId}/replay`).expect(202);
    expect(replayed.body.data).toMatchObject({ msgId, endpointId: id });
    const again = await until(received, (d) => d.length >= 2, 60_000);
    expect(again[1]).toMatchObject({ verified: true, webhookId: msgId, attempt: 2 });
    expect(again[1]!.body).toBe(delivery!.body);
    const logged = await until(async () => (await log(owner, '?limit=1').expect(200)).body.data, (d: { deliveries: { replay: boolean }[]; next: string | null }) => d.deliveries[0]?.replay === true);
    expect(logged.deliveries[0]).toMatchObject({ msgId, attempt: 2, replay: true, status: 204 });
    const older = (await log(owner, `?before=${logged.next}`).expect(200)).body.data;
    expect(older).toEqual({ deliveries: [expect.objectContaining({ msgId, attempt: 1, replay: false })], next: null });

    // Another account's endpoint and message: 404, nothing sent. Bad ids and cursors: 400.
    await log(stranger).expect(404);
    await stranger.post(`${BASE}/${id}/messages/${msgId}/replay`).expect(404);
    await stranger.post(`${BASE}/${id}/test`).expect(404);
    await owner.post(`${BASE}/${id}/messages/msg_AAAAAAAAAAAAAAAAAAAAAA/replay`).expect(404);
    await owner.post(`${BASE}/${id}/messages/msg_%24where%3A1/replay`).expect(400);
    await owner.post(`${BASE}/we_nope/test`).expect(400);
    await log(owner, '?before=%24where').expect(400);
    await log(owner, '?limit=1000').expect(400);

    // Without the CSRF token: 403, nothing sent.
    await request(svc.callback).post(`${BASE}/${id}/messages/${msgId}/replay`).set('Origin', svc.origin).set('Cookie', owner.cookie).expect(403);
    await request(svc.callback).post(`${BASE}/${id}/test`).set('Origin', svc.origin).set('Cookie', owner.cookie).expect(403);

    // Disabled: neither a test nor a replay (409), nothing sent.
    await owner.patch(`${BASE}/${id}`, { state: 'disabled' }).expect(200);
    await owner.post(`${BASE}/${id}/test`).expect(409);
    await owner.post(`${BASE}/${id}/messages/${msgId}/replay`).expect(409);
    expect(await received()).toHaveLength(2);

    // The per-account limit (the 404s and 409s above counted): past it 429 with Retry-After; the stranger's own count apart.
    const answers: number[] = [];
    for (let i = 0; i < WEBHOOK_SENDS_PER_MINUTE; i += 1) answers.push((await owner.post(`${BASE}/${id}/test`)).status);
    expect([...new Set(answers)]).toEqual([409, 429]);
    const limited = await owner.post(`${BASE}/${id}/messages/${msgId}/replay`).expect(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    await stranger.post(`${BASE}/${id}/test`).expect(404);
    expect(await received()).toHaveLength(2);
  }, 180_000);
});
