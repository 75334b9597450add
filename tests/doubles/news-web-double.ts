/**
 * A double of "the news sites the platform reads": Brazilian financial outlets that publish RSS
 * 2.0, Atom 1.0 and JSON Feed 1.1 feeds and HTML article pages, for development (`npm start`
 * without real sources) and tests. Each site is its own origin (its own port on 127.0.0.1),
 * because the platform's politeness (robots.txt, per-host concurrency, backoff) is per origin.
 *
 * Items appear over time: item k of a site is published at startAt + k × itemPeriodMs, and a feed
 * lists the newest 20 (feedSize). Tests do not wait for the clock: `POST /__control/publish` publishes the
 * next items at once. Feeds answer conditional GETs (strong ETag, Last-Modified, 304). The content
 * holds the cases the pipeline must handle: syndicated copies of wire stories, different stories
 * about one company, paywalled pages, a page robots.txt forbids, canonical URLs that differ from
 * the feed's link. Each fault (malformed XML, slowness, 429/503 with Retry-After, 20 MB bodies,
 * redirect loops, redirects to private addresses or to file:) has its own feed URL and origin.
 *
 * The control API lives on its own origin (`url`): the request log (what the platform fetched,
 * with which headers), publish, fault counters and reset. news-web-double.main.ts runs the
 * double as a process. Content, order and ids are deterministic for a seed and startAt.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable, pipeline } from 'node:stream';
import type { Sector } from '../../models/news/article.rules';
import { CONTENT_TYPES, datedPath, notFoundPage, renderFeed, renderHome, renderPage, robotsTxt, truncatedRss, type PublishedItem } from './news-web/render';
import { FAULT_SITES, WELL_BEHAVED, itemAt, sequence, type CatalogItem, type SiteSpec, type Slot } from './news-web/sites';

export const FAULT_NAMES = ['malformed', 'slow', 'rateLimited', 'unavailable', 'oversized', 'redirectLoop', 'redirectPrivate', 'redirectPrivateNet', 'nonHttpRedirect', 'notFound'] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

/** A well-behaved source, as the platform's seed registers it. */
export interface NewsWebSite {
  id: string;
  name: string;
  origin: string;
  feedUrl: string;
  format: 'rss' | 'atom' | 'json';
  language: 'pt';
  tier: 1 | 2 | 3;
  defaultSector?: Sector;
}

export interface NewsWebDoubleOptions {
  /** First port (control API); sites and faults take the next ones. 0 (default): a random port each. */
  basePort?: number;
  /** Time between two items of a site (default 60 s). */
  itemPeriodMs?: number;
  /** When item 0 of every site is published (default: start time minus 10 periods, so ~10 items at start). */
  startAt?: Date;
  /** Shuffles the order of each site's unpinned stories (default 1). */
  seed?: number;
  /** How long the slow origin waits before answering (default 5 s). */
  slowMs?: number;
  /** The control API's port when the sites take random ones (basePort 0): `npm test` knows where to ask. */
  controlPort?: number;
  /** How many of the newest items a feed lists (default 20; the ingest benchmark asks for 100). */
  feedSize?: number;
}

/** One request the double received on a site or fault origin. */
export interface LoggedRequest {
  method: string;
  /** Path and query, as requested. */
  path: string;
  origin: string;
  /** Every request header, lower-case names (user-agent, if-none-match, if-modified-since, …). */
  headers: Record<string, string | string[] | undefined>;
  at: string;
}

/** Where the pipeline's cases are, as the feeds link to them (each among the items published at start). */
export interface NewsWebScenarios {
  /** Radar B3's copies of the agency's wire stories: the same story, to be recognised as one. */
  syndicated: { original: string; copy: string }[];
  /** Different stories about one company, to be kept apart. */
  sameCompany: { ticker: string; links: string[] }[];
  /** Folha Econômica's subscribers-only pages (teaser only; isAccessibleForFree false). */
  paywalled: string[];
  /** Radar B3's page under /privado/: robots.txt forbids it, the platform keeps the feed's summary. */
  disallowed: string;
  /** Breaking news ("URGENTE: …"). */
  breaking: string[];
}

