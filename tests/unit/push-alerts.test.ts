/**
 * Breaking alerts by Web Push (issue 40) with the push double in this process and the
 * subscriptions in memory: what a browser decrypts (title, body, address), the push's TTL,
 * urgency and article topic; a gone subscription removed; a batch with a push to retry fails after
 * the others went, and its retry sends only what was not delivered (the ledger). Then the
 * subscription use cases' refusals (400 with nothing stored, 409 past the cap or for other keys,
 * 404 for another reader's), and the payload and label rules.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '../../models/errors';
import { createWebPush, generateVapidKeys, type WebPush } from '../../models/infra/web-push';
import type { PushSubscriptionDoc } from '../../models/news/push-subscription.repo';
import { browserLabel, pushAlertPayload, PUSH_ALERT_TTL_SECONDS, PUSH_SUBSCRIPTIONS_PER_READER } from '../../models/news/push-subscription.rules';
import { pushTopic, sendPushAlerts, type PushAlertsDeps } from '../../operations/news/push-alerts';
import { listPushSubscriptions, subscribePush, unsubscribePush, type PushSubscriptionDeps } from '../../operations/news/push-subscriptions';
import { pushDoubleControl, startPushDouble, type PushDouble } from '../doubles/push-double';

let certDir: string;
let double: PushDouble;
let control: ReturnType<typeof pushDoubleControl>;
let push: WebPush;
const vapid = { subject: 'mailto:push@newsletter.example', ...generateVapidKeys() };
const ARTICLE = { title: 'Copom sobe a Selic para 12%', summary: 'O Comitê de Política Monetária elevou a taxa básica em meio ponto, a terceira alta seguida.', sourceName: 'Agência Teste', sourceUrl: 'https://news.example/copom', publishedAt: new Date() };

beforeAll(async () => {
  certDir = mkdtempSync(path.join(os.tmpdir(), 'push-alerts-test-'));
  double = await startPushDouble(0, { certDir });
  control = pushDoubleControl(double.url, double.caFile);
  push = createWebPush({ vapid, caFile: double.caFile, timeoutMs: 2000 });
});
afterAll(async () => {
  push.close();
  await control.close();
  await double.close();
  rmSync(certDir, { recursive: true, force: true });
});

/** The repository's behaviour over a Map (the real one is tested on the stack). */
function memoryRepo(initial: PushSubscriptionDoc[] = []) {
  const docs = new Map(initial.map((d) => [d._id, d]));
  return {
    docs,
    get: async (id: string) => docs.get(id) ?? null,
    insert: async (d: PushSubscriptionDoc) => (docs.has(d._id) ? false : (docs.set(d._id, d), true)),
    refresh: async (id: string, expect: Pick<PushSubscriptionDoc, 'userId' | 'keys'>, set: Pick<PushSubscriptionDoc, 'userId' | 'keys' | 'label'>) => {
      const d = docs.get(id);
      if (!d || d.userId !== expect.userId || d.keys.auth !== expect.keys.auth) return null;
      const next = { ...d, ...set };
      docs.set(id, next);
      return next;
    },
    countForUser: async (userId: string) => [...docs.values()].filter((d) => d.userId === userId).length,
    listForUser: async (userId: string) => [...docs.values()].filter((d) => d.userId === userId),
    listForUsers: async (ids: readonly string[]) => [...docs.values()].filter((d) => ids.includes(d.userId)),
    remove: async (userId: string, id: string) => {
      const d = docs.get(id);
      if (!d || d.userId !== userId) return null;
      docs.delete(id);
      return d;
    },
    removeGone: async (id: string) => docs.delete(id),
    markDelivered: async (id: string, at: Date) => void (docs.has(id) && docs.set(id, { ...docs.get(id)!, lastSuccessAt: at })),
  };
}

const subscribed = async (userId: string, n = 1) =>
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const s = await control.subscribe(vapid.publicKey);
      return { doc: { _id: `ps_${userId}_${i}_${s.id.slice(0, 6)}`, userId, endpoint: s.endpoint, keys: s.keys, label: 'Chrome · Linux', createdAt: new Date(), lastSuccessAt: null } satisfies PushSubscriptionDoc, id: s.id };
    }),
  );

