/**
 * The dashboard's accounts and API over HTTP, against the real database and the Mailpit `npm test`
 * started (issue 26): sign-up by a mailed code, sessions in HttpOnly cookies, CSRF and same-origin
 * checks, rate limits, no account enumeration, and the account pages calling the same use cases as
 * the news API (a key made here works there, and its requests show in the usage here).
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { emailUserId } from '../../models/accounts/sign-in.rules';
import { createLogger } from '../../models/infra/logger';
import { fold } from '../../models/news/text.rules';
import { createUserRepo } from '../../models/users/user.repo';
import { latestCode, messagesTo } from '../helpers/mailpit';
import { startNewsService, type NewsService } from '../helpers/news';
import { CLOSED_PORT, eventually } from '../helpers/service';
import { Browser, startWebService, type WebService } from '../helpers/web';

let web: WebService;
let news: NewsService;

beforeAll(async () => {
  [web, news] = await Promise.all([startWebService(), startNewsService()]);
});
afterAll(async () => {
  await Promise.all([web?.close(), news?.close()]);
});

const address = () => `reader-${randomUUID().slice(0, 8)}@example.com`;
/** The session the browser has: 200 with the user, or 401 when signed out (as the page sees it). */
const sessionOf = (b: Browser) => ({
  expect: async (status: 200 | 401) => {
    const res = await b.get('/api/auth/session').expect(200);
    expect({ signedIn: res.body.data.user !== null }).toEqual({ signedIn: status === 200 });
    return res;
  },
});

