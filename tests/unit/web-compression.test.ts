/**
 * Compression of every service's answers (api/shared/app.ts): which types, from what size, brotli
 * or gzip as the client asks, never Server-Sent Events, and always the last thing done to an
 * answer. The app is built by createApp itself, with a service of this test's and deps that open
 * no connection: no server but this test's.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type Koa from 'koa';
import request from 'supertest';
import { COMPRESS_THRESHOLD_BYTES, compressibleType, createApp, type ServiceDefinition } from '../../api/shared/app';
import { newsEnvelope } from '../../api/shared/envelope';
import type { Infra } from '../../api/shared/infra';
import { parseConfig } from '../../models/config';
import { createLogger } from '../../models/infra/logger';

const big = { items: Array.from({ length: 100 }, (_, i) => ({ id: i, title: `Article number ${i}` })) };
const EVENT = `event: delta\ndata: ${JSON.stringify({ content: 'x'.repeat(500) })}\n\n`;

/** The answers of this test's service, before routing (as a service's middleware). */
const answers: Koa.Middleware = async (ctx, next) => {
  switch (ctx.path) {
    case '/big':
      ctx.body = big;
      return;
    case '/small':
      ctx.body = { ok: true };
      return;
    case '/csv':
      ctx.type = 'text/csv; charset=utf-8';
      ctx.body = 'id,title\n'.repeat(300);
      return;
    case '/png':
      ctx.type = 'image/png';
      ctx.body = Buffer.alloc(4096, 1);
      return;
    case '/events': {
      // As the AI chat streams (api/ai/chat.routes.ts): a PassThrough written event by event.
      const out = new PassThrough();
      ctx.status = 200;
      ctx.type = 'text/event-stream';
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = out;
      for (let i = 0; i < 6; i++) out.write(EVENT);
      out.end();
      return;
    }
    default:
      await next();
  }
};

const service: ServiceDefinition<Infra> = {
  name: 'web',
  title: 'Compression test',
  version: '0.0.0',
  description: 'A service of the test only.',
  tagDescriptions: {},
  envelope: newsEnvelope,
  routes: [],
  middleware: [() => answers],
  everyRouteRateLimited: true,
};

// MongoDB is never reached: the rate limiters connect on first use, and no route here uses one.
const deps = {
  config: parseConfig({ DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'web-compression-')) }),
  logger: createLogger({ name: 'web-compression-test', level: 'silent' }),
  mongo: { ready: new Promise(() => undefined) },
} as unknown as Infra;

function build(): Koa {
  return createApp(service, deps, { verifyToken: async () => Promise.reject(new Error('no tokens here')), healthChecks: [] });
}

describe('which answers are compressed', () => {
  it('JSON, text, JavaScript, XML and SVG; never Server-Sent Events, nor binary types', () => {
    for (const type of ['application/json', 'application/problem+json', 'text/html; charset=utf-8', 'text/csv', 'text/plain', 'application/javascript', 'text/css', 'image/svg+xml', 'application/xml']) {
      expect([type, compressibleType(type)]).toEqual([type, true]);
    }
    for (const type of ['text/event-stream', 'text/event-stream; charset=utf-8', 'TEXT/EVENT-STREAM', 'image/png', 'application/pdf', 'application/octet-stream', 'application/zip', '']) {
      expect([type, compressibleType(type)]).toEqual([type, false]);
    }
    expect(COMPRESS_THRESHOLD_BYTES).toBe(1024);
  });
});

describe('a service built by createApp', () => {
  const call = build().callback();

  it('answers brotli to a browser that accepts it, gzip to a client that accepts only gzip, and plain to one that says nothing', async () => {
    const br = await request(call).get('/big').set('Accept-Encoding', 'gzip, deflate, br').expect(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['vary']).toMatch(/Accept-Encoding/i);
    expect(br.body).toEqual(big);

    const gzip = await request(call).get('/big').set('Accept-Encoding', 'gzip').expect(200);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.body).toEqual(big);

    const plain = await request(call).get('/big').set('Accept-Encoding', 'identity').expect(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(Number(plain.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(big)));
    expect(plain.body).toEqual(big);

    // deflate is not offered: a client asking only for it gets the answer as it is.
    const deflate = await request(call).get('/big').set('Accept-Encoding', 'deflate').expect(200);
    expect(deflate.headers['content-encoding']).toBeUndefined();
  });

  it('compresses text (CSV) and the service document, leaves small answers and images alone', async () => {
    const csv = await request(call).get('/csv').set('Accept-Encoding', 'gzip, br').expect(200);
    expect(csv.headers['content-encoding']).toBe('br');
    expect(csv.text).toBe('id,title\n'.repeat(300));

    const doc = await request(call).get('/openapi.json').set('Accept-Encoding', 'gzip, br').expect(200);
    expect(Buffer.byteLength(JSON.stringify(doc.body))).toBeGreaterThan(COMPRESS_THRESHOLD_BYTES);
    expect(doc.headers['content-encoding']).toBe('br');

    const small = await request(call).get('/small').set('Accept-Encoding', 'gzip, br').expect(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers['vary']).toMatch(/Accept-Encoding/i);

    const png = await request(call).get('/png').set('Accept-Encoding', 'gzip, br').expect(200);
    expect(png.headers['content-encoding']).toBeUndefined();
    expect(Number(png.headers['content-length'])).toBe(4096);

    // The error envelope goes through it too (here under the threshold).
    const missing = await request(call).get('/nothing-here').set('Accept-Encoding', 'gzip, br').expect(404);
    expect(missing.headers['content-encoding']).toBeUndefined();
    expect(missing.body.code).toBe('ROUTE_NOT_FOUND');
  });

  it('never compresses Server-Sent Events, however large the stream', async () => {
    const res = await request(call)
      .get('/events')
      .set('Accept-Encoding', 'gzip, deflate, br')
      .buffer(true)
      .parse((r, done) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => done(null, text));
      })
      .expect(200)
      .expect('Content-Type', /^text\/event-stream/);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toBe(EVENT.repeat(6));
    expect(EVENT.length * 6).toBeGreaterThan(COMPRESS_THRESHOLD_BYTES);
  });

  it('compresses last: a middleware put in front of the app later still reads the body the route made', async () => {
    const app = build();
    const seen: unknown[] = [];
    app.middleware.unshift(async (ctx, next) => {
      await next();
      seen.push(ctx.body);
    });
    const res = await request(app.callback()).get('/big').set('Accept-Encoding', 'gzip, br').expect(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(seen).toEqual([big]);
  });
});
