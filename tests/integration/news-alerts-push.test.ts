/**
 * Breaking alerts by Web Push (issue 40) on the real stack, with the push double as the push
 * service and the browser: a reader subscribes a browser through the dashboard's API (the
 * subscription the double made, as PushManager.subscribe would), and the breaking article of their
 * sector reaches it encrypted (the double decrypts it: the title is the article's), not by e-mail;
 * a reader with push on and no browser subscribed gets the mail. A browser the push service answers
 * 410 for is removed at the next alert; one answered 503 fails the batch, which Temporal retries
 * with only that browser (the ledger in the heartbeat details: the other is not pushed twice). The API's attacks: keys that cannot be encrypted to, private
 * and plain-http endpoints, another reader's subscription, a browser past the cap.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import request from 'supertest';
import { pushDoubleControl } from '../doubles/push-double';
import { startNewsService } from '../helpers/news';
import { messagesTo, waitForMessagesTo } from '../helpers/mailpit';
import { killGroup, startOwnWorker } from '../helpers/processes';
import { testConfig, tokenFor } from '../helpers/service';
import { Browser, startWebService } from '../helpers/web';

jest.setTimeout(180_000);

it('pushes the breaking alert to the subscribed browser (decrypted by the double), mails the reader with no browser, removes a gone one, and refuses the attacks with nothing stored', async () => {
  const run = randomUUID().slice(0, 6);
  const env = { TASK_QUEUE_PREFIX: `push-alerts-${run}-`, MONGODB_DB: `push_alerts_${run}` };
  const api = await startNewsService(env);
  const web = await startWebService(env);
  const double = pushDoubleControl(process.env.PUSH_DOUBLE_URL!, process.env.WEB_PUSH_CA_FILE!);
  let worker;
  try {
    worker = await startOwnWorker(env.TASK_QUEUE_PREFIX, testConfig(env), { ...env, WORKER_QUEUES: 'platform-ops,news-ingest,news-notify' });
    const signedIn = async (name: string) => {
      const browser = new Browser(web);
      const email = `${name}-${run}@example.com`;
      const userId = (await browser.signIn(email)).body.data.user.id as string;
      return { browser, email, userId };
    };
    const pusher = await signedIn('pusher');
    const noBrowser = await signedIn('no-browser');
    const attacker = await signedIn('attacker');
    for (const reader of [pusher, noBrowser]) await api.deps.preferences.update(reader.userId, { $set: { sectors: ['ENE'], 'notificationSettings.push': true } });

    // The page's first call: the key to subscribe with.
    const info = (await pusher.browser.get('/api/account/push').expect(200)).body.data;
    expect(info).toEqual({ configured: true, publicKey: process.env.WEB_PUSH_VAPID_PUBLIC_KEY, limit: 10, subscriptions: [] });

    // Two browsers of the pusher (the double restricts each to our key, as Chrome does).
    const laptop = await double.subscribe(info.publicKey);
    const phone = await double.subscribe(info.publicKey);
    const posted = await pusher.browser.post('/api/account/push/subscriptions', { endpoint: laptop.endpoint, expirationTime: null, keys: laptop.keys }).set('User-Agent', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36').expect(201);
    expect(posted.body.data).toMatchObject({ id: expect.stringMatching(/^ps_/), label: 'Chrome · Linux', service: new URL(laptop.endpoint).host, endpoint: laptop.endpoint, lastSuccessAt: null });
    await pusher.browser.post('/api/account/push/subscriptions', { endpoint: phone.endpoint, keys: phone.keys }).expect(201);
    // The same browser again is the same subscription.
    expect((await pusher.browser.post('/api/account/push/subscriptions', { endpoint: laptop.endpoint, keys: laptop.keys }).expect(201)).body.data.id).toBe(posted.body.data.id);
    // What was mailed to a reader besides their sign-in code.
    const alertsMailedTo = async (to: string) => (await messagesTo(to)).filter((m) => !m.subject.startsWith('Your sign-in code'));
    const listed = async (b: Browser) => (await b.get('/api/account/push').expect(200)).body.data.subscriptions as { id: string; endpoint: string }[];
    expect((await listed(pusher.browser)).map((s) => s.endpoint).sort()).toEqual([laptop.endpoint, phone.endpoint].sort());

    // The attacks: each a 400 (or 404, 409) with nothing stored or removed.
    const other = await double.subscribe(info.publicKey);
    const attacks: [object, number][] = [
      [{ endpoint: other.endpoint, keys: { ...other.keys, p256dh: 'BAAA' } }, 400],
      [{ endpoint: other.endpoint, keys: { ...other.keys, auth: 'AAAAAAAAAAA' } }, 400],
      [{ endpoint: other.endpoint, keys: { p256dh: other.keys.p256dh } }, 400],
      [{ endpoint: 'https://10.0.0.8/push/abc', keys: other.keys }, 400],
      [{ endpoint: 'https://169.254.169.254/latest/meta-data', keys: other.keys }, 400],
      [{ endpoint: 'https://127.0.0.1:1/push/abc', keys: other.keys }, 400],
      [{ endpoint: other.endpoint.replace('https:', 'http:'), keys: other.keys }, 400],
      [{ endpoint: 'javascript:alert(1)', keys: other.keys }, 400],
      [{ endpoint: `https://${'a'.repeat(3000)}.example/`, keys: other.keys }, 400],
      // The pusher's endpoint with the attacker's keys: pushes to that browser would be the attacker's to read.
      [{ endpoint: laptop.endpoint, keys: other.keys }, 409],
    ];
    for (const [body, status] of attacks) {
      const res = await attacker.browser.post('/api/account/push/subscriptions', body).expect(status);
      expect(res.body).toMatchObject({ success: false });
    }
    expect(await listed(attacker.browser)).toEqual([]);
    const theirs = (await listed(pusher.browser)).find((s) => s.endpoint === phone.endpoint)!;
    await attacker.browser.delete(`/api/account/push/subscriptions/${theirs.id}`).expect(404);
    await attacker.browser.delete('/api/account/push/subscriptions/not-an-id').expect(400);
    // Without the CSRF token (a cross-site form) nothing is removed either.
    await request(web.callback).delete(`/api/account/push/subscriptions/${theirs.id}`).set('Origin', web.origin).set('Cookie', pusher.browser.cookie).expect(403);
    expect(await listed(pusher.browser)).toHaveLength(2);
    // Ten browsers, then 409.
    for (let i = 0; i < 10; i++) {
      const s = await double.subscribe(info.publicKey);
      await attacker.browser.post('/api/account/push/subscriptions', { endpoint: s.endpoint, keys: s.keys }).expect(201);
    }
    const eleventh = await double.subscribe(info.publicKey);
    expect((await attacker.browser.post('/api/account/push/subscriptions', { endpoint: eleventh.endpoint, keys: eleventh.keys }).expect(409)).body).toMatchObject({ success: false });
    expect(await listed(attacker.browser)).toHaveLength(10);

    // A breaking article of the energy sector.
    const adminJwt = await tokenFor(`admin-${run}`, ['news.admin']);
    const importLine = async (i: number, title: string) => {
      const line = JSON.stringify({ title, summary: 'A Petrobras confirmou a descoberta hoje.', sourceName: 'Agência Teste', sourceUrl: `https://push.example/${run}/${i}`, publishedAt: new Date().toISOString(), primarySector: 'ENE', primaryTopic: 'CONTRACT', isBreaking: true, baseScore: 80 });
      const res = await request(api.callback).post('/api/admin/articles/import').set('Authorization', `Bearer ${adminJwt}`).set('Content-Type', 'application/x-ndjson').send(`${line}\n`).expect(202);
      const id = res.body.data.id as string;
      await api.deps.temporal.client.workflow.getHandle(`news-import-${id}`).result();
      const articleId = (await api.deps.imports.get(id))!.breakingIds![0]!;
      return { articleId, result: (await api.deps.temporal.client.workflow.getHandle(`news-alerts-${articleId}`).result()) as { push?: { recipients: number; sent: number; gone: number }; email: { recipients: number } } };
    };

    const first = await importLine(1, 'Petrobras anuncia descoberta no pré-sal');
    expect(first.result.push).toMatchObject({ recipients: 1, sent: 2, gone: 0 });
    expect(first.result.email.recipients).toBe(1);
    for (const browser of [laptop, phone]) {
      const [message, ...more] = await double.messages(browser.id);
      expect(more).toEqual([]);
      expect(JSON.parse(message!.text)).toMatchObject({ title: 'Urgente: Petrobras anuncia descoberta no pré-sal', url: `https://push.example/${run}/1` });
      expect(message).toMatchObject({ urgency: 'high', ttl: 14_400, topic: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/), vapid: { publicKey: info.publicKey } });
    }
    // One alert per reader and article: the pusher is not mailed; the reader with no browser is.
    await waitForMessagesTo(noBrowser.email, { count: 2 });
    expect((await alertsMailedTo(noBrowser.email)).map((m) => m.subject)).toEqual(['Urgente: Petrobras anuncia descoberta no pré-sal']);
    expect(await alertsMailedTo(pusher.email)).toEqual([]);
    expect((await listed(pusher.browser)).every((s) => (s as { lastSuccessAt?: string }).lastSuccessAt)).toBe(true);

    // The phone's browser unsubscribed: the push service answers 410, and the subscription goes.
    await double.unsubscribe(phone.id);
    const second = await importLine(2, 'Leilão do pré-sal é adiado');
    expect(second.result.push).toMatchObject({ recipients: 1, sent: 1, gone: 1 });
    expect(await double.messages(laptop.id)).toHaveLength(2);
    expect((await listed(pusher.browser)).map((s) => s.endpoint)).toEqual([laptop.endpoint]);
    expect(await alertsMailedTo(pusher.email)).toEqual([]);

    // A push service that answers 503 once: the batch fails after the other browser took the
    // alert, Temporal retries it, and the retry pushes only the one not delivered (the ledger).
    const tablet = await double.subscribe(info.publicKey);
    await pusher.browser.post('/api/account/push/subscriptions', { endpoint: tablet.endpoint, keys: tablet.keys }).expect(201);
    await double.faults(laptop.id, [{ status: 503 }]);
    const third = await importLine(3, 'Petrobras eleva produção no pré-sal');
    expect(third.result.push).toMatchObject({ recipients: 1, sent: 1, gone: 0 });
    const titles = async (id: string) => (await double.messages(id)).map((m) => JSON.parse(m.text).title as string);
    expect(await titles(tablet.id)).toEqual(['Urgente: Petrobras eleva produção no pré-sal']);
    expect((await titles(laptop.id)).filter((t) => t.includes('eleva produção'))).toHaveLength(1);

    // The reader removes their browsers: push stays on, but nothing reaches them by push.
    for (const s of await listed(pusher.browser)) expect((await pusher.browser.delete(`/api/account/push/subscriptions/${s.id}`).expect(200)).body.data.id).toBe(s.id);
    expect(await listed(pusher.browser)).toEqual([]);

    if (process.env.RECORD_HISTORY === '1') {
      const dir = path.resolve(__dirname, '../fixtures/histories');
      writeFileSync(path.join(dir, 'newsAlertsWorkflow-push.json'), `${historyToJSON(await api.deps.temporal.client.workflow.getHandle(`news-alerts-${second.articleId}`).fetchHistory())}\n`);
    }
  } finally {
    killGroup(worker);
    await double.close();
    await api.deps.mongo.conn.dropDatabase().catch(() => undefined);
    await web.close();
    await api.close();
  }
});
