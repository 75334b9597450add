/**
 * The dashboard's files (api/web/site.ts) beyond the page: the precompressed twins the build
 * writes (web/vite.config.ts) sent to browsers that accept them, source maps and twins never
 * sent by name, robots.txt, and a 404 (not the page) for any other path that names a file. On a
 * Koa app of its own, with the services' compression in front as createApp puts it.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import Koa from 'koa';
import robotsParser from 'robots-parser';
import request from 'supertest';
import { compression } from '../../api/shared/app';
import { securityHeaders, staticSite } from '../../api/web/site';

const ROBOTS = readFileSync(path.join(__dirname, '..', '..', 'web', 'public', 'robots.txt'), 'utf8');
const SCRIPT = `console.log(${JSON.stringify('dashboard '.repeat(400))});`;
const STYLE = `body { color: black; }\n`.repeat(200);

const dist = mkdtempSync(path.join(os.tmpdir(), 'web-dist-files-'));
mkdirSync(path.join(dist, 'assets'));
writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>dashboard</title>');
writeFileSync(path.join(dist, 'robots.txt'), ROBOTS);
writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), SCRIPT);
writeFileSync(path.join(dist, 'assets', 'index-abc123.js.br'), brotliCompressSync(SCRIPT));
writeFileSync(path.join(dist, 'assets', 'index-abc123.js.gz'), gzipSync(SCRIPT));
writeFileSync(path.join(dist, 'assets', 'index-abc123.js.map'), '{"sources":["secret.ts"]}');
writeFileSync(path.join(dist, 'assets', 'plain-def456.css'), STYLE);

function app() {
  const a = new Koa();
  a.silent = true;
  a.use(compression());
  a.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      ctx.status = (err as { code?: string }).code === 'ROUTE_NOT_FOUND' ? 404 : 503;
      ctx.body = { error: (err as Error).message };
    }
  });
  a.use(securityHeaders(true));
  a.use(staticSite(dist));
  a.use((ctx) => {
    ctx.body = { api: ctx.path };
  });
  return a.callback();
}

const call = app();

describe("the dashboard's assets, compressed", () => {
  it("sends the build's brotli or gzip twin to a browser that accepts it, cached a year, varying on Accept-Encoding", async () => {
    for (const [accept, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
    ] as const) {
      const res = await request(call).get('/assets/index-abc123.js').set('Accept-Encoding', accept).expect(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript/);
      expect(res.headers['cache-control']).toBe('max-age=31536000,immutable');
      expect(res.headers['vary']).toMatch(/Accept-Encoding/i);
      expect(res.text).toBe(SCRIPT);
    }
    const plain = await request(call).get('/assets/index-abc123.js').set('Accept-Encoding', 'identity').expect(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(Number(plain.headers['content-length'])).toBe(Buffer.byteLength(SCRIPT));
    const head = await request(call).head('/assets/index-abc123.js').set('Accept-Encoding', 'br').expect(200);
    expect(head.headers['content-encoding']).toBe('br');
  });

  it('compresses an asset without a twin on the way out', async () => {
    const res = await request(call).get('/assets/plain-def456.css').set('Accept-Encoding', 'gzip, br').expect(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['cache-control']).toBe('max-age=31536000,immutable');
    expect(res.text).toBe(STYLE);
  });

  it('never sends a source map or a twin by its own name, however the path is spelled', async () => {
    for (const p of ['/assets/index-abc123.js.map', '/assets/index-abc123.js%2Emap', '/assets/index-abc123.js%2emap', '/assets/index-abc123.js.br', '/assets/index-abc123.js.gz', '/index.js.map', '/assets/%E0%A4%A']) {
      const res = await request(call).get(p).set('Accept-Encoding', 'gzip, br').expect(404);
      expect([p, res.headers['content-type']]).toEqual([p, expect.stringMatching(/^application\/json/)]);
      expect(res.text).not.toContain('secret.ts');
      expect(res.headers['content-encoding']).toBeUndefined();
    }
  });
});

describe('robots.txt, the sitemap and other files', () => {
  it('serves robots.txt as text, a day in cache, with the security headers', async () => {
    const res = await request(call).get('/robots.txt').expect(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['cache-control']).toBe('max-age=86400');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.text).toBe(ROBOTS);
  });

  it('lets crawlers see the sign-in page and keeps them out of the account pages and the API', () => {
    const robots = robotsParser('https://dashboard.example/robots.txt', ROBOTS);
    for (const p of ['/', '/sign-in', '/assets/index-abc123.js', '/favicon.svg']) expect([p, robots.isAllowed(`https://dashboard.example${p}`, 'Googlebot')]).toEqual([p, true]);
    for (const p of ['/account/keys', '/account/usage', '/api/auth/session', '/docs', '/openapi.json', '/health']) {
      expect([p, robots.isAllowed(`https://dashboard.example${p}`, 'Googlebot')]).toEqual([p, false]);
    }
  });

  it("answers 404, not the page, for /sitemap.xml and any other path that names a missing file", async () => {
    for (const p of ['/sitemap.xml', '/favicon.ico', '/apple-touch-icon.png', '/wp-login.php', '/account/keys.json', '/.env']) {
      const res = await request(call).get(p).expect(404);
      expect([p, res.text]).toEqual([p, expect.not.stringContaining('<title>dashboard</title>')]);
    }
  });

  it("still serves the page for the page's own routes (and /index.html), never cached", async () => {
    for (const p of ['/', '/sign-in', '/account/keys', '/account/billing?checkout=success', '/index.html']) {
      const res = await request(call).get(p).expect(200);
      expect([p, res.text]).toEqual([p, '<!doctype html><title>dashboard</title>']);
      expect(res.headers['cache-control']).toBe('no-cache');
    }
    for (const p of ['/api/account/keys', '/health', '/openapi.json', '/docs', '/reference']) expect((await request(call).get(p).expect(200)).body).toEqual({ api: p });
  });
});