const attempt = (delivered: string[] = []) => {
  const ledgers: string[][] = [];
  return { signal: new AbortController().signal, delivered, progress: (d: string[]) => void ledgers.push(d), ledgers };
};

describe('sendPushAlerts', () => {
  it("pushes to each of a reader's browsers what they decrypt: the headline in their language, a short body, the article's address; 4 h TTL, urgency high, the article's topic", async () => {
    const [a, b] = await subscribed('ana', 2);
    const [c] = await subscribed('bob');
    const repo = memoryRepo([a!.doc, b!.doc, c!.doc]);
    const deps: PushAlertsDeps = { articles: { alertArticle: async () => ARTICLE }, pushSubscriptions: repo, webPush: push, now: () => new Date('2026-11-27T03:00:00Z') };
    const result = await sendPushAlerts(deps, { articleId: 'art-1', recipients: [{ userId: 'ana', language: 'pt' }, { userId: 'bob', language: 'en' }, { userId: 'nobody', language: 'pt' }] }, attempt());

    expect(result).toEqual({ sent: 3, gone: 0, refused: 0, skipped: 0, unsubscribed: 1 });
    const [toAna] = await control.messages(a!.id);
    expect(JSON.parse(toAna!.text)).toEqual({ title: 'Urgente: Copom sobe a Selic para 12%', body: expect.stringMatching(/^O Comitê de Política Monetária .* — Agência Teste$/), url: 'https://news.example/copom', tag: 'article-art-1', lang: 'pt' });
    expect(toAna).toMatchObject({ ttl: PUSH_ALERT_TTL_SECONDS, urgency: 'high', topic: pushTopic('art-1') });
    expect(JSON.parse((await control.messages(b!.id))[0]!.text).title).toBe('Urgente: Copom sobe a Selic para 12%');
    expect(JSON.parse((await control.messages(c!.id))[0]!.text).title).toBe('Breaking: Copom sobe a Selic para 12%');
    expect(repo.docs.get(a!.doc._id)!.lastSuccessAt).toEqual(new Date('2026-11-27T03:00:00Z'));
  });

  it('removes a subscription answered 410 or 404, and keeps the reader’s others', async () => {
    const [gone, kept] = await subscribed('carla', 2);
    await control.unsubscribe(gone!.id);
    const unknown = { ...(await subscribed('carla'))[0]!.doc, _id: 'ps_unknown', endpoint: `${double.url}/push/nobody` };
    const repo = memoryRepo([gone!.doc, kept!.doc, unknown]);
    const result = await sendPushAlerts({ articles: { alertArticle: async () => ARTICLE }, pushSubscriptions: repo, webPush: push, now: () => new Date() }, { articleId: 'art-2', recipients: [{ userId: 'carla', language: 'pt' }] }, attempt());
    expect(result).toMatchObject({ sent: 1, gone: 2 });
    expect([...repo.docs.keys()]).toEqual([kept!.doc._id]);
  });

  it('a push to retry fails the batch after the others went; the retry, given the ledger, pushes only that one', async () => {
    const [ok, busy] = await subscribed('dora', 2);
    await control.faults(busy!.id, [{ status: 503, retryAfter: '1' }]);
    const repo = memoryRepo([ok!.doc, busy!.doc]);
    const deps: PushAlertsDeps = { articles: { alertArticle: async () => ARTICLE }, pushSubscriptions: repo, webPush: push, now: () => new Date() };
    const input = { articleId: 'art-3', recipients: [{ userId: 'dora', language: 'pt' as const }] };
    const first = attempt();
    const failure = await sendPushAlerts(deps, input, first).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', message: expect.stringMatching(/503/) });
    expect(first.ledgers.at(-1)).toEqual([ok!.doc._id]);

    expect(await sendPushAlerts(deps, input, attempt(first.ledgers.at(-1)))).toEqual({ sent: 1, gone: 0, refused: 0, skipped: 1, unsubscribed: 0 });
    expect(await control.messages(ok!.id)).toHaveLength(1);
    expect(await control.messages(busy!.id)).toHaveLength(1);
  });

  it('counts and tells a push the service refuses (403: a subscription made for another key), not retried', async () => {
    const s = await control.subscribe(generateVapidKeys().publicKey);
    const doc: PushSubscriptionDoc = { _id: 'ps_other_key', userId: 'fred', endpoint: s.endpoint, keys: s.keys, label: 'Firefox · Linux', createdAt: new Date(), lastSuccessAt: null };
    const warnings: unknown[] = [];
    const deps: PushAlertsDeps = { articles: { alertArticle: async () => ARTICLE }, pushSubscriptions: memoryRepo([doc]), webPush: push, now: () => new Date(), warn: (message, meta) => void warnings.push({ message, ...meta }) };
    expect(await sendPushAlerts(deps, { articleId: 'art-5', recipients: [{ userId: 'fred', language: 'pt' }] }, attempt())).toMatchObject({ sent: 0, refused: 1 });
    expect(warnings).toEqual([expect.objectContaining({ message: 'a push was refused', subscriptionId: 'ps_other_key', status: 403 })]);
  });

  it('sends nothing when push is not configured here, or the article is gone', async () => {
    const [a] = await subscribed('eva');
    const repo = memoryRepo([a!.doc]);
    const input = { articleId: 'art-4', recipients: [{ userId: 'eva', language: 'pt' as const }] };
    expect(await sendPushAlerts({ articles: { alertArticle: async () => ARTICLE }, pushSubscriptions: repo, webPush: undefined, now: () => new Date() }, input, attempt())).toMatchObject({ sent: 0, unsubscribed: 1 });
    expect(await sendPushAlerts({ articles: { alertArticle: async () => null }, pushSubscriptions: repo, webPush: push, now: () => new Date() }, input, attempt())).toMatchObject({ sent: 0 });
    expect(await control.messages(a!.id)).toEqual([]);
  });
});

