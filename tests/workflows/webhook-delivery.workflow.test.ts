/**
 * The webhooks' workflows (issue 40, part 5) on the time-skipping test server. webhookMessageWorkflow
 * runs over the real delivery operations (operations/events/webhook-delivery.ts: signing, the
 * delivery log, the failing streak, disabling and the owner's mail) with in-memory repositories, a
 * scripted sender and the server's clock: a 503 with Retry-After is waited for, a 410 disables the
 * endpoint, five days of failures disable it and mail its owner once (a second disabling mails nobody), a
 * success clears the streak, a disabled endpoint ends a message unsent. The fan-out reads pages
 * until the last, then marks its event; the relay calls its activity.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Webhook } from 'standardwebhooks';
import type { WebhookAttemptDoc } from '../../models/events/webhook-attempt.repo';
import type { WebhookEndpointDoc } from '../../models/events/webhook-endpoint.repo';
import type { WebhookMessageDoc } from '../../models/events/webhook-message.repo';
import { newWebhookMessageId, newWebhookSecret } from '../../models/events/webhook-signing';
import { RETRY_SCHEDULE_MS } from '../../models/events/webhook.rules';
import type { MailMessage } from '../../models/infra/mail';
import type { WebhookAttempt } from '../../models/infra/webhook-sender';
import { deliverAttempt, disableEndpoint, finishMessage } from '../../operations/events/webhook-delivery';
import { webhookFanOutWorkflow } from '../../workflows/events/fanout.workflow';
import { webhookMessageWorkflow } from '../../workflows/events/message.workflow';
import { webhookRelayWorkflow } from '../../workflows/events/relay.workflow';
import { workflowIds } from '../../workflows/ids';
import { mockedActivitiesWorker, workflowSuite } from '../helpers/time-skipping';

jest.setTimeout(120_000);

const suite = workflowSuite();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const record = (name: string) => async (workflowId: string) => {
  if (process.env.RECORD_HISTORY !== '1') return;
  writeFileSync(path.resolve(__dirname, '../fixtures/histories', `${name}.json`), `${historyToJSON(await suite.env.client.workflow.getHandle(workflowId).fetchHistory())}\n`);
};

/** An endpoint, its messages and log, its owner's mail, in memory; the sender answers from a script per endpoint. */
function world() {
  const secret = newWebhookSecret();
  const endpoints = new Map<string, WebhookEndpointDoc>();
  const messages = new Map<string, WebhookMessageDoc>();
  const attempts: WebhookAttemptDoc[] = [];
  const mail: MailMessage[] = [];
  const sent: { at: number; endpointId: string; headers: Record<string, string>; body: string }[] = [];
  const script = new Map<string, WebhookAttempt[]>();
  let clock = 0;

  const endpoint = (id: string, over: Partial<WebhookEndpointDoc> = {}): WebhookEndpointDoc => {
    const doc: WebhookEndpointDoc = { _id: id, accountId: 'acct-1', url: `https://hooks.example/${id}`, description: null, eventTypes: ['article.breaking'], filters: {}, state: 'enabled', disabledReason: null, failingSince: null, secrets: [], createdAt: new Date(0), updatedAt: new Date(0), ...over };
    endpoints.set(id, doc);
    return doc;
  };
  const message = (endpointId: string): WebhookMessageDoc => {
    const m: WebhookMessageDoc = { _id: newWebhookMessageId(), endpointId, accountId: 'acct-1', eventKey: `article:${endpointId}`, type: 'article.breaking', body: '{"type":"article.breaking","timestamp":"2026-11-26T12:00:00.000Z","data":{"id":"a1"}}', state: 'pending', attempts: 0, lastAttemptAt: null, createdAt: new Date(clock) };
    messages.set(m._id, m);
    return m;
  };
  const now = () => new Date(clock);
  const strip = ({ secrets: _s, ...e }: WebhookEndpointDoc) => e;
  const repos = {
    webhookMessages: {
      get: async (id: string) => messages.get(id) ?? null,
      recordAttempt: async (id: string, state: WebhookMessageDoc['state'], at: Date) => void Object.assign(messages.get(id)!, { state, lastAttemptAt: at, attempts: messages.get(id)!.attempts + 1 }),
      finish: async (id: string, state: WebhookMessageDoc['state']) => {
        const m = messages.get(id);
        if (m?.state === 'pending') m.state = state;
      },
    },
    webhookEndpoints: {
      getById: async (id: string) => (endpoints.has(id) ? strip(endpoints.get(id)!) : null),
      forDelivery: async (id: string) => (endpoints.has(id) ? { endpoint: strip(endpoints.get(id)!), secrets: [secret] } : null),
      recordFailure: async (id: string, at: Date) => {
        const e = endpoints.get(id);
        if (!e) return null;
        e.failingSince ??= at;
        return e.failingSince;
      },
      recordSuccess: async (id: string) => void (endpoints.has(id) && (endpoints.get(id)!.failingSince = null)),
      disable: async (id: string, reason: 'gone' | 'failing', at: Date) => {
        const e = endpoints.get(id);
        if (e?.state !== 'enabled') return false;
        Object.assign(e, { state: 'disabled', disabledReason: reason, ownerMailedAt: null, updatedAt: at });
        return true;
      },
      claimOwnerMail: async (id: string, at: Date) => {
        const e = endpoints.get(id);
        if (!e || e.state !== 'disabled' || e.disabledReason !== 'failing' || e.ownerMailedAt) return false;
        e.ownerMailedAt = at;
        return true;
      },
      releaseOwnerMail: async (id: string, at: Date) => void (endpoints.get(id)?.ownerMailedAt === at && (endpoints.get(id)!.ownerMailedAt = null)),
    },
    webhookAttempts: { record: async (doc: Omit<WebhookAttemptDoc, '_id'>) => (attempts.push({ _id: `wa_${attempts.length}`, ...doc }), attempts[attempts.length - 1]!) },
    users: { verifiedEmails: async (ids: string[]) => new Map(ids.map((id) => [id, `${id}@example.com`])) },
    mailer: { send: async (m: MailMessage) => void mail.push(m) },
    mail: { from: 'Newsletter <no-reply@newsletter.example>', domain: 'newsletter.example' },
    sender: {
      send: async (url: string, headers: Record<string, string>, body: string): Promise<WebhookAttempt> => {
        const endpointId = url.split('/').pop()!;
        sent.push({ at: clock, endpointId, headers, body });
        return script.get(endpointId)?.shift() ?? { status: 204, durationMs: 5, responseBody: '' };
      },
    },
    now,
  };
  /** Each activity reads the test server's clock first: the operations' `now` is the workflow's time. */
  const tick = async () => {
    clock = await suite.env.currentTimeMs();
  };
  const activities = {
    deliverAttempt: async (input: { msgId: string; replay?: boolean }) => (await tick(), deliverAttempt(repos, input)),
    finishMessage: async (input: { msgId: string; state: WebhookMessageDoc['state'] }) => (await tick(), finishMessage(repos, input)),
    disableEndpoint: jest.fn(async (input: { endpointId: string; reason: 'gone' | 'failing' }) => (await tick(), disableEndpoint(repos, input))),
    fanOutPage: jest.fn(),
    markDispatched: jest.fn(),
    forwardUndispatchedEvents: jest.fn(),
  };
  return { secret, endpoints, messages, attempts, mail, sent, script, endpoint, message, activities };
}

