/**
 * Webhook delivery on the real stack (issue 40, part 5): endpoints registered through the news API
 * on the receiver double (tests/doubles/webhook-receiver-double.ts, which verifies every delivery
 * with the standardwebhooks library), a breaking article's event published as the pipeline
 * publishes it (operations/events/publish.ts, starting the event's fan-out), a worker of this
 * file's own serving news-webhooks. The matching endpoint receives a verified delivery, the
 * endpoint whose filters do not match nothing; the delivery log shows it; a test event and a
 * replay (same webhook-id) arrive; another account's endpoint or message is 404 with nothing sent;
 * an endpoint answering 410 is disabled. Waits are deadlines, never sleeps.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { WEBHOOK_SENDS_PER_MINUTE } from '../../api/shared/bundles';
import { createEventLogRepo } from '../../models/events/event-log.repo';
import { publishEvents } from '../../operations/events/publish';
import { temporalWebhookStarts } from '../../operations/events/webhook-fanout';
import { workflowIds } from '../../workflows/ids';
import { startWebhookReceiverDouble, webhookReceiverControl, type WebhookReceiverDouble } from '../doubles/webhook-receiver-double';
import { eventArticle } from '../helpers/events';
import { accountWithKey, startNewsService, type NewsService } from '../helpers/news';
import { killGroup, startOwnWorker } from '../helpers/processes';
import { testConfig } from '../helpers/service';
import { until } from '../helpers/time-skipping';
import { messagesTo, waitForMessagesTo } from '../helpers/mailpit';
import { createMailer } from '../../models/infra/mail';
import { disableEndpoint } from '../../operations/events/webhook-delivery';
import { newWebhookMessageId } from '../../models/events/webhook-signing';
import type { WebhookMessageDoc } from '../../models/events/webhook-message.repo';

jest.setTimeout(180_000);

const BASE = '/api/webhooks/endpoints';
const run = randomUUID().slice(0, 6);

let receiver: WebhookReceiverDouble;
let svc: NewsService;
let worker: Awaited<ReturnType<typeof startOwnWorker>> | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  receiver = await startWebhookReceiverDouble(0);
  // The double on loopback is reachable only because it is on the allow-list, as the news sites' double is.
  env = { TASK_QUEUE_PREFIX: `webhooks-${run}-`, MONGODB_DB: `webhooks_${run}`, NEWS_FETCH_ALLOW_HOSTS: new URL(receiver.url).host };
  svc = await startNewsService(env);
  worker = await startOwnWorker(env.TASK_QUEUE_PREFIX!, testConfig(env), { ...env, WORKER_QUEUES: 'platform-ops,news-webhooks' });
});
afterAll(async () => {
  killGroup(worker);
  await svc?.deps.mongo.conn.dropDatabase().catch(() => undefined);
  await svc?.close();
  await receiver?.close();
});

const api = (key: string) => ({
  create: (body: object) => request(svc.callback).post(BASE).set('X-API-Key', key).send(body),
  get: (id: string) => request(svc.callback).get(`${BASE}/${id}`).set('X-API-Key', key),
  deliveries: (id: string, query = '') => request(svc.callback).get(`${BASE}/${id}/deliveries${query}`).set('X-API-Key', key),
  replay: (id: string, msgId: string) => request(svc.callback).post(`${BASE}/${id}/messages/${msgId}/replay`).set('X-API-Key', key),
  test: (id: string) => request(svc.callback).post(`${BASE}/${id}/test`).set('X-API-Key', key),
});

it('delivers a breaking article to the endpoint whose filters match, verified by the library; logs it; a test event and a replay arrive; others are 404; 410 disables', async () => {
  const control = webhookReceiverControl(receiver.url);
  const owner = await accountWithKey(svc, 'pro');
  const stranger = await accountWithKey(svc, 'pro');
  const register = async (name: string, body: object, faults: { status: number }[] = []) => {
    const made = (await api(owner.key).create({ url: receiver.endpointUrl(`${name}-${run}`), ...body }).expect(201)).body.data;
    await control.endpoint(`${name}-${run}`, { secret: made.secret, faults });
    return made.id as string;
  };
  const energy = await register('energy', { eventTypes: ['article.breaking'], filters: { sectors: ['ENE'] } });
  const finance = await register('finance', { eventTypes: ['article.breaking', 'article.published'], filters: { sectors: ['FIN'] } });
  const gone = await register('gone', { eventTypes: ['article.breaking'] }, [{ status: 410 }]);
  const received = (name: string) => control.deliveries(`${name}-${run}`).then((d) => d.deliveries);

  // Published as the pipeline publishes: the event appended, its fan-out started at once.
  const article = eventArticle({ isBreaking: true, primarySector: 'ENE', title: `Petrobras descobre petróleo ${run}` });
  const publish = { events: createEventLogRepo(svc.deps.mongo.conn), webhookFanOut: temporalWebhookStarts(svc.deps.temporal.client, env.TASK_QUEUE_PREFIX!).fanOut };
  await publishEvents(publish, [article]);
  const fanOut = await svc.deps.temporal.client.workflow.getHandle(workflowIds.webhookFanOut(`article:${article._id}`)).result();
  expect(fanOut).toEqual({ messages: 2, pages: 1 });
  // Published again (a retried activity): no second message, no second delivery.
  await publishEvents(publish, [article]);

  const [delivery] = await until(() => received('energy'), (d) => d.length > 0);
  expect(delivery).toMatchObject({ verified: true, attempt: 1, answeredStatus: 204 });
  const body = JSON.parse(delivery!.body);
  expect(body).toMatchObject({ type: 'article.breaking', data: { id: article._id, title: article.title, primarySector: 'ENE' } });
  expect(Date.parse(body.timestamp)).not.toBeNaN();
  // Pro shows every module, as the stream and the lists do.
  expect(body.data).toHaveProperty('sentimentScore', 0.5);
  const msgId = delivery!.webhookId!;
  expect(msgId).toMatch(/^msg_/);

  // The delivery log, newest first, with the headers sent but never the signature.
  const log = await until(async () => (await api(owner.key).deliveries(energy).expect(200)).body.data, (d: { deliveries: any[] }) => d.deliveries.length > 0);
  expect(log.deliveries[0]).toMatchObject({ msgId, attempt: 1, replay: false, status: 204, error: null, url: receiver.endpointUrl(`energy-${run}`) });
  expect(log.deliveries[0].requestHeaders['webhook-id']).toBe(msgId);
  expect(log.deliveries[0].requestHeaders['webhook-signature']).toBe('(1 signature)');
  expect(JSON.stringify(log)).not.toMatch(/v1,[A-Za-z0-9+/=]{20}/);

  // 410 Gone: the endpoint is disabled, reason gone.
  await until(async () => (await api(owner.key).get(gone).expect(200)).body.data.state, (s) => s === 'disabled');
  expect((await api(owner.key).get(gone).expect(200)).body.data).toMatchObject({ state: 'disabled', disabledReason: 'gone' });
  expect(await received('gone')).toHaveLength(1);

  // A test event, whatever the event types: a webhook.test message, verified.
  const tested = await api(owner.key).test(energy).expect(202);
  expect(tested.body.data).toMatchObject({ endpointId: energy, type: 'webhook.test', state: 'pending' });
  const afterTest = await until(() => received('energy'), (d) => d.length >= 2);
  expect(afterTest[1]).toMatchObject({ verified: true, webhookId: tested.body.data.msgId });
  expect(JSON.parse(afterTest[1]!.body)).toMatchObject({ type: 'webhook.test', data: { endpointId: energy } });

  // A replay: the same webhook-id, signed anew, verified; in the log as a replay.
  const replayed = await api(owner.key).replay(energy, msgId).expect(202);
  expect(replayed.body.data).toMatchObject({ msgId, endpointId: energy });
  const afterReplay = await until(() => received('energy'), (d) => d.length >= 3);
  expect(afterReplay[2]).toMatchObject({ verified: true, webhookId: msgId, attempt: 2 });
  expect(JSON.parse(afterReplay[2]!.body)).toEqual(body);
  const logged = await until(async () => (await api(owner.key).deliveries(energy, '?limit=1').expect(200)).body.data, (d: { deliveries: { replay: boolean }[]; next: string | null }) => d.deliveries[0]?.replay === true);
  expect(logged.deliveries).toHaveLength(1);
  expect(logged.next).toEqual(expect.stringMatching(/^wa_/));
  const older = (await api(owner.key).deliveries(energy, `?limit=100&before=${logged.next}`).expect(200)).body.data;
  expect(older.deliveries.map((d: { msgId: string }) => d.msgId)).toEqual([tested.body.data.msgId, msgId]);
  expect(older.next).toBeNull();

  // Another account's endpoint and message: 404, nothing sent. A replay of a message of another endpoint: 404.
  await api(stranger.key).deliveries(energy).expect(404);
  await api(stranger.key).replay(energy, msgId).expect(404);
  await api(stranger.key).test(energy).expect(404);
  await api(owner.key).replay(finance, msgId).expect(404);
  await api(owner.key).replay(energy, 'msg_AAAAAAAAAAAAAAAAAAAAAA').expect(404);
  // Hostile input: a malformed id or cursor is 400, nothing sent.
  await api(owner.key).replay(energy, 'msg_%24where%3A1').expect(400);
  await api(owner.key).deliveries(energy, '?before=%24where').expect(400);
  await api(owner.key).deliveries(energy, '?limit=1000').expect(400);
  // A disabled endpoint takes no replay nor test: 409.
  await api(owner.key).test(gone).expect(409);

  // The filters held: the finance endpoint never heard of the energy article; nothing more arrived anywhere.
  expect(await received('finance')).toEqual([]);
  expect(await received('energy')).toHaveLength(3);
  expect(await received('gone')).toHaveLength(1);

  // Replays and test events are limited per account (each makes a request to someone's endpoint):
  // the stranger's 404s above counted; past the limit, 429 with Retry-After before anything is looked up.
  let answers: number[] = [];
  for (let i = 0; i < WEBHOOK_SENDS_PER_MINUTE + 1; i += 1) answers.push((await api(stranger.key).test(energy)).status);
  answers = [...new Set(answers)];
  expect(answers).toEqual([404, 429]);
  const limited = await api(stranger.key).replay(energy, msgId).expect(429);
  expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  // The owner's own limit is untouched by the stranger's.
  await api(owner.key).test(finance).expect(202);
});

it("on the real database: the failing streak keeps its start and a success ends it; five days' disabling mails the owner's proven address once (Mailpit); messages once per endpoint and event; the log pages by cursor", async () => {
  const owner = await accountWithKey(svc, 'starter');
  const email = `${owner.userId}@example.com`;
  await svc.deps.users.markEmailVerified(owner.userId, email, new Date());
  const control = webhookReceiverControl(receiver.url);
  const made = (await api(owner.key).create({ url: receiver.endpointUrl(`down-${run}`), eventTypes: ['article.published'] }).expect(201)).body.data;
  await control.endpoint(`down-${run}`, { secret: made.secret });
  const endpoints = svc.deps.webhookEndpoints;

  const first = new Date(Date.now() - 6 * 86_400_000);
  expect(await endpoints.recordFailure(made.id, first)).toEqual(first);
  expect(await endpoints.recordFailure(made.id, new Date())).toEqual(first);
  await endpoints.recordSuccess(made.id);
  expect((await endpoints.getById(made.id))!.failingSince).toBeNull();
  await endpoints.recordFailure(made.id, first);

  const mailer = createMailer(svc.deps.config);
  try {
    const deps = { webhookEndpoints: endpoints, users: svc.deps.users, mailer, mail: { from: svc.deps.config.mail.from, domain: 'newsletter.example' }, now: () => new Date() };
    const [a, b] = await Promise.all([disableEndpoint(deps, { endpointId: made.id, reason: 'failing' }), disableEndpoint(deps, { endpointId: made.id, reason: 'failing' })]);
    expect([a, b].filter((r) => r.disabled)).toHaveLength(1);
    expect([a, b].filter((r) => r.mailed)).toHaveLength(1);
    const [mail] = await waitForMessagesTo(email);
    expect(mail!.subject).toBe(`Webhook endpoint disabled: ${receiver.endpointUrl(`down-${run}`)}`);
    expect(await disableEndpoint(deps, { endpointId: made.id, reason: 'failing' })).toEqual({ disabled: false, mailed: false });
    expect(await messagesTo(email)).toHaveLength(1);
  } finally {
    mailer.close();
  }
  expect((await api(owner.key).get(made.id).expect(200)).body.data).toMatchObject({ state: 'disabled', disabledReason: 'failing' });
  // Enabled again by its owner: the streak and the mail's mark are cleared, so a later disabling mails again.
  await request(svc.callback).patch(`${BASE}/${made.id}`).set('X-API-Key', owner.key).send({ state: 'enabled' }).expect(200);
  expect(await endpoints.getById(made.id)).toMatchObject({ state: 'enabled', failingSince: null, ownerMailedAt: null });

  // One message per endpoint and event, however many fan-outs race.
  const doc = (): WebhookMessageDoc => ({ _id: newWebhookMessageId(), endpointId: made.id, accountId: owner.userId, eventKey: `article:race-${run}`, type: 'article.published', body: '{}', state: 'pending', attempts: 0, lastAttemptAt: null, createdAt: new Date() });
  const answers = await Promise.all(Array.from({ length: 4 }, () => svc.deps.webhookMessages.createMany([doc()])));
  expect(new Set(answers.flat().map((m) => m._id)).size).toBe(1);

  // The log: newest first, a page after the cursor, an unknown cursor an empty page.
  const attempts = svc.deps.webhookAttempts;
  const base = Date.now();
  for (let i = 0; i < 5; i += 1) {
    await attempts.record({ msgId: answers[0]![0]!._id, endpointId: made.id, accountId: owner.userId, attempt: i + 1, replay: false, url: made.url, requestHeaders: {}, status: 500, durationMs: 1, responseBody: '', error: null, at: new Date(base + (i < 3 ? i : 2) * 1000) });
  }
  const firstPage = await attempts.listForEndpoint(made.id, { limit: 2 });
  const rest = await attempts.listForEndpoint(made.id, { limit: 10, before: firstPage[1]!._id });
  // Two pages are the whole log in one, in order, each attempt once (three share a time: the id orders them).
  const whole = await attempts.listForEndpoint(made.id, { limit: 10 });
  expect(whole).toHaveLength(5);
  expect([...firstPage, ...rest].map((x) => x._id)).toEqual(whole.map((x) => x._id));
  expect([...firstPage, ...rest].map((x) => x.at.getTime())).toEqual([...firstPage, ...rest].map((x) => x.at.getTime()).sort((p, q) => q - p));
  expect(await attempts.listForEndpoint(made.id, { limit: 10, before: 'wa_AAAAAAAAAAAAAAAAAAAAAA' })).toEqual([]);
});
