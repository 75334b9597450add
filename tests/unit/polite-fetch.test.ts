/**
 * The polite fetcher against real local HTTP servers: the SSRF guard (refusing loopback unless
 * allow-listed, hostnames resolving to private addresses, every redirect hop), conditional GET,
 * 429/503 with Retry-After, the body cap (declared, streamed, decompressed), timeouts, robots.txt
 * and host slots around each request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { createPoliteFetcher, FetchError, retryable, type HostSlots, type Lookup, type PoliteFetcherOptions } from '../../models/infra/polite-fetch';

const UA = 'NewsletterPlatformBot/0.1 (+https://example.com/bot)';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;
let routes: Record<string, Handler>;
let seen: { path: string; headers: http.IncomingHttpHeaders }[];
/** Requests as they arrive, interleaved with what the tests' doubles record. */
let log: string[];
let server: http.Server;
let base: string;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    seen.push({ path, headers: req.headers });
    log.push(`request ${path}`);
    const handler = routes[path.split('?')[0]!];
    if (handler) return handler(req, res);
    res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  routes = {};
  seen = [];
  log = [];
});
afterEach(() => server.closeAllConnections());

const fetcher = (over: Partial<PoliteFetcherOptions> = {}) => createPoliteFetcher({ userAgent: UA, allowHosts: ['127.0.0.1'], ...over });
const text = (body: string, headers: http.OutgoingHttpHeaders = {}): Handler => (_req, res) => res.writeHead(200, { 'content-type': 'text/plain', ...headers }).end(body);
const redirect = (to: string, status = 302): Handler => (_req, res) => res.writeHead(status, { location: to }).end();
const pages = () => seen.map((s) => s.path);

/** Rejects with a FetchError and returns it. */
async function failure(p: Promise<unknown>): Promise<FetchError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
}

