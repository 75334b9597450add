/**
 * The shared plumbing of all three services, against the real dev services: health, envelopes,
 * request ids, body limits, 404/405, OpenAPI and docs.
 */
import { maxHeaderSize } from 'node:http';
import request from 'supertest';
import { newsService, makeNewsDeps } from '../../api/news/service';
import { createQuizService, makeQuizDeps } from '../../api/quiz/service';
import { supportService, makeSupportDeps } from '../../api/support/service';
import { CLOSED_PORT, startTestService, testConfig, tokenFor, type TestService } from '../helpers/service';
import type { Infra } from '../../api/shared/infra';
import type { SupportDeps } from '../../api/support/deps';
import type { QuizDeps } from '../../api/quiz/deps';

describe('platform plumbing (real MongoDB-protocol DB, Temporal, MinIO)', () => {
  let news: TestService<Infra>;
  let support: TestService<SupportDeps>;
  let quiz: TestService<QuizDeps>;

  beforeAll(async () => {
    [news, support, quiz] = await Promise.all([
      startTestService(newsService, makeNewsDeps),
      startTestService(supportService, makeSupportDeps),
      startTestService(createQuizService, (i) => makeQuizDeps(i)),
    ]);
  });
  afterAll(async () => {
    await Promise.all([news?.close(), support?.close(), quiz?.close()]);
  });

  it.each(['news', 'support', 'quiz'] as const)('%s: GET /health answers 200 with every dependency up', async (name) => {
    const svc = { news, support, quiz }[name];
    const res = await request(svc.callback).get('/health').expect(200);
    expect(res.body).toMatchObject({
      success: true,
      data: {
        status: 'ok',
        service: name,
        checks: { mongodb: { status: 'up' }, temporal: { status: 'up' }, minio: { status: 'up' } },
      },
    });
  });

  it('answers unknown routes with 404 in each service\'s envelope', async () => {
    const n = await request(news.callback).get('/api/nothing').expect(404);
    expect(n.body).toEqual({ success: false, error: 'Route not found: GET /api/nothing', statusCode: 404, code: 'ROUTE_NOT_FOUND' });
    const s = await request(support.callback).get('/support/x/y/z').expect(404);
    expect(s.body).toEqual({ success: false, message: 'Route not found: GET /support/x/y/z', error: 'ROUTE_NOT_FOUND' });
    const q = await request(quiz.callback).get('/quiz/nothing/here').expect(404);
    expect(q.body).toEqual({ success: false, message: 'Route not found: GET /quiz/nothing/here', code: 'ROUTE_NOT_FOUND' });
    const a = await request(quiz.callback).get('/ai/nothing').expect(404);
    expect(a.body).toEqual({ success: false, error: 'Route not found: GET /ai/nothing', code: 'ROUTE_NOT_FOUND' });
  });

  it('puts an X-Request-Id on every response and keeps a well-formed incoming one', async () => {
    const generated = await request(news.callback).get('/health');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await request(news.callback).get('/nothing').set('X-Request-Id', 'trace-abc.123');
    expect(kept.headers['x-request-id']).toBe('trace-abc.123');
    const replaced = await request(news.callback).get('/health').set('X-Request-Id', 'bad id with spaces <script>');
    expect(replaced.headers['x-request-id']).not.toContain(' ');
  });

  it('answers a wrong method on a known route with 405 and Allow', async () => {
    const res = await request(support.callback).get('/ops/smoke').expect(405);
    expect(res.body).toMatchObject({ success: false, error: 'METHOD_NOT_ALLOWED' });
    expect(res.headers.allow).toContain('POST');
  });

  it('rejects a body over the limit with 413 and malformed JSON with 400', async () => {
    const big = JSON.stringify({ blob: 'x'.repeat(1024 * 1024 + 10) });
    const tooLarge = await request(support.callback).post('/ops/smoke').set('Content-Type', 'application/json').send(big).expect(413);
    expect(tooLarge.body).toEqual({ success: false, message: 'Request body is too large', error: 'PAYLOAD_TOO_LARGE' });
    const malformed = await request(news.callback).post('/ops/smoke').set('Content-Type', 'application/json').send('{"a":').expect(400);
    expect(malformed.body).toMatchObject({ success: false, error: 'Malformed JSON body', statusCode: 400 });
  });

  it.each(['news', 'support', 'quiz'] as const)('%s serves /openapi.json (3.1) and a /docs page', async (name) => {
    const svc = { news, support, quiz }[name];
    const doc = await request(svc.callback).get('/openapi.json').expect(200).expect('Content-Type', /json/);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(doc.body.paths['/ops/smoke'].post.security).toEqual([{ bearerAuth: [] }]);
    const page = await request(svc.callback).get('/docs').expect(200).expect('Content-Type', /html/);
    expect(page.text).toContain('/openapi.json');
    await request(svc.callback).get('/docs/swagger-ui-bundle.js').expect(200).expect('Content-Type', /javascript/);
    await request(svc.callback).get('/docs/init.js').expect(200);
  });

  // Node refuses a request line and headers over http.maxHeaderSize (16 KiB) with an empty 431
  // before the app sees it. Each operation's parameters are bounded so that even one character
  // over every documented maxLength, in 4-byte characters (12 bytes each, percent-encoded), leaves
  // room for the headers: a fuzzer's or client's over-long value meets the app's 400, never a 431.
  it.each(['news', 'support', 'quiz'] as const)('%s: the longest URL its document allows fits the server\'s header limit', async (name) => {
    const svc = { news, support, quiz }[name];
    const doc = (await request(svc.callback).get('/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema?: { maxLength?: number } }[] }>>;
    };
    const token = await tokenFor('url-limit', ['*']);
    const overLong = (max: number) => '\u{FC200}'.repeat(max + 1);
    const problems: string[] = [];
    let checked = 0;
    for (const [template, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        if (!(op.parameters ?? []).some((p) => typeof p.schema?.maxLength === 'number')) continue;
        let path = template;
        const query = new URLSearchParams();
        for (const p of op.parameters ?? []) {
          const value = typeof p.schema?.maxLength === 'number' ? overLong(p.schema.maxLength) : 'x';
          if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(value));
          else if (p.in === 'query' && typeof p.schema?.maxLength === 'number') query.set(p.name, value);
        }
        const url = query.size ? `${path}?${query}` : path;
        const operation = `${method.toUpperCase()} ${template}`;
        if (Buffer.byteLength(url) > maxHeaderSize - 4096) problems.push(`${operation}: ${Buffer.byteLength(url)} bytes of URL`);
        const res = await request(svc.callback)[method as 'get'](url).set('Authorization', `Bearer ${token}`).set('X-API-Key', `nk_live_${'x'.repeat(48)}`);
        if (res.status === 431 || res.status >= 500) problems.push(`${operation}: ${res.status}`);
        checked += 1;
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(0);
  });
});

describe('health with a dependency down', () => {
  it('answers 503 naming MinIO when MinIO does not answer', async () => {
    const svc = await startTestService(supportService, makeSupportDeps, {
      config: testConfig({ MINIO_ENDPOINT: `http://127.0.0.1:${CLOSED_PORT}` }),
    });
    try {
      const res = await request(svc.callback).get('/health').expect(503);
      expect(res.body).toMatchObject({
        success: false,
        message: 'Unavailable: minio',
        error: 'DEPENDENCY_UNAVAILABLE',
        data: { checks: { minio: { status: 'down' }, mongodb: { status: 'up' }, temporal: { status: 'up' } } },
      });
    } finally {
      await svc.close();
    }
  });

  it('answers 503 naming Temporal when Temporal does not answer', async () => {
    const svc = await startTestService(newsService, makeNewsDeps, {
      config: testConfig({ TEMPORAL_ADDRESS: `127.0.0.1:${CLOSED_PORT}` }),
    });
    try {
      const res = await request(svc.callback).get('/health').expect(503);
      expect(res.body).toMatchObject({ success: false, error: 'Unavailable: temporal', statusCode: 503 });
    } finally {
      await svc.close();
    }
  });

  it('answers 503 naming MongoDB when the database does not answer', async () => {
    const svc = await startTestService(createQuizService, (i) => makeQuizDeps(i), {
      config: testConfig({ MONGODB_URI: `mongodb://127.0.0.1:${CLOSED_PORT}/` }),
      waitForMongo: false,
    });
    try {
      const res = await request(svc.callback).get('/health').expect(503);
      expect(res.body).toMatchObject({ success: false, message: 'Unavailable: mongodb' });
      // A route's rate limit counts in MongoDB: 503 at once, not a wait for the connection.
      const limited = await request(svc.callback).get('/quiz/available').set('Authorization', `Bearer ${await tokenFor('reader-down')}`).expect(503);
      expect(limited.body).toMatchObject({ success: false, code: 'DEPENDENCY_UNAVAILABLE', message: 'mongodb is unavailable, please retry later' });
    } finally {
      await svc.close();
    }
  });
});
