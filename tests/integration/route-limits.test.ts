/**
 * Every route has a rate limit (issue 24): bearer routes without a limit of their own count per
 * user, public routes per client IP, each with X-RateLimit-* and, past the limit, 429 with
 * Retry-After in the service's envelope. The limits come from configuration (3 a minute here).
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import request from 'supertest';
import Stripe from 'stripe';
import { startAiService, type AiService } from '../helpers/ai';
import { resolveResponse } from '../helpers/openapi-responses';
import { accountWithKey, startNewsService, type NewsService } from '../helpers/news';
import { startWebService, type WebService } from '../helpers/web';
import { testConfig, tokenFor } from '../helpers/service';

const LIMITS = {
  RATE_LIMIT_PER_USER_PER_MINUTE: '3',
  RATE_LIMIT_PER_IP_PER_MINUTE: '3',
  RATE_LIMIT_WEBHOOK_PER_MINUTE: '3',
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '5',
  RATE_LIMIT_SYNC_MS: '0',
  TRUST_PROXY: 'true',
};
/** A client address of its own for each test, so that no other request counts in its window. */
const someIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

let quiz: AiService;
let news: NewsService;
let web: WebService;
beforeAll(async () => {
  [quiz, news, web] = await Promise.all([startAiService(testConfig(LIMITS)), startNewsService(LIMITS), startWebService(LIMITS)]);
});
afterAll(async () => {
  await Promise.all([quiz?.close(), news?.close(), web?.close()]);
});

/** Sends `send` four times: three pass with the headers counting down, the fourth is 429. */
async function fourth(send: () => request.Test): Promise<request.Response> {
  for (const remaining of [2, 1, 0]) {
    const res = await send();
    expect(res.status).toBeLessThan(429);
    expect(res.headers['x-ratelimit-limit']).toBe('3');
    expect(res.headers['x-ratelimit-remaining']).toBe(String(remaining));
    expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
  }
  const refused = await send();
  expect(refused.status).toBe(429);
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(refused.headers['x-ratelimit-remaining']).toBe('0');
  return refused;
}

describe('routes without a limit of their own', () => {
  it('quiz routes count per user: the fourth request of a reader is 429, another reader is not affected', async () => {
    const reader = `Bearer ${await tokenFor(`limits-${randomUUID()}`)}`;
    const refused = await fourth(() => request(quiz.callback).get('/quiz/available').set('Authorization', reader));
    expect(refused.body).toEqual({ success: false, code: 'RATE_LIMITED', message: 'Rate limit exceeded: 3 requests per minute per user' });
    const other = await request(quiz.callback).get('/quiz/available').set('Authorization', `Bearer ${await tokenFor(`limits-${randomUUID()}`)}`);
    expect(other.status).toBe(200);
    expect(other.headers['x-ratelimit-remaining']).toBe('2');
  });

  it('news routes behind a bearer token count per user (keys, subscriptions)', async () => {
    const account = `Bearer ${await tokenFor(`limits-${randomUUID()}`)}`;
    let i = 0;
    // Alternating routes: one count per user, whichever route.
    const refused = await fourth(() => request(news.callback).get(i++ % 2 ? '/api/subscriptions/me' : '/api/keys').set('Authorization', account));
    expect(refused.body).toEqual({ success: false, code: 'RATE_LIMITED', statusCode: 429, error: 'Rate limit exceeded: 3 requests per minute per user' });
  });

  it('public routes count per client IP, even when they refuse the request', async () => {
    const ip = someIp();
    const verify = () => request(news.callback).get('/api/whatsapp/webhook').set('X-Forwarded-For', ip).query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'wrong', 'hub.challenge': '42' });
    const refused = await fourth(verify);
    expect(refused.body).toEqual({ success: false, code: 'RATE_LIMITED', statusCode: 429, error: 'Rate limit exceeded: 3 requests per minute per client IP' });
    const elsewhere = await verify().set('X-Forwarded-For', someIp());
    expect(elsewhere.status).toBe(403);
  });

  it('behind one proxy, a client that writes its own X-Forwarded-For entries still counts as the address the proxy saw', async () => {
    const seenByProxy = someIp();
    // Each request claims a new address on the left; the proxy appends the one it saw.
    const spoofed = () =>
      request(news.callback)
        .get('/api/whatsapp/webhook')
        .set('X-Forwarded-For', `${someIp()}, ${someIp()}, ${seenByProxy}`)
        .query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'wrong', 'hub.challenge': '42' });
    const refused = await fourth(spoofed);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', error: 'Rate limit exceeded: 3 requests per minute per client IP' });
  });

  it('signed webhooks count per sender IP once their signature holds (unsigned ones are refused and count nothing)', async () => {
    const ip = someIp();
    for (let i = 0; i < 5; i++) {
      expect((await request(news.callback).post('/api/subscriptions/webhook').set('X-Forwarded-For', ip).set('Content-Type', 'application/json').send('{}')).status).toBe(400);
    }
    const secret = news.deps.config.billing.webhookSecret!;
    const refused = await fourth(() => {
      const payload = JSON.stringify({ id: `evt_limits_${randomUUID()}`, object: 'event', type: 'charge.refunded', created: Math.floor(Date.now() / 1000), data: { object: { id: 'ch_1', object: 'charge' } } });
      return request(news.callback)
        .post('/api/subscriptions/webhook')
        .set('X-Forwarded-For', ip)
        .set('Content-Type', 'application/json')
        .set('Stripe-Signature', Stripe.webhooks.generateTestHeaderString({ payload, secret }))
        .send(payload);
    });
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', error: 'Rate limit exceeded: 3 deliveries per minute per client IP' });
  });

  it('routes with their own limit keep it (the AI limit, API keys)', async () => {
    const reader = `Bearer ${await tokenFor(`limits-${randomUUID()}`, ['ai.view'])}`;
    const res = await request(quiz.callback).get('/ai/usage').set('Authorization', reader);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe(String(quiz.deps.config.ai.rateLimitPerMinute));
  });

  it('documents 429 with Retry-After, and the X-RateLimit-* headers of the success, on every operation of both services', async () => {
    type Response = { headers?: Record<string, { $ref: string }> };
    for (const svc of [quiz, news]) {
      const doc = (await request(svc.callback).get('/openapi.json')).body as {
        paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
        components: { headers: Record<string, unknown> };
      };
      const undocumented = Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.entries(ops).flatMap(([method, op]) => {
          const success = Object.entries(op.responses).find(([s]) => s.startsWith('2'))![1];
          return [
            ...((resolveResponse(doc as never, op.responses['429'] as never, '').response as Response).headers?.['Retry-After'] ? [] : [`${method} ${path}: 429`]),
            ...(success.headers?.['X-RateLimit-Remaining'] ? [] : [`${method} ${path}: headers`]),
          ];
        }),
      );
      expect(undocumented).toEqual([]);
      // The rate limit's four, and the replay marker of Idempotency-Key (issue 34), nothing else.
      expect(Object.keys(doc.components.headers).filter((h) => h !== 'Idempotent-Replayed')).toEqual(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After']);
    }
  });
});