describe('fetching', () => {
  it('returns the body with its validators and sends the User-Agent, Accept and Accept-Encoding', async () => {
    routes['/feed'] = text('<rss/>', { 'content-type': 'application/rss+xml', etag: '"v1"', 'last-modified': 'Tue, 01 Dec 2026 10:00:00 GMT' });
    const result = await fetcher().fetch(`${base}/feed`, { accept: 'application/rss+xml' });
    expect(result).toEqual({
      kind: 'ok',
      status: 200,
      body: Buffer.from('<rss/>'),
      contentType: 'application/rss+xml',
      etag: '"v1"',
      lastModified: 'Tue, 01 Dec 2026 10:00:00 GMT',
      finalUrl: `${base}/feed`,
    });
    expect(seen[0]!.headers['user-agent']).toBe(UA);
    expect(seen[0]!.headers.accept).toBe('application/rss+xml');
    expect(seen[0]!.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(seen[0]!.headers['if-none-match']).toBeUndefined();
  });

  it('sends If-None-Match and If-Modified-Since, and answers 304 with not-modified', async () => {
    routes['/feed'] = (req, res) => {
      if (req.headers['if-none-match'] === '"v1"' && req.headers['if-modified-since'] === 'Tue, 01 Dec 2026 10:00:00 GMT') return res.writeHead(304).end();
      res.writeHead(200).end('changed');
    };
    const f = fetcher();
    await expect(f.fetch(`${base}/feed`, { etag: '"v1"', lastModified: 'Tue, 01 Dec 2026 10:00:00 GMT' })).resolves.toEqual({ kind: 'not-modified' });
    await expect(f.fetch(`${base}/feed`, { etag: '"v0"', lastModified: null })).resolves.toMatchObject({ kind: 'ok', body: Buffer.from('changed') });
  });

  it('reports other statuses as http with the status; 5xx is retryable, 404 is not', async () => {
    routes['/gone'] = (_req, res) => res.writeHead(404).end();
    routes['/broken'] = (_req, res) => res.writeHead(500).end();
    const gone = await failure(fetcher().fetch(`${base}/gone`));
    expect(gone).toMatchObject({ code: 'http', status: 404, message: `HTTP 404: ${base}/gone` });
    expect(retryable(gone)).toBe(false);
    const broken = await failure(fetcher().fetch(`${base}/broken`));
    expect(broken).toMatchObject({ code: 'http', status: 500 });
    expect(retryable(broken)).toBe(true);
  });

  it('turns 429 and 503 into retry-later with Retry-After in both forms, or none', async () => {
    routes['/seconds'] = (_req, res) => res.writeHead(429, { 'retry-after': '120' }).end();
    routes['/date'] = (_req, res) => res.writeHead(503, { 'retry-after': new Date(Date.now() + 60_000).toUTCString() }).end();
    routes['/none'] = (_req, res) => res.writeHead(429).end();
    const f = fetcher();
    expect(await failure(f.fetch(`${base}/seconds`))).toMatchObject({ code: 'retry-later', status: 429, retryAfterMs: 120_000, message: `HTTP 429, retry after 120 s: ${base}/seconds` });
    const dated = await failure(f.fetch(`${base}/date`));
    expect(dated).toMatchObject({ code: 'retry-later', status: 503 });
    // The date has whole seconds: the wait is just under a minute.
    expect(dated.retryAfterMs).toBeGreaterThan(55_000);
    expect(dated.retryAfterMs).toBeLessThanOrEqual(60_000);
    const bare = await failure(f.fetch(`${base}/none`));
    expect(bare).toMatchObject({ code: 'retry-later', status: 429, retryAfterMs: undefined });
    expect(retryable(bare)).toBe(true);
  });

  it('decompresses gzip, deflate (wrapped or raw) and br', async () => {
    const body = '<rss>'.concat('notícia '.repeat(500), '</rss>');
    routes['/gzip'] = (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(body));
    routes['/deflate'] = (_req, res) => res.writeHead(200, { 'content-encoding': 'deflate' }).end(deflateSync(body));
    routes['/raw-deflate'] = (_req, res) => res.writeHead(200, { 'content-encoding': 'deflate' }).end(deflateRawSync(body));
    routes['/br'] = (_req, res) => res.writeHead(200, { 'content-encoding': 'br' }).end(brotliCompressSync(body));
    const f = fetcher();
    for (const path of ['/gzip', '/deflate', '/raw-deflate', '/br']) {
      const result = await f.fetch(`${base}${path}`);
      expect(result.kind === 'ok' && result.body.toString('utf8')).toBe(body);
    }
  });

  it('refuses a body whose Content-Length is over the cap before reading it', async () => {
    routes['/big'] = (_req, res) => {
      res.writeHead(200, { 'content-length': 10_000 });
      res.write(Buffer.alloc(100)); // the rest never comes: reading it would hang until the timeout
    };
    const err = await failure(fetcher({ maxBytes: 1_000, timeoutMs: 2_000 }).fetch(`${base}/big`));
    expect(err).toMatchObject({ code: 'too-large', message: `response of 10000 bytes is over 1000: ${base}/big` });
    expect(retryable(err)).toBe(false);
  });

  it('stops reading a streamed body without Content-Length once it passes the cap', async () => {
    let written = 0;
    routes['/stream'] = (_req, res) => {
      res.writeHead(200); // chunked: no length declared
      const timer = setInterval(() => {
        if (res.destroyed || written > 1_000_000) return clearInterval(timer);
        written += 1_000;
        res.write(Buffer.alloc(1_000, 97));
      }, 1);
      res.on('close', () => clearInterval(timer));
    };
    const err = await failure(fetcher({ maxBytes: 5_000 }).fetch(`${base}/stream`));
    expect(err).toMatchObject({ code: 'too-large', message: `response over 5000 bytes: ${base}/stream` });
    expect(written).toBeLessThan(1_000_000);
  });

  it('applies the cap to the decompressed size (a small gzip that inflates past it)', async () => {
    const bomb = gzipSync(Buffer.alloc(2_000_000));
    expect(bomb.length).toBeLessThan(10_000);
    routes['/bomb'] = (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': bomb.length }).end(bomb);
    const err = await failure(fetcher({ maxBytes: 100_000 }).fetch(`${base}/bomb`));
    expect(err).toMatchObject({ code: 'too-large', message: `response over 100000 bytes decompressed: ${base}/bomb` });
  });

  it('times out on a server that answers too slowly, headers or body', async () => {
    routes['/silent'] = () => undefined;
    routes['/trickle'] = (_req, res) => {
      res.writeHead(200);
      res.write('first bytes'); // and nothing more
    };
    const f = fetcher({ timeoutMs: 300 });
    const started = Date.now();
    const silent = await failure(f.fetch(`${base}/silent`));
    expect(silent).toMatchObject({ code: 'timeout', message: `timed out after 300 ms: ${base}/silent` });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(retryable(silent)).toBe(true);
    expect(await failure(f.fetch(`${base}/trickle`))).toMatchObject({ code: 'timeout' });
  });

  it("rejects with the caller's own reason when the caller aborts", async () => {
    routes['/silent'] = () => undefined;
    const controller = new AbortController();
    const pending = fetcher().fetch(`${base}/silent`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('activity cancelled')), 50);
    await expect(pending).rejects.toThrow('activity cancelled');
  });

  it('reports a refused connection as a network error', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await failure(fetcher().fetch(`http://127.0.0.1:${closedPort}/`));
    expect(err).toMatchObject({ code: 'network', message: `network error (ECONNREFUSED): http://127.0.0.1:${closedPort}/` });
  });
});

