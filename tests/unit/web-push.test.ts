/**
 * Our Web Push adapter (models/infra/web-push.ts) against the push double: what it sends, a
 * browser can read (the double decrypts it with its own RFC 8291 code), its VAPID token is one a
 * push service accepts, and each answer a push service can give comes back as the outcome the
 * caller acts on. The double runs in this process on a free port; nothing else is needed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createWebPush, generateVapidKeys, type WebPush } from '../../models/infra/web-push';
import { pushDoubleControl, startPushDouble, type PushDouble } from '../doubles/push-double';

const SEND = { ttlSeconds: 3600, urgency: 'normal' } as const;

let certDir: string;
let double: PushDouble;
let control: ReturnType<typeof pushDoubleControl>;
let push: WebPush;
const vapid = { subject: 'mailto:push@newsletter.example', ...generateVapidKeys() };

beforeAll(async () => {
  certDir = mkdtempSync(path.join(os.tmpdir(), 'web-push-test-'));
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

describe('a push the double takes', () => {
  it('arrives as the same JSON, with its TTL, urgency and topic, signed by our VAPID key', async () => {
    const sub = await control.subscribe();
    const payload = { title: 'Rates cut again', url: 'https://news.example/a/42', articleId: 'a42' };
    expect(await push.send(sub, payload, { ttlSeconds: 3600, urgency: 'high', topic: 'article-a42' })).toEqual({ kind: 'delivered' });
    const [message, ...more] = await control.messages(sub.id);
    expect(more).toEqual([]);
    expect(JSON.parse(message!.text)).toEqual(payload);
    expect(message).toMatchObject({ ttl: 3600, urgency: 'high', topic: 'article-a42', vapid: { subject: vapid.subject, publicKey: vapid.publicKey } });
  });

  it('is accepted on a subscription restricted to our application server key', async () => {
    const sub = await control.subscribe(push.publicKey);
    expect(await push.send(sub, { title: 'x' }, SEND)).toEqual({ kind: 'delivered' });
    expect(await control.messages(sub.id)).toHaveLength(1);
  });

  it('is refused (403) on a subscription made for another application server key', async () => {
    const sub = await control.subscribe(generateVapidKeys().publicKey);
    expect(await push.send(sub, { title: 'x' }, SEND)).toMatchObject({ kind: 'refused', status: 403 });
  });

  it('carries the largest payload that fits in one push, and refuses one byte more before sending', async () => {
    const sub = await control.subscribe();
    const fill = (bytes: number) => ({ t: 'x'.repeat(bytes - '{"t":""}'.length) });
    expect(await push.send(sub, fill(3993), SEND)).toEqual({ kind: 'delivered' });
    expect(await push.send(sub, fill(3994), SEND)).toMatchObject({ kind: 'refused', status: null, reason: expect.stringMatching(/3994 bytes/) });
    expect(await control.messages(sub.id)).toHaveLength(1);
  });
});

describe('what the push service answers', () => {
  it('gone for 410 (unsubscribed) and for 404 (no such subscription)', async () => {
    const sub = await control.subscribe();
    await control.unsubscribe(sub.id);
    expect(await push.send(sub, { title: 'x' }, SEND)).toEqual({ kind: 'gone', status: 410 });
    expect(await push.send({ ...sub, endpoint: `${double.url}/push/nobody` }, { title: 'x' }, SEND)).toEqual({ kind: 'gone', status: 404 });
  });

  it('retry after the asked wait for 429 with Retry-After (seconds and an HTTP date)', async () => {
    const sub = await control.subscribe();
    await control.faults(sub.id, [{ status: 429, retryAfter: '2' }, { status: 503, retryAfter: new Date(Date.now() + 30_000).toUTCString() }]);
    expect(await push.send(sub, { title: 'x' }, SEND)).toMatchObject({ kind: 'retry', status: 429, retryAfterMs: 2000 });
    const second = await push.send(sub, { title: 'x' }, SEND);
    expect(second).toMatchObject({ kind: 'retry', status: 503 });
    expect(second.kind === 'retry' && second.retryAfterMs).toBeGreaterThan(25_000);
  });

  it('retry without a wait for 500', async () => {
    const sub = await control.subscribe();
    await control.faults(sub.id, [{ status: 500 }]);
    const outcome = await push.send(sub, { title: 'x' }, SEND);
    expect(outcome).toMatchObject({ kind: 'retry', status: 500 });
    expect(outcome).not.toHaveProperty('retryAfterMs');
  });

  it('refused for 413 and 400, with what the service said', async () => {
    const sub = await control.subscribe();
    await control.faults(sub.id, [{ status: 413 }, { status: 400 }]);
    expect(await push.send(sub, { title: 'x' }, SEND)).toMatchObject({ kind: 'refused', status: 413, reason: expect.stringMatching(/413: .*scripted/) });
    expect(await push.send(sub, { title: 'x' }, SEND)).toMatchObject({ kind: 'refused', status: 400 });
    expect(await control.messages(sub.id)).toEqual([]);
  });

  it('refused for 401 (the service would not take our token)', async () => {
    const sub = await control.subscribe();
    await control.faults(sub.id, [{ status: 401 }]);
    expect(await push.send(sub, { title: 'x' }, SEND)).toMatchObject({ kind: 'refused', status: 401 });
  });
});

describe('when no answer comes', () => {
  it('retry when the server is down', async () => {
    // A port that was free a moment ago: nothing listens on it.
    const port = await new Promise<number>((resolve) => {
      const probe: Server = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port: p } = probe.address() as { port: number };
        probe.close(() => resolve(p));
      });
    });
    const sub = await control.subscribe();
    expect(await push.send({ ...sub, endpoint: `https://127.0.0.1:${port}/push/${sub.id}` }, { title: 'x' }, SEND)).toMatchObject({ kind: 'retry', status: null, reason: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('retry when the connection is reset or the service stays silent past the timeout', async () => {
    const sub = await control.subscribe();
    await control.faults(sub.id, [{ reset: true }, { delayMs: 3000 }]);
    expect(await push.send(sub, { title: 'x' }, SEND)).toMatchObject({ kind: 'retry', status: null });
    const started = Date.now();
    expect(await push.send(sub, { title: 'x' }, SEND)).toMatchObject({ kind: 'retry', status: null, reason: expect.stringMatching(/timeout/i) });
    expect(Date.now() - started).toBeLessThan(2900);
  });

  it('retry when the push service is not trusted (no CA file for the double)', async () => {
    const untrusting = createWebPush({ vapid, timeoutMs: 2000 });
    try {
      const sub = await control.subscribe();
      expect(await untrusting.send(sub, { title: 'x' }, SEND)).toMatchObject({ kind: 'retry', status: null, reason: expect.stringMatching(/certificate/i) });
      expect(await control.messages(sub.id)).toEqual([]);
    } finally {
      untrusting.close();
    }
  });
});

describe('our own checks before sending', () => {
  it('refuses broken subscription keys, a bad topic and a bad TTL without calling the service', async () => {
    const sub = await control.subscribe();
    expect(await push.send({ ...sub, keys: { ...sub.keys, p256dh: 'AAAA' } }, { title: 'x' }, SEND)).toMatchObject({ kind: 'refused', status: null, reason: expect.stringMatching(/p256dh/) });
    expect(await push.send({ ...sub, keys: { ...sub.keys, auth: 'AAAA' } }, { title: 'x' }, SEND)).toMatchObject({ kind: 'refused', status: null, reason: expect.stringMatching(/auth/) });
    expect(await push.send(sub, { title: 'x' }, { ...SEND, topic: 'not a topic!' })).toMatchObject({ kind: 'refused', status: null });
    expect(await push.send(sub, { title: 'x' }, { ...SEND, ttlSeconds: -1 })).toMatchObject({ kind: 'refused', status: null });
    expect(await control.messages(sub.id)).toEqual([]);
  });

  it('refuses an endpoint the policy does not allow, and sends to one it lists', async () => {
    const strict = createWebPush({ vapid, caFile: double.caFile, timeoutMs: 2000, endpointPolicy: { allowHosts: [], production: true } });
    const listed = createWebPush({ vapid, caFile: double.caFile, timeoutMs: 2000, endpointPolicy: { allowHosts: ['127.0.0.1'], production: true } });
    try {
      const sub = await control.subscribe();
      expect(await strict.send(sub, { title: 'x' }, SEND)).toMatchObject({ kind: 'refused', status: null, reason: expect.stringMatching(/not a known push service/) });
      expect(await listed.send(sub, { title: 'x' }, SEND)).toEqual({ kind: 'delivered' });
    } finally {
      strict.close();
      listed.close();
    }
  });

  it('fails at creation, not at each send, with a wrong VAPID configuration', () => {
    expect(() => createWebPush({ vapid: { ...vapid, subject: 'push@newsletter.example' }, timeoutMs: 1000 })).toThrow(/subject/i);
    expect(() => createWebPush({ vapid: { ...vapid, publicKey: 'AAAA' }, timeoutMs: 1000 })).toThrow(/public key/i);
  });
});