describe('failed authentication (issue 35)', () => {
  const TOO_MANY = 'Too many failed authentications: 5 a minute per client IP. Check the credentials you send, then retry after the time in Retry-After';

  /** Five failures count down in X-RateLimit-*, the sixth is 429 with Retry-After. */
  async function sixth(send: () => request.Test, failure: number): Promise<request.Response> {
    for (const remaining of [4, 3, 2, 1, 0]) {
      const res = await send();
      expect(res.status).toBe(failure);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(remaining));
    }
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    return refused;
  }

  it('news: random well-formed keys from one address are 401 five times, then 429 without a lookup, even for a valid key', async () => {
    const ip = someIp();
    const guess = () => request(news.callback).get('/api/articles').set('X-Forwarded-For', ip).set('X-API-Key', `nws_live_${randomBytes(24).toString('base64url')}`);
    const refused = await sixth(guess, 401);
    expect(refused.body).toMatchObject({ success: false, code: 'RATE_LIMITED', statusCode: 429, error: TOO_MANY });

    const { key } = await accountWithKey(news, 'starter');
    const lookups = jest.spyOn(news.deps.apiKeys, 'findByHashWithPlan');
    try {
      expect((await request(news.callback).get('/api/articles').set('X-Forwarded-For', ip).set('X-API-Key', key)).status).toBe(429);
      expect((await guess()).status).toBe(429);
      expect(lookups).not.toHaveBeenCalled();
      // Another address is not blocked.
      expect((await request(news.callback).get('/api/articles?limit=1').set('X-Forwarded-For', someIp()).set('X-API-Key', key)).status).toBe(200);
    } finally {
      lookups.mockRestore();
    }
  });

  it('quiz: forged bearer tokens from one address are 401 five times, then 429', async () => {
    const ip = someIp();
    const refused = await sixth(() => request(quiz.callback).get('/quiz/available').set('X-Forwarded-For', ip).set('Authorization', `Bearer eyJhbGciOiJIUzI1NiJ9.${randomBytes(16).toString('base64url')}.x`), 401);
    expect(refused.body).toMatchObject({ success: false, code: 'RATE_LIMITED', message: TOO_MANY });
    // A valid token from another address is served.
    const reader = `Bearer ${await tokenFor(`limits-${randomUUID()}`)}`;
    expect((await request(quiz.callback).get('/quiz/available').set('X-Forwarded-For', someIp()).set('Authorization', reader)).status).toBe(200);
  });

  it('web: made-up session cookies from one address are 401 five times, then 429', async () => {
    const ip = someIp();
    const refused = await sixth(() => request(web.callback).get('/api/account/keys').set('X-Forwarded-For', ip).set('Cookie', `nl_session=${randomBytes(32).toString('base64url')}`), 401);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', error: TOO_MANY });
  });
});