describe('signing in by e-mail', () => {
  it('signs up with the mailed code: an HttpOnly SameSite cookie, the account, a session; the code works once', async () => {
    const b = new Browser(web);
    const email = address();
    const started = await b.post('/api/auth/sign-in', { email, locale: 'pt' }).expect(202);
    expect(started.body).toMatchObject({ success: true, data: { sent: true } });
    const code = await latestCode(email);
    const [mail] = await messagesTo(email);
    expect(mail!.subject).toContain(code);
    expect(mail!.text).toContain(`${web.origin}/sign-in#`);

    const res = await b.post('/api/auth/verify', { email, code }).expect(200);
    b.keep(res);
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('nl_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//i);
    expect(res.body.data.user).toEqual({ id: emailUserId(email), email, plan: 'starter' });
    expect(JSON.stringify(res.body)).not.toContain(cookie.split(';')[0]!.split('=')[1]);

    const me = await sessionOf(b).expect(200);
    expect(me.body.data.user.email).toBe(email);
    expect(me.headers['cache-control']).toBe('no-store');

    const again = await new Browser(web).post('/api/auth/verify', { email, code }).expect(401);
    expect(again.body).toMatchObject({ success: false, statusCode: 401, error: expect.stringMatching(/wrong or has expired/) });
  });

  it('makes the cookie Secure when the dashboard is served over HTTPS, and refuses plain HTTP there', async () => {
    const https = await startWebService({ WEB_URL: 'https://dash.example.com', TRUST_PROXY: 'true' });
    try {
      const email = address();
      const plain = await new Browser(https).post('/api/auth/sign-in', { email }).expect(403);
      expect(plain.body.error).toMatch(/HTTPS/);
      const b = new Browser(https, undefined, 'https');
      const res = await b.signIn(email);
      const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('nl_session='))!;
      expect(cookie).toMatch(/;\s*secure/i);
      await sessionOf(b).expect(200);
    } finally {
      await https.close();
    }
  });

  it('answers the same for an address with an account and one without', async () => {
    const known = address();
    await new Browser(web).signIn(known);
    const a = await new Browser(web).post('/api/auth/sign-in', { email: known, locale: 'en' }).expect(202);
    const b = await new Browser(web).post('/api/auth/sign-in', { email: address(), locale: 'en' }).expect(202);
    expect(a.body).toEqual(b.body);
  });

  it('throws a code away after five wrong tries', async () => {
    const email = address();
    const b = new Browser(web);
    await b.post('/api/auth/sign-in', { email }).expect(202);
    const code = await latestCode(email);
    const wrong = code === '111111' ? '222222' : '111111';
    for (let i = 0; i < 5; i++) await b.post('/api/auth/verify', { email, code: wrong }).expect(401);
    await b.post('/api/auth/verify', { email, code }).expect(401);
  });

  it('refuses malformed input with 400 and changes nothing', async () => {
    const b = new Browser(web);
    for (const body of [{}, { email: 'not-an-address' }, { email: `${'a'.repeat(250)}@example.com` }, { email: address(), extra: 1 }]) {
      const res = await b.post('/api/auth/sign-in', body).expect(400);
      expect(res.body).toMatchObject({ success: false, statusCode: 400, code: 'VALIDATION_FAILED' });
    }
    await b.post('/api/auth/verify', { email: address(), code: '12345' }).expect(400);
  });

  it('rotates the session at sign-in, signs out, and signs out everywhere', async () => {
    const email = address();
    const first = new Browser(web);
    await first.signIn(email);
    const oldCookie = first.cookie;
    // Signing in again in the same browser ends the session it had.
    await first.signIn(email);
    expect(first.cookie).not.toBe(oldCookie);
    const stale = new Browser(web);
    stale.cookie = oldCookie;
    await sessionOf(stale).expect(401);

    const second = new Browser(web);
    await second.signIn(email);
    const out = await first.post('/api/auth/sign-out').expect(200);
    expect(([] as string[]).concat(out.headers['set-cookie'] ?? []).join()).toMatch(/nl_session=;/);
    first.keep(out);
    await sessionOf(first).expect(401);
    await sessionOf(second).expect(200);

    const third = new Browser(web);
    await third.signIn(email);
    const ended = await third.post('/api/auth/sign-out-everywhere').expect(200);
    expect(ended.body.data.sessionsEnded).toBe(2);
    await sessionOf(second).expect(401);
  });

  it('links the address to the user whose token carried it (one user id across billing, WhatsApp and tokens)', async () => {
    const email = address();
    const users = createUserRepo(web.deps.mongo.conn);
    // As the news API makes a user from an identity provider's token (`sub`, `email`).
    const fromToken = `idp-${randomUUID().slice(0, 8)}`;
    await users.ensure(fromToken, email);
    const res = await new Browser(web).signIn(email);
    expect(res.body.data.user.id).toBe(fromToken);
    expect(await users.findById(fromToken)).toMatchObject({ email, emailVerifiedAt: expect.any(Date) });
  });

  it("lifts the readers' mail suppression of an address its owner proves again by signing in (issue 40)", async () => {
    const email = address();
    await web.deps.readerMail.suppress(email, 'bounce', '5.2.2 mailbox full', null, new Date());
    expect(await web.deps.readerMail.suppressedOf([email])).toEqual(new Set([email]));
    await new Browser(web).signIn(email);
    expect(await web.deps.readerMail.suppressedOf([email])).toEqual(new Set());
  });

  it('never adopts a user that only typed the address on WhatsApp, made before or after addresses were told apart (issue 35)', async () => {
    const email = address();
    const users = createUserRepo(web.deps.mongo.conn);
    // Made by a WhatsApp sign-up before the rule: the typed address stored as `email`, nothing proven.
    const legacy = `usr_wa_legacy_${randomUUID().slice(0, 8)}`;
    await users.ensure(legacy, email);
    // And after it: the typed address kept apart as unproven.
    const typed = `usr_wa_typed_${randomUUID().slice(0, 8)}`;
    await users.ensureWhatsAppSignUp(typed, { name: 'Mallory', email });
    expect(await users.findByVerifiedEmail(email)).toBeNull();

    const res = await new Browser(web).signIn(email);
    expect(res.body.data.user.id).toBe(emailUserId(email));
    expect((await users.findByVerifiedEmail(email))?._id).toBe(emailUserId(email));
    expect(await users.findById(typed)).toMatchObject({ unverifiedEmail: email, plan: 'starter' });
    expect((await users.findById(typed))?.email).toBeUndefined();
    // Signing in again keeps to that user.
    expect((await new Browser(web).signIn(email)).body.data.user.id).toBe(emailUserId(email));
  });

  it('limits codes asked for per address (429 with Retry-After) and per client IP', async () => {
    const limited = await startWebService({ WEB_SIGN_IN_PER_ADDRESS: '2', WEB_SIGN_IN_PER_IP: '3', TRUST_PROXY: 'true' });
    try {
      const b = new Browser(limited, `203.0.113.${1 + Math.floor(Math.random() * 250)}`);
      const email = address();
      await b.post('/api/auth/sign-in', { email }).expect(202);
      await b.post('/api/auth/sign-in', { email: email.toUpperCase() }).expect(202);
      const third = await b.post('/api/auth/sign-in', { email }).expect(429);
      expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
      expect(await messagesTo(email)).toHaveLength(2);
      await b.post('/api/auth/sign-in', { email: address() }).expect(429);
    } finally {
      await limited.close();
    }
  });

  it('logs no code, session, CSRF token or key, even at the most detailed level', async () => {
    const lines: string[] = [];
    const logger = createLogger({ name: 'web', level: 'trace', destination: { write: (line: string) => void lines.push(line) } });
    const logged = await startWebService({}, { logger });
    try {
      const b = new Browser(logged);
      const email = address();
      const since = new Date();
      await b.post('/api/auth/sign-in', { email }).expect(202);
      const code = await latestCode(email, since);
      await b.post('/api/auth/verify', { email, code: code === '000000' ? '000001' : '000000' }).expect(401);
      b.keep(await b.post('/api/auth/verify', { email, code }).expect(200));
      const key = (await b.post('/api/account/keys', { name: 'logged' }).expect(201)).body.data.key as string;
      await b.get('/api/account/keys').expect(200);
      const all = lines.join('');
      expect(lines.length).toBeGreaterThan(4);
      for (const secret of [code, b.cookie.split('=')[1]!, b.csrf, key]) expect(all).not.toContain(secret);
    } finally {
      await logged.close();
    }
  });

  it('answers 503 and keeps no code when the mail server is down', async () => {
    const down = await startWebService({ SMTP_URL: `smtp://127.0.0.1:${CLOSED_PORT}` });
    try {
      const email = address();
      const res = await new Browser(down).post('/api/auth/sign-in', { email }).expect(503);
      expect(res.body).toMatchObject({ success: false, statusCode: 503 });
      expect(await down.deps.accounts.findCode(email, new Date())).toBeNull();
    } finally {
      await down.close();
    }
  });
});