describe('the SSRF guard', () => {
  it('refuses loopback that is not allow-listed, without connecting', async () => {
    routes['/feed'] = text('secret');
    const err = await failure(fetcher({ allowHosts: [] }).fetch(`${base}/feed`));
    expect(err).toMatchObject({ code: 'refused', message: `refused ${base}/feed: address 127.0.0.1 (loopback)` });
    expect(retryable(err)).toBe(false);
    // Allow-listed on another port is not allow-listed here.
    await failure(fetcher({ allowHosts: ['127.0.0.1:1'] }).fetch(`${base}/feed`));
    expect(seen).toEqual([]);
  });

  it('refuses the other spellings of loopback the URL parser accepts', async () => {
    const f = fetcher({ allowHosts: [] });
    for (const url of [`http://2130706433:${port}/`, `http://0x7f.0.0.1:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, `http://[::1]:${port}/`]) {
      expect(await failure(f.fetch(url))).toMatchObject({ code: 'refused' });
    }
    expect(seen).toEqual([]);
  });

  it('refuses a public hostname that resolves to a private address, before connecting', async () => {
    const lookups: string[] = [];
    const lookup: Lookup = async (host) => {
      lookups.push(host);
      return host === 'mixed.example'
        ? [
            { address: '93.184.215.14', family: 4 },
            { address: '10.0.0.7', family: 4 },
          ]
        : [{ address: '::ffff:169.254.169.254', family: 6 }];
    };
    const f = fetcher({ lookup, allowHosts: [] });
    expect(await failure(f.fetch('http://mixed.example/feed'))).toMatchObject({ code: 'refused', message: 'refused http://mixed.example/feed: resolves to 10.0.0.7 (private)' });
    expect(await failure(f.fetch('https://metadata.example/latest'))).toMatchObject({ code: 'refused', message: 'refused https://metadata.example/latest: resolves to ::ffff:169.254.169.254 (linkLocal)' });
    expect(lookups).toEqual(['mixed.example', 'metadata.example']);
  });

  it('connects to the address it checked, looking the host up once', async () => {
    routes['/feed'] = text('from the pinned address');
    let lookups = 0;
    const lookup: Lookup = async () => {
      lookups += 1;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const result = await fetcher({ lookup, allowHosts: ['feeds.test'] }).fetch(`http://feeds.test:${port}/feed`);
    expect(result).toMatchObject({ kind: 'ok', body: Buffer.from('from the pinned address'), finalUrl: `http://feeds.test:${port}/feed` });
    expect(seen[0]!.headers.host).toBe(`feeds.test:${port}`);
    expect(lookups).toBe(1);
  });

  it('reports a host that does not resolve as a network error', async () => {
    const lookup: Lookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await failure(fetcher({ lookup }).fetch('https://nowhere.example/'))).toMatchObject({ code: 'network', message: 'could not resolve nowhere.example' });
  });

  it('refuses other schemes and credentials without echoing them', async () => {
    const f = fetcher();
    expect(await failure(f.fetch('file:///etc/passwd'))).toMatchObject({ code: 'refused', message: 'refused file:///etc/passwd: scheme file: is not allowed' });
    const creds = await failure(f.fetch(`http://admin:hunter2@127.0.0.1:${port}/feed`));
    expect(creds).toMatchObject({ code: 'refused', message: `refused ${base}/feed: credentials in the URL are not allowed` });
    expect(creds.message).not.toContain('hunter2');
    expect(await failure(f.fetch('not a url'))).toMatchObject({ code: 'refused', message: 'refused: not a valid URL' });
    expect(seen).toEqual([]);
  });
});

describe('redirects', () => {
  it('follows relative and absolute redirects and reports the final URL', async () => {
    routes['/old'] = redirect('/middle', 301);
    routes['/middle'] = redirect(`${base}/new`, 308);
    routes['/new'] = text('here');
    const result = await fetcher().fetch(`${base}/old`);
    expect(result).toMatchObject({ kind: 'ok', body: Buffer.from('here'), finalUrl: `${base}/new` });
    expect(pages()).toEqual(['/old', '/middle', '/new']);
    expect(seen.every((s) => s.headers['user-agent'] === UA)).toBe(true);
  });

  it('follows at most maxRedirects', async () => {
    for (let i = 0; i < 6; i += 1) routes[`/r${i}`] = redirect(`/r${i + 1}`);
    routes['/r6'] = text('end');
    await expect(fetcher({ maxRedirects: 6 }).fetch(`${base}/r0`)).resolves.toMatchObject({ kind: 'ok', finalUrl: `${base}/r6` });
    seen = [];
    const err = await failure(fetcher({ maxRedirects: 5 }).fetch(`${base}/r0`));
    expect(err).toMatchObject({ code: 'refused', message: `refused ${base}/r0: more than 5 redirects` });
    expect(pages()).toEqual(['/r0', '/r1', '/r2', '/r3', '/r4', '/r5']);
  });

  it('refuses a redirect loop', async () => {
    routes['/a'] = redirect('/b');
    routes['/b'] = redirect('/a#again');
    expect(await failure(fetcher().fetch(`${base}/a`))).toMatchObject({ code: 'refused', message: `refused ${base}/a: redirect loop` });
    expect(pages()).toEqual(['/a', '/b']);
  });

  it.each([
    ['file:///etc/passwd', 'refused file:///etc/passwd: scheme file: is not allowed'],
    ['http://10.0.0.1/admin', 'refused http://10.0.0.1/admin: address 10.0.0.1 (private)'],
    ['http://169.254.169.254/latest/meta-data/', 'refused http://169.254.169.254/latest/meta-data/: address 169.254.169.254 (linkLocal)'],
    ['gopher://127.0.0.1:6379/_FLUSHALL', 'refused gopher://127.0.0.1:6379/_FLUSHALL: scheme gopher: is not allowed'],
  ])('refuses a redirect to %s', async (target, message) => {
    routes['/go'] = redirect(target);
    expect(await failure(fetcher().fetch(`${base}/go`))).toMatchObject({ code: 'refused', message });
  });

  it('checks a redirect to a hostname by its addresses', async () => {
    routes['/go'] = redirect('http://internal.example/');
    const lookup: Lookup = async () => [{ address: '192.168.1.10', family: 4 }];
    expect(await failure(fetcher({ lookup }).fetch(`${base}/go`))).toMatchObject({ code: 'refused', message: 'refused http://internal.example/: resolves to 192.168.1.10 (private)' });
  });

  it('reports a redirect without a Location as http', async () => {
    routes['/nowhere'] = (_req, res) => res.writeHead(302).end();
    expect(await failure(fetcher().fetch(`${base}/nowhere`))).toMatchObject({ code: 'http', status: 302 });
  });
});

describe('robots.txt', () => {
  const robots = (body: string): Handler => text(body);

  it('allows and disallows by the group for our user agent, with the User-Agent on the robots request', async () => {
    routes['/robots.txt'] = robots('User-agent: *\nDisallow: /\n\nUser-agent: NewsletterPlatformBot\nDisallow: /private\n');
    const f = fetcher();
    expect(await f.robotsAllows(`${base}/news/1`)).toBe(true);
    expect(await f.robotsAllows(`${base}/private/x`)).toBe(false);
    expect(seen[0]).toMatchObject({ path: '/robots.txt', headers: { 'user-agent': UA } });
    expect(pages()).toEqual(['/robots.txt']); // read once, then cached
  });

  it('refuses fetch with checkRobots when disallowed, and fetches without asking otherwise', async () => {
    routes['/robots.txt'] = robots('User-agent: *\nDisallow: /private\n');
    routes['/private/page'] = text('private');
    const f = fetcher();
    const err = await failure(f.fetch(`${base}/private/page`, { checkRobots: true }));
    expect(err).toMatchObject({ code: 'robots', message: `robots.txt disallows ${base}/private/page` });
    expect(retryable(err)).toBe(false);
    expect(pages()).toEqual(['/robots.txt']);
    await expect(f.fetch(`${base}/private/page`)).resolves.toMatchObject({ kind: 'ok' });
  });

  it('checks every redirect hop against robots.txt', async () => {
    routes['/robots.txt'] = robots('User-agent: *\nDisallow: /private\n');
    routes['/open'] = redirect('/private/page');
    routes['/private/page'] = text('private');
    expect(await failure(fetcher().fetch(`${base}/open`, { checkRobots: true }))).toMatchObject({ code: 'robots' });
    expect(pages()).toEqual(['/robots.txt', '/open']);
  });

  it('allows everything when robots.txt is missing (4xx)', async () => {
    routes['/page'] = text('ok');
    const f = fetcher();
    expect(await f.robotsAllows(`${base}/anything`)).toBe(true);
    await expect(f.fetch(`${base}/page`, { checkRobots: true })).resolves.toMatchObject({ kind: 'ok' });
  });

  it('disallows everything while robots.txt is unreachable (5xx), for the cache period', async () => {
    routes['/robots.txt'] = (_req, res) => res.writeHead(500).end();
    routes['/page'] = text('ok');
    const f = fetcher({ robotsCacheMs: 200 });
    expect(await f.robotsAllows(`${base}/page`)).toBe(false);
    expect(await failure(f.fetch(`${base}/page`, { checkRobots: true }))).toMatchObject({ code: 'robots' });
    routes['/robots.txt'] = robots('User-agent: *\nAllow: /\n');
    expect(await f.robotsAllows(`${base}/page`)).toBe(false); // still cached
    await new Promise((r) => setTimeout(r, 250));
    expect(await f.robotsAllows(`${base}/page`)).toBe(true);
    expect(pages()).toEqual(['/robots.txt', '/robots.txt']);
  });

  it('disallows everything when robots.txt cannot be reached at all', async () => {
    routes['/robots.txt'] = () => undefined;
    expect(await fetcher({ timeoutMs: 200 }).robotsAllows(`${base}/page`)).toBe(false);
  });

  it('reads robots.txt once for concurrent callers', async () => {
    routes['/robots.txt'] = (_req, res) => setTimeout(() => res.writeHead(200).end('User-agent: *\nDisallow: /x\n'), 50);
    const f = fetcher();
    expect(await Promise.all([f.robotsAllows(`${base}/a`), f.robotsAllows(`${base}/x`), f.robotsAllows(`${base}/b`)])).toEqual([true, false, true]);
    expect(pages()).toEqual(['/robots.txt']);
  });
});

describe('host slots', () => {
  const recording = (events: string[]): HostSlots => ({
    acquire: async (origin) => {
      events.push(`acquire ${origin}`);
      return async () => {
        events.push(`release ${origin}`);
      };
    },
  });

  it('holds a slot of the origin around each request, redirects and robots.txt included', async () => {
    routes['/robots.txt'] = text('');
    routes['/a'] = redirect('/b');
    routes['/b'] = text('b');
    await fetcher({ hostSlots: recording(log) }).fetch(`${base}/a`, { checkRobots: true });
    expect(log).toEqual([
      `acquire ${base}`,
      'request /robots.txt',
      `release ${base}`,
      `acquire ${base}`,
      'request /a',
      `release ${base}`,
      `acquire ${base}`,
      'request /b',
      `release ${base}`,
    ]);
  });

  it('releases the slot when the request fails, and a failing release does not hide the result', async () => {
    routes['/broken'] = (_req, res) => res.writeHead(500).end();
    await failure(fetcher({ hostSlots: recording(log) }).fetch(`${base}/broken`));
    expect(log).toEqual([`acquire ${base}`, 'request /broken', `release ${base}`]);

    routes['/ok'] = text('fine');
    const flaky: HostSlots = {
      acquire: async () => async () => {
        throw new Error('database away');
      },
    };
    await expect(fetcher({ hostSlots: flaky }).fetch(`${base}/ok`)).resolves.toMatchObject({ kind: 'ok' });
  });

  it('lets a slot that cannot be had fail the fetch with its own error', async () => {
    const full: HostSlots = {
      acquire: async () => {
        throw new Error('no free slot');
      },
    };
    await expect(fetcher({ hostSlots: full }).fetch(`${base}/ok`)).rejects.toThrow('no free slot');
    expect(seen).toEqual([]);
  });
});