const failure = (status: number, retryAfterMs?: number): WebhookAttempt => ({ status, durationMs: 20, responseBody: `{"error":${status}}`, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });

async function deliver(w: ReturnType<typeof world>, msgIds: string[], replay = false) {
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, w.activities, { bundle: suite.bundle });
  return await run(() =>
    Promise.all(msgIds.map((msgId) => suite.client.execute(webhookMessageWorkflow, { taskQueue, workflowId: replay ? workflowIds.webhookReplay(msgId, 'r1') : workflowIds.webhookMessage(msgId), args: [{ msgId, ...(replay ? { replay: true } : {}) }] }))),
  );
}

it('waits what a 503 asked for in Retry-After (longer than the schedule), then delivers; every attempt is signed anew and logged; success clears the streak', async () => {
  const w = world();
  w.endpoint('we_busy');
  const m = w.message('we_busy');
  w.script.set('we_busy', [failure(503, 2 * HOUR), failure(500)]);

  const [result] = await deliver(w, [m._id]);

  expect(result).toEqual({ state: 'delivered', attempts: 3 });
  const [first, second, third] = w.sent;
  // The 503's two hours, not the schedule's 5 s; then the schedule's 5 min (±20 %) after a 500 that asked nothing.
  expect(second!.at - first!.at).toBeGreaterThanOrEqual(2 * HOUR);
  expect(second!.at - first!.at).toBeLessThan(2 * HOUR + 60_000);
  expect(third!.at - second!.at).toBeGreaterThanOrEqual(RETRY_SCHEDULE_MS[2]! * 0.8);
  expect(third!.at - second!.at).toBeLessThanOrEqual(RETRY_SCHEDULE_MS[2]! * 1.2);
  // Same id, fresh timestamp, each verified by the specification's library.
  expect(new Set(w.sent.map((s) => s.headers['webhook-id']))).toEqual(new Set([m._id]));
  expect(new Set(w.sent.map((s) => s.headers['webhook-timestamp'])).size).toBe(3);
  // (Signed at the test server's time, days from now: the library's own verify would refuse the timestamp as stale.)
  for (const s of w.sent) expect(s.headers['webhook-signature']).toBe(new Webhook(w.secret).sign(m._id, new Date(Number(s.headers['webhook-timestamp']) * 1000), s.body));
  expect(w.attempts.map((a) => [a.attempt, a.status])).toEqual([
    [1, 503],
    [2, 500],
    [3, 204],
  ]);
  expect(w.attempts[0]!.requestHeaders['webhook-signature']).toBe('(1 signature)');
  expect(JSON.stringify(w.attempts)).not.toContain(w.secret.slice(6));
  expect(w.endpoints.get('we_busy')!.failingSince).toBeNull();
  expect(w.messages.get(m._id)).toMatchObject({ state: 'delivered', attempts: 3 });
  await record('webhookMessageWorkflow-local')(workflowIds.webhookMessage(m._id));
});

