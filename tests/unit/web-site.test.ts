/**
 * The dashboard's security headers in production and development, and how its page is served
 * (the built page for any route of the page's own, hashed assets cached, nothing for the API's
 * paths), on a Koa app of its own: no server but this test's.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import request from 'supertest';
import { securityHeaders, staticSite } from '../../api/web/site';

function app(production: boolean, dist: string) {
  const a = new Koa();
  a.silent = true;
  a.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      ctx.status = (err as { code?: string }).code === 'ROUTE_NOT_FOUND' ? 404 : 503;
      ctx.body = { error: (err as Error).message };
    }
  });
  a.use(securityHeaders(production));
  a.use(staticSite(dist));
  a.use((ctx) => {
    ctx.body = { api: ctx.path };
  });
  return a.callback();
}

const dist = mkdtempSync(path.join(os.tmpdir(), 'web-dist-'));
mkdirSync(path.join(dist, 'assets'));
writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>dashboard</title>');
writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');

describe('the dashboard site', () => {
  it('pins HTTPS in production only, and never allows inline scripts or framing', async () => {
    const prod = await request(app(true, dist)).get('/');
    expect(prod.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect(prod.headers['content-security-policy']).toContain('upgrade-insecure-requests');
    const dev = await request(app(false, dist)).get('/');
    expect(dev.headers['strict-transport-security']).toBeUndefined();
    for (const res of [prod, dev]) {
      const csp = res.headers['content-security-policy'] as string;
      expect(csp).toMatch(/script-src 'self'(;|$)/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it("serves the page for the page's own routes, assets cached a year, and leaves the API's paths alone", async () => {
    const call = app(false, dist);
    for (const p of ['/', '/sign-in', '/account/keys', '/account/billing?checkout=success']) {
      const res = await request(call).get(p).expect(200);
      expect(res.text).toContain('<title>dashboard</title>');
      expect(res.headers['cache-control']).toBe('no-cache');
    }
    const asset = await request(call).get('/assets/index-abc123.js').expect(200);
    expect(asset.headers['cache-control']).toBe('max-age=31536000,immutable');
    await request(call).get('/assets/missing.js').expect(404);
    await request(call).get('/assets/../../etc/passwd').expect(404);
    for (const p of ['/api/account/keys', '/health', '/openapi.json', '/docs', '/reference']) expect((await request(call).get(p).expect(200)).body).toEqual({ api: p });
    expect((await request(call).post('/account/keys').expect(200)).body).toEqual({ api: '/account/keys' });
  });

  it('says plainly when the page is not built (503)', async () => {
    const res = await request(app(false, mkdtempSync(path.join(os.tmpdir(), 'web-empty-')))).get('/').expect(503);
    expect(res.body.error).toMatch(/npm run build:web/);
  });
});