export interface NewsWebDouble {
  /** The well-behaved sources. */
  sites: NewsWebSite[];
  /** The feed URL of each fault. */
  faults: Record<FaultName, string>;
  /** A 20 MB article page (declared with Content-Length), on the oversized origin. */
  oversizedPage: string;
  /** A small feed on the oversized origin whose one item is `oversizedPage`. */
  oversizedPageFeed: string;
  scenarios: NewsWebScenarios;
  /** The control API's origin. */
  url: string;
  close(): Promise<void>;
}

/** How big the oversized bodies are: 20 MiB. */
export const OVERSIZED_BYTES = 20 * 1024 * 1024;
const FEED_LENGTH = 20;
const LOG_LIMIT = 10_000;
const UTM = '?utm_source=rss&utm_medium=feed&utm_campaign=ultimas';

interface SiteRuntime {
  spec: SiteSpec;
  order: Slot[];
  origin: string;
  feedUrl: string;
  /** Items published by `/__control/publish`: index → publication time (ms). */
  manual: Map<number, number>;
  catalog: Map<number, CatalogItem>;
}

interface Limit {
  remaining: number;
  retryAfter: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
};

const send = (res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
};

const redirect = (res: ServerResponse, status: number, location: string) => {
  res.writeHead(status, { Location: location, 'Content-Type': 'text/html; charset=utf-8' });
  res.end(`<html><body>Moved: <a href="${location}">${location}</a></body></html>`);
};

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += (chunk as Buffer).toString();
  return body;
}

/** Whether a conditional GET is answered 304: If-None-Match decides when present (RFC 9110 §13.2.2), else If-Modified-Since. */
function notModified(req: IncomingMessage, etag: string, lastModified: Date): boolean {
  const inm = req.headers['if-none-match'];
  if (inm !== undefined) {
    if (inm.trim() === '*') return true;
    // Weak comparison, as If-None-Match uses.
    return inm.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
  }
  const ims = Date.parse(req.headers['if-modified-since'] ?? '');
  return !Number.isNaN(ims) && Math.floor(lastModified.getTime() / 1000) * 1000 <= ims;
}

/** A 20 MiB RSS feed, streamed in chunks (no Content-Length: the reader only learns the size by counting). */
function* hugeRss(origin: string, at: Date): Generator<string> {
  const head = `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0">\n  <channel>\n    <title>Arquivo Econômico</title>\n    <link>${origin}/</link>\n    <description>Todas as notícias do arquivo, desde 1994.</description>\n`;
  yield head;
  let bytes = Buffer.byteLength(head);
  let n = 0;
  while (bytes < OVERSIZED_BYTES) {
    let chunk = '';
    for (let i = 0; i < 200; i += 1, n += 1) {
      chunk += `    <item>\n      <title>Arquivo: cotações e notícias do pregão nº ${n}</title>\n      <link>${origin}/arquivo/${n}</link>\n      <guid isPermaLink="false">arquivo-${n}</guid>\n      <pubDate>${at.toUTCString()}</pubDate>\n      <description>Registro histórico nº ${n} do arquivo de cotações, com abertura, máxima, mínima e fechamento de todas as ações negociadas no dia.</description>\n    </item>\n`;
    }
    bytes += Buffer.byteLength(chunk);
    yield chunk;
  }
  yield '  </channel>\n</rss>\n';
}

/** A 20 MiB article page: its parts and exact length (so it can declare Content-Length). */
function hugePage(): { head: string; chunk: string; count: number; tail: string; length: number } {
  const head = `<!DOCTYPE html>\n<html lang="pt-BR"><head><meta charset="utf-8"><title>Arquivo completo de cotações | Arquivo Econômico</title><meta name="description" content="Todas as cotações da bolsa desde 1994."></head><body><article><h1>Arquivo completo de cotações</h1>\n`;
  const chunk = `<p>Tabela histórica de cotações: abertura, máxima, mínima, fechamento e volume de cada ação negociada na bolsa brasileira, sessão a sessão, com ajustes por proventos, desdobramentos e grupamentos, conforme os comunicados das companhias e os boletins diários da bolsa.</p>\n`;
  const tail = `</article></body></html>\n`;
  const fixed = Buffer.byteLength(head) + Buffer.byteLength(tail);
  const count = Math.ceil((OVERSIZED_BYTES - fixed) / Buffer.byteLength(chunk));
  return { head, chunk, count, tail, length: fixed + count * Buffer.byteLength(chunk) };
}