it('410 Gone disables the endpoint (reason gone) and ends the message; another message of it then ends unsent', async () => {
  const w = world();
  w.endpoint('we_gone');
  const m = w.message('we_gone');
  w.script.set('we_gone', [failure(410)]);

  expect(await deliver(w, [m._id])).toEqual([{ state: 'failed', attempts: 1 }]);
  expect(w.endpoints.get('we_gone')).toMatchObject({ state: 'disabled', disabledReason: 'gone' });
  expect(w.activities.disableEndpoint.mock.calls).toEqual([[{ endpointId: 'we_gone', reason: 'gone' }]]);
  expect(w.mail).toEqual([]);

  const later = w.message('we_gone');
  expect(await deliver(w, [later._id])).toEqual([{ state: 'cancelled', attempts: 0 }]);
  expect(w.sent).toHaveLength(1);
  expect(w.messages.get(later._id)!.state).toBe('cancelled');
});

it('an endpoint failing every delivery for five days is disabled (reason failing) and its owner mailed once; its other messages end unsent', async () => {
  const w = world();
  const start = await suite.env.currentTimeMs();
  // Failing for four days already when this message comes.
  w.endpoint('we_down', { failingSince: new Date(start - 4 * DAY) });
  const a = w.message('we_down');
  const b = w.message('we_down');
  w.script.set('we_down', Array.from({ length: 40 }, () => failure(502)));

  expect(await deliver(w, [a._id])).toEqual([{ state: 'cancelled', attempts: expect.any(Number) }]);
  expect(w.endpoints.get('we_down')).toMatchObject({ state: 'disabled', disabledReason: 'failing' });
  // Disabled at the first attempt past the fifth failing day, not before.
  const disabledAt = w.endpoints.get('we_down')!.updatedAt.getTime();
  expect(disabledAt - (start - 4 * DAY)).toBeGreaterThanOrEqual(5 * DAY);
  expect(w.sent.every((s) => s.at <= disabledAt)).toBe(true);
  expect(w.mail).toHaveLength(1);
  expect(w.mail[0]).toMatchObject({ to: 'acct-1@example.com', subject: 'Webhook endpoint disabled: https://hooks.example/we_down' });
  expect(w.mail[0]!.text).toContain('we_down');

  // The other message ends at its next attempt, unsent; another message's workflow disabling it
  // at the same time (its own attempt raced this one) mails nobody again.
  const sentBefore = w.sent.length;
  expect(await deliver(w, [b._id])).toEqual([{ state: 'cancelled', attempts: 0 }]);
  expect(w.sent).toHaveLength(sentBefore);
  expect(await w.activities.disableEndpoint({ endpointId: 'we_down', reason: 'failing' })).toEqual({ disabled: false, mailed: false });
  expect(w.mail).toHaveLength(1);
});