describe('CSRF and same-origin', () => {
  it('refuses a change without the CSRF token, from another origin, or with no origin at all, and makes nothing', async () => {
    const b = new Browser(web);
    await b.signIn(address());
    const noToken = await request(web.callback).post('/api/account/keys').set('Origin', web.origin).set('Cookie', b.cookie).send({ name: 'x' }).expect(403);
    expect(noToken.body.error).toMatch(/CSRF/);
    await request(web.callback).post('/api/account/keys').set('Origin', 'https://evil.example').set('Cookie', b.cookie).set('X-CSRF-Token', b.csrf).send({ name: 'x' }).expect(403);
    await request(web.callback).post('/api/account/keys').set('Cookie', b.cookie).set('X-CSRF-Token', b.csrf).send({ name: 'x' }).expect(403);
    await request(web.callback).post('/api/auth/sign-in').set('Origin', 'https://evil.example').send({ email: address() }).expect(403);
    expect((await b.get('/api/account/keys').expect(200)).body.data).toEqual([]);
  });

  it('needs a session for every account page (401)', async () => {
    for (const path of ['/api/account/keys', '/api/account/usage', '/api/account/billing', '/api/account/preferences', '/api/account/reading', '/api/account/whatsapp']) {
      const res = await request(web.callback).get(path).expect(401);
      expect(res.body).toMatchObject({ success: false, statusCode: 401 });
    }
    expect((await request(web.callback).get('/api/auth/session').expect(200)).body.data).toEqual({ user: null, csrfToken: null, expiresAt: null, staff: false });
  });

  it('sends the security headers: CSP without inline scripts, no framing, no referrer', async () => {
    for (const path of ['/api/auth/session', '/health']) {
      const res = await request(web.callback).get(path);
      const csp = res.headers['content-security-policy'] as string;
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      // HSTS only in production (a development server on plain HTTP must not pin HTTPS).
      expect(res.headers['strict-transport-security']).toBeUndefined();
    }
  });
});