describe('subscribing a browser', () => {
  const KEYS = { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg' };
  const deps = (repo = memoryRepo(), production = false): PushSubscriptionDeps & { repo: ReturnType<typeof memoryRepo> } => ({
    repo,
    pushSubscriptions: repo,
    webPush: { publicKey: vapid.publicKey, allowHosts: ['127.0.0.1:4433'], production },
    // Every name resolves to a public address, except the ones named private.
    lookup: async (host) => [{ address: host.startsWith('private') ? '10.0.0.7' : '142.250.0.1', family: 4 }],
    now: () => new Date('2026-11-27T03:00:00Z'),
  });
  const sub = (endpoint: string, keys = KEYS) => ({ userId: 'ana', endpoint, keys, userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36' });
  const refusal = async (d: PushSubscriptionDeps, input: Parameters<typeof subscribePush>[1]) => await subscribePush(d, input).then(() => null, (err: AppError) => err);

  it('stores a browser once with its label, lists it, and removes it for its reader only', async () => {
    const d = deps();
    const stored = await subscribePush(d, sub('https://fcm.googleapis.com/fcm/send/abc'));
    expect(stored).toMatchObject({ userId: 'ana', label: 'Chrome · Linux', lastSuccessAt: null });
    expect((await subscribePush(d, sub('https://fcm.googleapis.com/fcm/send/abc')))._id).toBe(stored._id);
    expect(await listPushSubscriptions(d, 'ana')).toHaveLength(1);
    await expect(unsubscribePush(d, 'bob', stored._id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(d.repo.docs.size).toBe(1);
    expect((await unsubscribePush(d, 'ana', stored._id))._id).toBe(stored._id);
    expect(d.repo.docs.size).toBe(0);
  });

  it.each([
    ['plain http', 'http://fcm.googleapis.com/fcm/send/abc', /https/],
    ['credentials', 'https://user:pw@fcm.googleapis.com/fcm/send/abc', /credentials/],
    ['a private address', 'https://10.1.2.3/push/abc', /10\.1\.2\.3/],
    ['loopback off the allow-list', 'https://127.0.0.1:8443/push/abc', /127\.0\.0\.1/],
    ['a name resolving to a private address', 'https://private.example/push/abc', /10\.0\.0\.7/],
    ['the metadata address', 'https://169.254.169.254/latest', /169\.254/],
    ['not a URL', 'fcm.googleapis.com/abc', /URL/],
  ])('refuses %s (400, nothing stored)', async (_, endpoint, reason) => {
    const d = deps();
    expect(await refusal(d, sub(endpoint))).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(reason) });
    expect(d.repo.docs.size).toBe(0);
  });

  it('refuses in production a host that is not a known push service', async () => {
    const d = deps(memoryRepo(), true);
    expect(await refusal(d, sub('https://push.attacker.example/abc'))).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/not a known push service/) });
    expect(await subscribePush(d, sub('https://fcm.googleapis.com/fcm/send/abc'))).toMatchObject({ userId: 'ana' });
  });

  it.each([
    ['a short p256dh', { ...KEYS, p256dh: 'BAAA' }],
    ['a compressed point', { ...KEYS, p256dh: `A${KEYS.p256dh.slice(1)}` }],
    ['an auth of 8 bytes', { ...KEYS, auth: 'AAAAAAAAAAA' }],
    ['keys that are not base64url', { ...KEYS, auth: 'not base64!' }],
  ])('refuses %s (400, nothing stored)', async (_, keys) => {
    const d = deps();
    expect(await refusal(d, sub('https://fcm.googleapis.com/fcm/send/abc', keys))).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'keys' } });
    expect(d.repo.docs.size).toBe(0);
  });

  it(`refuses a browser past ${PUSH_SUBSCRIPTIONS_PER_READER} (409) and keeps the ten`, async () => {
    const d = deps();
    for (let i = 0; i < PUSH_SUBSCRIPTIONS_PER_READER; i++) await subscribePush(d, sub(`https://fcm.googleapis.com/fcm/send/${i}`));
    expect(await refusal(d, sub('https://fcm.googleapis.com/fcm/send/one-more'))).toMatchObject({ code: 'CONFLICT' });
    expect(d.repo.docs.size).toBe(PUSH_SUBSCRIPTIONS_PER_READER);
  });

  it("moves a browser to the reader now signed in only with its own keys: another's endpoint with other keys is refused (409)", async () => {
    const d = deps();
    const theirs = await subscribePush(d, { ...sub('https://fcm.googleapis.com/fcm/send/shared'), userId: 'bob' });
    expect(await refusal(d, sub('https://fcm.googleapis.com/fcm/send/shared', { ...KEYS, auth: 'AAAAAAAAAAAAAAAAAAAAAA' }))).toMatchObject({ code: 'CONFLICT' });
    expect(d.repo.docs.get(theirs._id)!.userId).toBe('bob');
    expect((await subscribePush(d, sub('https://fcm.googleapis.com/fcm/send/shared'))).userId).toBe('ana');
  });

  it('answers 503 when push is not configured', async () => {
    expect(await refusal({ ...deps(), webPush: undefined }, sub('https://fcm.googleapis.com/fcm/send/abc'))).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
  });
});

describe('the rules', () => {
  it('a payload: the prefix of the language, a body cut at 140 characters ending with the source', () => {
    const long = pushAlertPayload({ id: 'x', title: 'T', summary: 'palavra '.repeat(60), sourceName: 'Valor', url: 'https://v.example/a' }, 'en');
    expect(long.title).toBe('Breaking: T');
    expect(long.body.length).toBeLessThanOrEqual(140);
    expect(long.body).toMatch(/…\s—\sValor$/);
    expect(pushAlertPayload({ id: 'x', title: 'T', summary: null, sourceName: 'Valor', url: 'u' }, 'pt').body).toBe('Valor');
  });

  it('a topic is 32 base64url characters, one per article', () => {
    expect(pushTopic('a')).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(pushTopic('a')).not.toBe(pushTopic('b'));
  });

  it.each([
    ['Mozilla/5.0 (Android 14; Mobile; rv:132.0) Gecko/132.0 Firefox/132.0', 'Firefox · Android'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15', 'Safari · macOS'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0', 'Edge · Windows'],
    [undefined, 'Browser'],
  ])('labels %s as %s', (ua, label) => expect(browserLabel(ua)).toBe(label));
});