it('a failing streak shorter than five days disables nothing; the schedule exhausted fails the message for good', async () => {
  const w = world();
  w.endpoint('we_flaky');
  const m = w.message('we_flaky');
  w.script.set('we_flaky', Array.from({ length: RETRY_SCHEDULE_MS.length }, () => failure(500)));

  expect(await deliver(w, [m._id])).toEqual([{ state: 'failed', attempts: RETRY_SCHEDULE_MS.length }]);
  expect(w.endpoints.get('we_flaky')).toMatchObject({ state: 'enabled', failingSince: expect.any(Date) });
  expect(w.messages.get(m._id)!.state).toBe('failed');
  expect(w.mail).toEqual([]);

  // A replay of the failed message: one attempt, the same webhook-id; its success clears the streak, the message delivered.
  const [replayed] = await deliver(w, [m._id], true);
  expect(replayed).toEqual({ state: 'delivered', attempts: 1 });
  expect(w.sent[w.sent.length - 1]!.headers['webhook-id']).toBe(m._id);
  expect(w.attempts[w.attempts.length - 1]).toMatchObject({ replay: true, attempt: RETRY_SCHEDULE_MS.length + 1, status: 204 });
  expect(w.endpoints.get('we_flaky')!.failingSince).toBeNull();
  expect(w.messages.get(m._id)!.state).toBe('delivered');
  await record('webhookMessageWorkflow-replay-local')(workflowIds.webhookReplay(m._id, 'r1'));
});

it('an endpoint disabled by its owner or removed ends a pending message at its next attempt, unsent', async () => {
  const w = world();
  w.endpoint('we_off', { state: 'disabled', disabledReason: 'owner' });
  const off = w.message('we_off');
  const orphan = w.message('we_removed');
  expect(await deliver(w, [off._id])).toEqual([{ state: 'cancelled', attempts: 0 }]);
  expect(await deliver(w, [orphan._id])).toEqual([{ state: 'cancelled', attempts: 0 }]);
  expect(w.sent).toEqual([]);
  expect(w.attempts).toEqual([]);
});

it('the fan-out reads the endpoints page after page, then marks its event dispatched; the relay calls its activity', async () => {
  const w = world();
  const pages: Record<string, { messages: number; next: string | null }> = { first: { messages: 200, next: 'we_199' }, we_199: { messages: 150, next: 'we_399' }, we_399: { messages: 0, next: null } };
  w.activities.fanOutPage.mockImplementation(async (input: { after: string | null }) => pages[input.after ?? 'first']);
  w.activities.markDispatched.mockResolvedValue(undefined);
  w.activities.forwardUndispatchedEvents.mockResolvedValue({ forwarded: 3 });
  const { taskQueue, run } = await mockedActivitiesWorker(suite.env, w.activities, { bundle: suite.bundle });
  const eventKey = `article:${newWebhookMessageId()}`;

  const result = await run(() => suite.client.execute(webhookFanOutWorkflow, { taskQueue, workflowId: workflowIds.webhookFanOut(eventKey), args: [{ eventKey }] }));
  expect(result).toEqual({ messages: 350, pages: 3 });
  expect(w.activities.fanOutPage.mock.calls.map(([i]) => i)).toEqual([
    { eventKey, after: null, limit: 200 },
    { eventKey, after: 'we_199', limit: 200 },
    { eventKey, after: 'we_399', limit: 200 },
  ]);
  expect(w.activities.markDispatched.mock.calls).toEqual([[{ eventKey }]]);
  await record('webhookFanOutWorkflow')(workflowIds.webhookFanOut(eventKey));

  const relayId = `webhook-fanout-relay-${newWebhookMessageId()}`;
  const relayWorker = await mockedActivitiesWorker(suite.env, w.activities, { bundle: suite.bundle, taskQueue: `${taskQueue}-relay` });
  expect(await relayWorker.run(() => suite.client.execute(webhookRelayWorkflow, { taskQueue: relayWorker.taskQueue, workflowId: relayId, args: [{ olderThanMs: 30_000, limit: 1_000 }] }))).toEqual({ forwarded: 3 });
  expect(w.activities.forwardUndispatchedEvents.mock.calls).toEqual([[{ olderThanMs: 30_000, limit: 1_000 }]]);
  await record('webhookRelayWorkflow')(relayId);
});