describe('the account pages', () => {
  it('creates a key shown once that works on the news API, counts its requests per day, and revokes it (401)', async () => {
    const b = new Browser(web);
    await b.signIn(address());
    const created = await b.post('/api/account/keys', { name: 'Integration', scopes: ['read:articles'], expiry: '30d' }).expect(201);
    const key = created.body.data.key as string;
    expect(key).toMatch(/^nws_live_/);
    expect(created.headers['cache-control']).toBe('no-store');
    const listed = await b.get('/api/account/keys').expect(200);
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect(listed.body.data[0]).toMatchObject({ name: 'Integration', status: 'active', prefix: key.slice(0, listed.body.data[0].prefix.length) });

    const today = new Date().toISOString().slice(0, 10);
    const before = (await b.get('/api/account/usage').expect(200)).body.data;
    expect(before.month).toMatchObject({ used: 0, limit: 500_000 });
    for (let i = 0; i < 3; i++) await request(news.callback).get('/api/articles').set('X-API-Key', key).expect(200);
    const after = (await b.get('/api/account/usage').expect(200)).body.data;
    expect(after.month.used).toBe(3);
    expect(after.days.find((d: { date: string }) => d.date === today)).toMatchObject({ total: 3, perKey: { [created.body.data.id]: 3 } });
    // This minute's count: the news process adds its local counts to the shared window every
    // RATE_LIMIT_SYNC_MS, so the dashboard sees them within that.
    const minuteUsed = async () => (await b.get('/api/account/usage').expect(200)).body.data.minute.used as number;
    expect(await eventually(minuteUsed, 3, 5_000)).toBe(3);
    const usage = (await b.get('/api/account/usage').expect(200)).body.data;
    expect(usage.keys).toEqual([{ id: created.body.data.id, name: 'Integration', prefix: expect.any(String), mode: 'live' }]);
    expect(usage).toMatchObject({ minute: { used: 3, remaining: after.perMinuteLimit - 3 }, sandbox: { used: 0, limit: 1_000 }, activeKeysLimit: 5 });

    await b.delete(`/api/account/keys/${created.body.data.id}`).expect(200);
    // Other API processes see a revocation within API_KEY_CACHE_SECONDS (5 s).
    const status = async () => (await request(news.callback).get('/api/articles').set('X-API-Key', key)).status;
    expect(await eventually(status, 401, 8_000)).toBe(401);
    await b.delete(`/api/account/keys/${randomUUID()}`).expect(404);
  });

  it('reads the plan and what each plan includes, and starts a Checkout through stripe-mock', async () => {
    const b = new Browser(web);
    await b.signIn(address());
    const billing = (await b.get('/api/account/billing').expect(200)).body.data;
    expect(billing.subscription).toMatchObject({ status: 'none', plan: 'starter' });
    expect(billing.plans.map((p: { plan: string }) => p.plan)).toEqual(['starter', 'pro', 'business']);
    expect(billing.plans[2]).toMatchObject({ perMonth: null, modules: expect.arrayContaining(['sentiment', 'entities']) });
    const checkout = await b.post('/api/account/billing/checkout', { plan: 'pro' }).expect(201);
    expect(checkout.body.data.url).toMatch(/^https:\/\//);
    await b.post('/api/account/billing/checkout', { plan: 'starter' }).expect(400);
  });

  it('replaces the preferences, finds companies in the catalogue, and reads the streak and quizzes', async () => {
    const b = new Browser(web);
    await b.signIn(address());
    const prefs = (await b.get('/api/account/preferences').expect(200)).body.data;
    const saved = await b.put('/api/account/preferences', { ...prefs, sectors: ['FIN', 'ENE'], sectorWeights: { FIN: 2 }, keywords: ['Petrobras'], keywordWeights: { Petrobras: 1.5 } }).expect(200);
    expect(saved.body.data).toMatchObject({ sectors: ['FIN', 'ENE'], sectorWeights: { FIN: 2, ENE: 1 }, keywords: ['Petrobras'] });
    await b.put('/api/account/preferences', { ...prefs, sectors: ['NOPE'] }).expect(400);
    expect((await b.get('/api/account/preferences').expect(200)).body.data.sectors).toEqual(['FIN', 'ENE']);

    const tag = randomUUID().slice(0, 6);
    const entity = { _id: randomUUID(), entityType: 'COMPANY' as const, canonicalName: `Ênfase Energia ${tag}`, aliases: [], ticker: null, cnpj: null, nameKeys: [fold(`Ênfase Energia ${tag}`)], createdAt: new Date() };
    await web.deps.entities.insertMany([entity]);
    const found = (await b.get(`/api/account/entities?q=${encodeURIComponent('enfase energia ' + tag)}`).expect(200)).body.data;
    expect(found).toEqual([{ id: entity._id, name: entity.canonicalName, ticker: null, type: 'COMPANY' }]);
    expect((await b.get(`/api/account/entities?ids=${entity._id}`).expect(200)).body.data).toEqual(found);
    expect((await b.get('/api/account/entities?q=%5E.*').expect(200)).body.data).toEqual([]);
    await b.get('/api/account/entities').expect(400);
    await b.get('/api/account/entities?q=ab%00cd').expect(400);

    const reading = (await b.get('/api/account/reading').expect(200)).body.data;
    expect(reading.streak).toMatchObject({ current: 0, longest: 0 });
    expect(reading.rules.totalQuestions).toBeGreaterThan(0);
    const whatsapp = (await b.get('/api/account/whatsapp').expect(200)).body.data;
    expect(whatsapp).toMatchObject({ linked: false, phone: null });
  });
});