async function listen(port: number, handler: Handler): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    try {
      handler(req, res, new URL(req.url ?? '/', 'http://double'));
    } catch (err) {
      if (!res.headersSent) json(res, 500, { error: `double failed: ${(err as Error).message}` });
      else res.destroy();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

export async function startNewsWebDouble(options: NewsWebDoubleOptions = {}): Promise<NewsWebDouble> {
  const period = options.itemPeriodMs ?? 60_000;
  const seed = options.seed ?? 1;
  const slowMs = options.slowMs ?? 5_000;
  const feedSize = options.feedSize ?? FEED_LENGTH;
  if (!(period > 0)) throw new Error('itemPeriodMs must be positive');
  if (!Number.isInteger(feedSize) || feedSize < 1) throw new Error('feedSize must be a positive integer');
  // Whole seconds, so feeds (RFC 822 and HTTP dates have no milliseconds) say exactly when.
  const defaultStart = () => new Date(Math.floor((Date.now() - 10 * period) / 1000) * 1000);
  let startAt = options.startAt ?? defaultStart();
  const log: LoggedRequest[] = [];
  const limits: Record<'rateLimited' | 'unavailable', Limit> = { rateLimited: { remaining: Infinity, retryAfter: '120' }, unavailable: { remaining: Infinity, retryAfter: '120' } };
  const pending = new Set<NodeJS.Timeout>();
  const servers: Server[] = [];
  let nextPort = options.basePort ?? 0;
  const portFor = () => (options.basePort ? nextPort++ : 0);

  const runtime = (spec: SiteSpec): SiteRuntime => ({ spec, order: sequence(spec, seed), origin: '', feedUrl: '', manual: new Map(), catalog: new Map() });
  const catalogItem = (rt: SiteRuntime, k: number): CatalogItem => {
    let item = rt.catalog.get(k);
    if (!item) rt.catalog.set(k, (item = itemAt(rt.spec, rt.order, k)));
    return item;
  };
  const publishedAt = (rt: SiteRuntime, k: number) => new Date(rt.spec.fixed ? startAt.getTime() : (rt.manual.get(k) ?? startAt.getTime() + k * period));
  /** How many items the site has published by `now` (manual ones extend the schedule's count). */
  const count = (rt: SiteRuntime, now: number): number => {
    if (rt.spec.fixed) return now >= startAt.getTime() ? 1 : 0;
    const scheduled = now < startAt.getTime() ? 0 : Math.floor((now - startAt.getTime()) / period) + 1;
    return Math.max(scheduled, rt.manual.size === 0 ? 0 : Math.max(...rt.manual.keys()) + 1);
  };
  const linkOf = (rt: SiteRuntime, item: CatalogItem) => `${rt.origin}${item.pagePath}${rt.spec.links === 'utm' ? UTM : ''}`;
  const published = (rt: SiteRuntime, k: number): PublishedItem => {
    const item = catalogItem(rt, k);
    const at = publishedAt(rt, k);
    const canonical = rt.spec.links === 'datedCanonical' ? `${rt.origin}${datedPath(at, item.slug)}` : `${rt.origin}${item.pagePath}`;
    const guid = rt.spec.guid.kind === 'permalink' ? canonical : rt.spec.guid.kind === 'opaque' ? `${rt.spec.guid.prefix}${10_000 + k}` : undefined;
    return { ...item, publishedAt: at, link: linkOf(rt, item), canonical, guid };
  };
  const newest = (rt: SiteRuntime, n: number, now = Date.now()): PublishedItem[] => {
    const items: PublishedItem[] = [];
    for (let k = count(rt, now) - 1; k >= 0 && items.length < n; k -= 1) items.push(published(rt, k));
    return items;
  };

  const record = (req: IncomingMessage, origin: string) => {
    log.push({ method: req.method ?? 'GET', path: req.url ?? '/', origin, headers: { ...req.headers }, at: new Date().toISOString() });
    if (log.length > LOG_LIMIT) log.splice(0, log.length - LOG_LIMIT);
  };

  /** Serves a site: robots.txt, the feed (conditional GET), the home page and article pages. */
  const siteHandler =
    (rt: SiteRuntime): Handler =>
    (req, res, url) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain; charset=utf-8', 'Method Not Allowed', { Allow: 'GET, HEAD' });
      const path = url.pathname;
      if (path === '/robots.txt') return send(res, 200, 'text/plain; charset=utf-8', robotsTxt(rt.spec.name));
      if (path === rt.spec.feedPath) {
        const items = newest(rt, feedSize);
        const updated = items[0]?.publishedAt ?? startAt;
        const body = renderFeed(rt.spec, rt.origin, rt.feedUrl, items, updated);
        const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
        const validators = { ETag: etag, 'Last-Modified': updated.toUTCString(), 'Cache-Control': 'no-cache' };
        if (notModified(req, etag, updated)) {
          res.writeHead(304, validators);
          return res.end();
        }
        return send(res, 200, CONTENT_TYPES[rt.spec.format], body, validators);
      }
      if (path === '/') return send(res, 200, 'text/html; charset=utf-8', renderHome(rt.spec, rt.origin, rt.feedUrl, newest(rt, FEED_LENGTH)));
      const match = /^\/(noticias|privado)\/([a-z0-9-]+)\/?$/.exec(path) ?? (rt.spec.links === 'datedCanonical' ? /^\/(mercados)\/\d{4}\/\d{2}\/([a-z0-9-]+)\/?$/.exec(path) : null);
      if (match) {
        const total = count(rt, Date.now());
        for (let k = total - 1; k >= 0; k -= 1) {
          const item = catalogItem(rt, k);
          if (item.slug !== match[2] || (match[1] === 'privado') !== item.private) continue;
          const related = newest(rt, 5).filter((r) => r.k !== k).slice(0, 4);
          return send(res, 200, 'text/html; charset=utf-8', renderPage(rt.spec, rt.origin, rt.feedUrl, published(rt, k), related));
        }
      }
      return send(res, 404, 'text/html; charset=utf-8', notFoundPage(rt.spec.name));
    };

  const delayed =
    (inner: Handler): Handler =>
    (req, res, url) => {
      if (url.pathname === '/robots.txt') return inner(req, res, url);
      const timer = setTimeout(() => {
        pending.delete(timer);
        inner(req, res, url);
      }, slowMs);
      pending.add(timer);
      res.on('close', () => {
        clearTimeout(timer);
        pending.delete(timer);
      });
    };

  const limited =
    (name: 'rateLimited' | 'unavailable', inner: Handler): Handler =>
    (req, res, url) => {
      const limit = limits[name];
      if (url.pathname === '/robots.txt' || limit.remaining <= 0) return inner(req, res, url);
      limit.remaining -= 1;
      const status = name === 'rateLimited' ? 429 : 503;
      return send(res, status, 'text/html; charset=utf-8', `<html><body><h1>${status === 429 ? 'Too Many Requests' : 'Service Unavailable'}</h1></body></html>`, { 'Retry-After': limit.retryAfter });
    };

  /** An origin that answers every path but robots.txt with `answer`. */
  const faultOrigin =
    (answer: Handler): Handler =>
    (req, res, url) => {
      if (url.pathname === '/robots.txt') return send(res, 200, 'text/plain; charset=utf-8', robotsTxt('fault'));
      return answer(req, res, url);
    };

  const logged = (getOrigin: () => string, inner: Handler): Handler => (req, res, url) => {
    record(req, getOrigin());
    inner(req, res, url);
  };

  // The control origin first (basePort), then the sites, then the faults.
  let controlHandler: Handler = (_req, res) => json(res, 503, { error: 'starting' });
  const control = await listen(options.controlPort ?? portFor(), (req, res, url) => controlHandler(req, res, url));
  servers.push(control.server);

  const sites = WELL_BEHAVED.map(runtime);
  for (const rt of sites) {
    const { server, origin } = await listen(portFor(), logged(() => rt.origin, siteHandler(rt)));
    servers.push(server);
    rt.origin = origin;
    rt.feedUrl = `${origin}${rt.spec.feedPath}`;
  }

  const faultSites = { slow: runtime(FAULT_SITES.slow), rateLimited: runtime(FAULT_SITES.rateLimited), unavailable: runtime(FAULT_SITES.unavailable) };
  const huge = hugePage();
  const faultHandlers: Record<FaultName, { handler: (origin: () => string) => Handler; path: string }> = {
    malformed: { path: '/feed.xml', handler: (o) => faultOrigin((_req, res) => send(res, 200, CONTENT_TYPES.rss, truncatedRss(o(), startAt))) },
    slow: { path: '/feed.xml', handler: () => delayed(siteHandler(faultSites.slow)) },
    rateLimited: { path: '/feed.xml', handler: () => limited('rateLimited', siteHandler(faultSites.rateLimited)) },
    unavailable: { path: '/feed.xml', handler: () => limited('unavailable', siteHandler(faultSites.unavailable)) },
    oversized: {
      path: '/feed.xml',
      handler: (o) =>
        faultOrigin((req, res, url) => {
          if (url.pathname === '/feed.xml') {
            res.writeHead(200, { 'Content-Type': CONTENT_TYPES.rss });
            // A reader that stops early closes the connection; that error is expected.
            return void pipeline(Readable.from(hugeRss(o(), startAt)), res, () => undefined);
          }
          if (url.pathname === '/noticias/arquivo-completo-de-cotacoes') {
            res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(huge.length) });
            const parts = function* () {
              yield huge.head;
              for (let i = 0; i < huge.count; i += 1) yield huge.chunk;
              yield huge.tail;
            };
            return void pipeline(Readable.from(parts()), res, () => undefined);
          }
          if (url.pathname === '/feed-pagina-grande.xml') {
            const item: PublishedItem = {
              siteId: 'arquivo-economico',
              k: 0,
              cycle: 0,
              storyKey: 'arquivo-completo-de-cotacoes',
              title: 'Arquivo completo de cotações da bolsa desde 1994',
              subtitle: 'Todas as sessões, ação por ação',
              summary: 'O Arquivo Econômico reúne em uma única página as cotações de todas as ações negociadas na bolsa brasileira desde 1994.',
              body: [],
              paywalled: false,
              private: false,
              breaking: false,
              sector: 'FIN',
              section: 'Finanças',
              tickers: [],
              author: 'Arquivo Econômico',
              slug: 'arquivo-completo-de-cotacoes',
              pagePath: '/noticias/arquivo-completo-de-cotacoes',
              publishedAt: startAt,
              link: `${o()}/noticias/arquivo-completo-de-cotacoes`,
              canonical: `${o()}/noticias/arquivo-completo-de-cotacoes`,
              guid: 'arquivo-economico:1',
            };
            const archive: SiteSpec = { ...FAULT_SITES.slow, id: 'arquivo-economico', name: 'Arquivo Econômico', description: 'O arquivo de cotações da bolsa.' };
            return send(res, 200, CONTENT_TYPES.rss, renderFeed(archive, o(), `${o()}/feed-pagina-grande.xml`, [item], startAt));
          }
          return send(res, 404, 'text/html; charset=utf-8', notFoundPage('Arquivo Econômico'));
        }),
    },
    redirectLoop: {
      path: '/a',
      handler: () =>
        faultOrigin((_req, res, url) => {
          if (url.pathname === '/a') return redirect(res, 302, '/b');
          if (url.pathname === '/b') return redirect(res, 302, '/a');
          return send(res, 404, 'text/html; charset=utf-8', notFoundPage('fault'));
        }),
    },
    redirectPrivate: { path: '/feed.xml', handler: () => faultOrigin((_req, res) => redirect(res, 302, 'http://169.254.169.254/latest/meta-data/')) },
    redirectPrivateNet: { path: '/feed.xml', handler: () => faultOrigin((_req, res) => redirect(res, 301, 'http://10.0.0.7/feed.xml')) },
    nonHttpRedirect: { path: '/feed.xml', handler: () => faultOrigin((_req, res) => redirect(res, 307, 'file:///etc/passwd')) },
    notFound: { path: '/feed.xml', handler: () => faultOrigin((_req, res) => send(res, 404, 'text/html; charset=utf-8', notFoundPage('fault'))) },
  };
  const faults = {} as Record<FaultName, string>;
  const faultOrigins = {} as Record<FaultName, string>;
  for (const name of FAULT_NAMES) {
    let origin = '';
    const { server, origin: o } = await listen(portFor(), logged(() => origin, faultHandlers[name].handler(() => origin)));
    origin = o;
    servers.push(server);
    faultOrigins[name] = origin;
    faults[name] = `${origin}${faultHandlers[name].path}`;
  }
  for (const name of ['slow', 'rateLimited', 'unavailable'] as const) {
    faultSites[name].origin = faultOrigins[name];
    faultSites[name].feedUrl = faults[name];
  }

  const publicSites: NewsWebSite[] = sites.map(({ spec, origin, feedUrl }) => ({
    id: spec.id,
    name: spec.name,
    origin,
    feedUrl,
    format: spec.format,
    language: 'pt',
    tier: spec.tier,
    ...(spec.defaultSector ? { defaultSector: spec.defaultSector } : {}),
  }));

  /** The feed link of a story as its own outlet (not a copy) publishes it, first time round. */
  const linkOfStory = (key: string): string => {
    for (const rt of sites) {
      const k = rt.order.findIndex((slot) => slot.story.key === key && !slot.copy);
      if (k >= 0) return linkOf(rt, catalogItem(rt, k));
    }
    throw new Error(`no story ${key}`);
  };
  const firstItems = sites.flatMap((rt) => rt.order.map((slot, k) => ({ rt, slot, item: catalogItem(rt, k) })));
  const scenarios: NewsWebScenarios = {
    syndicated: firstItems.filter(({ slot }) => slot.copy).map(({ rt, slot, item }) => ({ original: linkOfStory(slot.story.key), copy: linkOf(rt, item) })),
    sameCompany: [
      { ticker: 'VALE3', links: ['vale-dividendos-extraordinarios', 'vale-mariana-parcela'].map(linkOfStory) },
      { ticker: 'PETR4', links: ['petrobras-producao-recorde', 'petrobras-ceo-renuncia', 'petrobras-reduz-diesel'].map(linkOfStory) },
    ],
    paywalled: firstItems.filter(({ slot }) => slot.paywalled).map(({ rt, item }) => linkOf(rt, item)),
    disallowed: firstItems.filter(({ slot }) => slot.private).map(({ rt, item }) => linkOf(rt, item))[0]!,
    breaking: firstItems.filter(({ item }) => item.breaking).map(({ rt, item }) => linkOf(rt, item)),
  };
  const oversizedPage = `${faultOrigins.oversized}/noticias/arquivo-completo-de-cotacoes`;
  const oversizedPageFeed = `${faultOrigins.oversized}/feed-pagina-grande.xml`;

  controlHandler = (req, res, url) => {
    void (async () => {
      const raw = await readBody(req);
      const body = (() => {
        try {
          return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
        } catch {
          return undefined;
        }
      })();
      if (body === undefined) return json(res, 400, { error: 'the body must be JSON' });
      if (url.pathname === '/__control/info' && req.method === 'GET') {
        return json(res, 200, { url: control.origin, sites: publicSites, faults, oversizedPage, oversizedPageFeed, scenarios });
      }
      if (url.pathname === '/__control/requests' && req.method === 'GET') {
        const origin = url.searchParams.get('origin')?.replace(/\/$/, '');
        return json(res, 200, { requests: log.filter((r) => !origin || r.origin === origin) });
      }
      if (url.pathname === '/__control/reset' && req.method === 'POST') {
        log.length = 0;
        for (const limit of Object.values(limits)) Object.assign(limit, { remaining: Infinity, retryAfter: '120' });
        for (const rt of sites) rt.manual.clear();
        if (!options.startAt) startAt = defaultStart();
        return json(res, 200, { ok: true });
      }
      if (url.pathname === '/__control/publish' && req.method === 'POST') {
        const rt = sites.find((s) => s.spec.id === body.site);
        if (!rt) return json(res, 404, { error: `no site ${String(body.site)}; sites: ${sites.map((s) => s.spec.id).join(', ')}` });
        const n = body.count ?? 1;
        if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 1_000) return json(res, 400, { error: 'count must be an integer from 1 to 1000' });
        const now = Date.now();
        const first = count(rt, now);
        for (let k = first; k < first + n; k += 1) rt.manual.set(k, now);
        const items = Array.from({ length: n }, (_, i) => published(rt, first + i));
        return json(res, 200, { published: items.map((i) => ({ site: rt.spec.id, title: i.title, link: i.link, guid: i.guid ?? null, publishedAt: i.publishedAt.toISOString() })) });
      }
      if (url.pathname === '/__control/fault' && req.method === 'POST') {
        if (body.name !== 'rateLimited' && body.name !== 'unavailable') return json(res, 400, { error: "name must be 'rateLimited' or 'unavailable'" });
        const { remaining, retryAfter } = body;
        if (remaining !== null && (typeof remaining !== 'number' || !Number.isInteger(remaining) || remaining < 0)) {
          return json(res, 400, { error: 'remaining must be a non-negative integer, or null for unlimited' });
        }
        if (retryAfter !== undefined && (typeof retryAfter !== 'string' || retryAfter.trim() === '')) return json(res, 400, { error: 'retryAfter must be a non-empty string (seconds or an HTTP-date)' });
        limits[body.name] = { remaining: remaining ?? Infinity, retryAfter: retryAfter ?? '120' };
        return json(res, 200, { ok: true });
      }
      return json(res, 404, { error: `no control route ${req.method} ${url.pathname}` });
    })().catch((err: unknown) => json(res, 500, { error: `double failed: ${(err as Error).message}` }));
  };

  return {
    sites: publicSites,
    faults,
    oversizedPage,
    oversizedPageFeed,
    scenarios,
    url: control.origin,
    close: async () => {
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              // Slow answers and half-read 20 MB bodies would otherwise hold close() open.
              server.closeAllConnections();
            }),
        ),
      );
    },
  };
}

/** The control API, for tests. */
export function newsWebDoubleControl(baseUrl: string) {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
    const answer = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${path}: ${res.status} ${String(answer.error)}`);
    return answer;
  };
  return {
    async requests(origin?: string): Promise<LoggedRequest[]> {
      const res = await fetch(`${baseUrl}/__control/requests${origin ? `?origin=${encodeURIComponent(origin)}` : ''}`);
      return ((await res.json()) as { requests: LoggedRequest[] }).requests;
    },
    async publish(site: string, count = 1): Promise<{ site: string; title: string; link: string; guid: string | null; publishedAt: string }[]> {
      return (await post('/__control/publish', { site, count })).published as { site: string; title: string; link: string; guid: string | null; publishedAt: string }[];
    },
    /** The next `remaining` requests to the fault's origin fail (null: all of them, the default). */
    async fault(name: 'rateLimited' | 'unavailable', remaining: number | null, retryAfter?: string): Promise<void> {
      await post('/__control/fault', { name, remaining, retryAfter });
    },
    async reset(): Promise<void> {
      await post('/__control/reset', {});
    },
  };
}
