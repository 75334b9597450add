/**
 * The pure rules of Web Push sending (models/infra/web-push.rules.ts): which endpoints a
 * subscription may name, and what each answer of a push service means for the caller.
 */
import { classifyPushAnswer, isValidTopic, MAX_PUSH_PAYLOAD_BYTES, PUSH_RETRY_AFTER_CAP_MS, pushEndpointRefusal, subscriptionKeysRefusal } from '../../models/infra/web-push.rules';

describe('pushEndpointRefusal', () => {
  const production = { allowHosts: [] as string[], production: true };

  it.each([
    'https://fcm.googleapis.com/fcm/send/dXJs:APA91b',
    'https://updates.push.services.mozilla.com/wpush/v2/gAAAAA',
    'https://wns2-by3p.notify.windows.com/w/?token=BQYAAA',
    'https://web.push.apple.com/QGuQyavXutnMH',
    'https://FCM.googleapis.com:443/fcm/send/x',
  ])('lets production push to the known service %s', (url) => {
    expect(pushEndpointRefusal(url, production)).toBeNull();
  });

  it.each([
    ['http://fcm.googleapis.com/fcm/send/x', /https/],
    ['https://user:pw@fcm.googleapis.com/fcm/send/x', /credentials/],
    ['not a url', /not a valid URL/],
    ['https://push.services.mozilla.com/x', /not a known push service/],
    ['https://fcm.googleapis.com.evil.example/x', /not a known push service/],
    ['https://evilfcm.googleapis.com/x', /not a known push service/],
    ['https://169.254.169.254/latest/meta-data', /not a known push service/],
    ['https://fcm.googleapis.com:8443/x', /port 8443/],
  ])('refuses %s in production', (url, reason) => {
    expect(pushEndpointRefusal(url, production)).toMatch(reason);
  });

  it('lets production push to an allow-listed host (by host, or host and port), and development to any https host', () => {
    expect(pushEndpointRefusal('https://127.0.0.1:4443/push/a', { allowHosts: ['127.0.0.1:4443'], production: true })).toBeNull();
    expect(pushEndpointRefusal('https://127.0.0.1:4444/push/a', { allowHosts: ['127.0.0.1:4443'], production: true })).toMatch(/not a known push service/);
    expect(pushEndpointRefusal('https://push.internal.example/a', { allowHosts: ['push.internal.example'], production: true })).toBeNull();
    expect(pushEndpointRefusal('https://127.0.0.1:4443/push/a', { allowHosts: [], production: false })).toBeNull();
    // Development still wants https and no credentials.
    expect(pushEndpointRefusal('http://127.0.0.1:4443/push/a', { allowHosts: ['127.0.0.1'], production: false })).toMatch(/https/);
    expect(pushEndpointRefusal('https://a:b@127.0.0.1/push/a', { allowHosts: ['127.0.0.1'], production: false })).toMatch(/credentials/);
  });
});

describe('classifyPushAnswer', () => {
  const now = Date.parse('2026-11-26T12:00:00Z');

  it('delivered for 2xx, gone for 404 and 410', () => {
    expect(classifyPushAnswer(201, undefined, now)).toEqual({ kind: 'delivered' });
    expect(classifyPushAnswer(202, undefined, now)).toEqual({ kind: 'delivered' });
    expect(classifyPushAnswer(404, undefined, now)).toEqual({ kind: 'gone', status: 404 });
    expect(classifyPushAnswer(410, undefined, now)).toEqual({ kind: 'gone', status: 410 });
  });

  it('retry for 429, 408 and 5xx, with Retry-After in seconds or as a date, capped', () => {
    expect(classifyPushAnswer(429, '2', now)).toMatchObject({ kind: 'retry', status: 429, retryAfterMs: 2000 });
    expect(classifyPushAnswer(503, 'Thu, 26 Nov 2026 12:00:30 GMT', now)).toMatchObject({ kind: 'retry', status: 503, retryAfterMs: 30_000 });
    expect(classifyPushAnswer(429, String(24 * 3600), now)).toMatchObject({ retryAfterMs: PUSH_RETRY_AFTER_CAP_MS });
    expect(classifyPushAnswer(500, undefined, now)).not.toHaveProperty('retryAfterMs');
    expect(classifyPushAnswer(502, 'soon', now)).not.toHaveProperty('retryAfterMs');
    expect(classifyPushAnswer(408, undefined, now)).toMatchObject({ kind: 'retry', status: 408 });
  });

  it('refused for the other 4xx and for redirects, with the start of what the service said', () => {
    for (const status of [400, 401, 403, 413, 415, 301]) expect(classifyPushAnswer(status, undefined, now)).toMatchObject({ kind: 'refused', status });
    const said = classifyPushAnswer(400, undefined, now, `{"reason":"${'x'.repeat(500)}"}`);
    expect(said.kind === 'refused' && said.reason.length).toBeLessThan(260);
  });
});

describe('the checks of what we send', () => {
  it('knows a subscription key from a broken one', () => {
    const p256dh = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]).toString('base64url');
    const auth = Buffer.alloc(16, 1).toString('base64url');
    expect(subscriptionKeysRefusal({ p256dh, auth })).toBeNull();
    expect(subscriptionKeysRefusal({ p256dh: p256dh.slice(0, 40), auth })).toMatch(/p256dh/);
    expect(subscriptionKeysRefusal({ p256dh, auth: auth.slice(0, 10) })).toMatch(/auth/);
    expect(subscriptionKeysRefusal({ p256dh: `${p256dh}!`, auth })).toMatch(/base64url/);
  });

  it('knows a topic, and counts the payload a push carries as RFC 8291 does', () => {
    expect(isValidTopic('article-a42_x')).toBe(true);
    expect(isValidTopic('a'.repeat(33))).toBe(false);
    expect(isValidTopic('a b')).toBe(false);
    expect(MAX_PUSH_PAYLOAD_BYTES).toBe(3993);
  });
});
