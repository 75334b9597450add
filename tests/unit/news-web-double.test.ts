/**
 * The news-web double speaks the real wire formats and holds the cases it promises: every feed
 * parses with feedsmith in its declared format, pages carry real head metadata and Readability
 * (over linkedom) extracts the story and not the boilerplate, syndicated copies read as one story
 * while different stories (even about one company) do not, feeds answer conditional GETs, and
 * each fault behaves as named. The whole suite runs against one double in this process.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseFeed } from 'feedsmith';
import robotsParser from 'robots-parser';
import { fold } from '../../models/news/text.rules';
import { newsWebDoubleControl, OVERSIZED_BYTES, startNewsWebDouble, type NewsWebDouble } from '../doubles/news-web-double';
import { ALL_STORIES, WELL_BEHAVED, itemAt, sequence } from '../doubles/news-web/sites';

const SLOW_MS = 300;
let double: NewsWebDouble;
let control: ReturnType<typeof newsWebDoubleControl>;

beforeAll(async () => {
  double = await startNewsWebDouble({ slowMs: SLOW_MS });
  control = newsWebDoubleControl(double.url);
});
afterAll(() => double.close());
beforeEach(() => control.reset());

interface Entry {
  title: string;
  link: string;
  id?: string;
  date: number;
  summary: string;
}

/** Atom text constructs with a type attribute come back from feedsmith as {value, type}. */
const text = (v: unknown) => (typeof v === 'object' && v !== null && 'value' in v ? String(v.value) : String(v));

/** A feed's entries, whatever its format (feedsmith keeps each format's own shape). */
function entriesOf(body: string): { format: string; entries: Entry[] } {
  const parsed = parseFeed(body);
  if (parsed.format === 'atom') {
    return {
      format: 'atom',
      entries: (parsed.feed.entries ?? []).map((e) => ({ title: text(e.title), link: e.links?.find((l) => l.rel === 'alternate')?.href ?? '', id: e.id, date: Date.parse(String(e.published)), summary: text(e.summary) })),
    };
  }
  if (parsed.format === 'json') {
    return { format: 'json', entries: (parsed.feed.items ?? []).map((i) => ({ title: String(i.title), link: String(i.url), id: i.id, date: Date.parse(String(i.date_published)), summary: String(i.summary) })) };
  }
  if (parsed.format === 'rss') {
    return { format: 'rss', entries: (parsed.feed.items ?? []).map((i) => ({ title: String(i.title), link: String(i.link), id: i.guid?.value, date: Date.parse(String(i.pubDate)), summary: String(i.description) })) };
  }
  throw new Error(`unexpected format ${parsed.format}`);
}

const get = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers });
  return { res, body: await res.text() };
};

const feedOf = async (url: string) => entriesOf((await get(url)).body).entries;

/** What a page says about itself (parsed by linkedom) and its main text (as Readability finds it). */
interface PageView {
  title: string;
  description: string | null;
  ogTitle: string | null;
  ogUrl: string | null;
  canonical: string | null;
  publishedTime: string | null;
  jsonLd: Record<string, unknown> | null;
  h1: string | null;
  linhaFina: string | null;
  article: { title: string; text: string } | null;
}

// Jest cannot load linkedom in this process: its CommonJS build requires css-select, which ships
// only ES modules, and Jest loads those only under --experimental-vm-modules or when
// jest.config.js transforms them. Plain Node 24 requires ES modules natively, so the pages are
// read in a child Node process, with the real linkedom and Readability.
const READ_PAGES = `
const { parseHTML } = require('linkedom');
const { Readability } = require('@mozilla/readability');
const pages = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(pages.map((html) => {
  const { document } = parseHTML(html);
  const q = (selector, attribute) => {
    const el = document.querySelector(selector);
    return el ? (attribute ? el.getAttribute(attribute) : el.textContent) : null;
  };
  const ld = q('script[type="application/ld+json"]');
  const view = {
    title: document.title,
    description: q('meta[name="description"]', 'content'),
    ogTitle: q('meta[property="og:title"]', 'content'),
    ogUrl: q('meta[property="og:url"]', 'content'),
    canonical: q('link[rel="canonical"]', 'href'),
    publishedTime: q('meta[property="article:published_time"]', 'content'),
    jsonLd: ld ? JSON.parse(ld) : null,
    h1: q('article h1'),
    linhaFina: q('article .linha-fina'),
  };
  const article = new Readability(document).parse();
  view.article = article ? { title: article.title, text: article.textContent.replace(/\\s+/g, ' ').trim() } : null;
  return view;
})));
`;

function readPages(htmls: string[]): PageView[] {
  const out = execFileSync(process.execPath, ['-e', READ_PAGES], { input: JSON.stringify(htmls), cwd: path.resolve(__dirname, '../..'), maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(out.toString()) as PageView[];
}

const readUrls = async (urls: string[]) => readPages(await Promise.all(urls.map(async (u) => (await get(u)).body)));

/** Jaccard similarity of 5-word shingles (case and accents folded): what a near-duplicate check uses. */
function similarity(a: string, b: string): number {
  const shingles = (t: string) => {
    const words = fold(t).split(/[^a-z0-9]+/).filter(Boolean);
    return new Set(words.slice(0, -4).map((_, i) => words.slice(i, i + 5).join(' ')));
  };
  const sa = shingles(a);
  const sb = shingles(b);
  const shared = [...sa].filter((s) => sb.has(s)).length;
  return shared / (sa.size + sb.size - shared);
}

const storyTitled = (title: string) => ALL_STORIES.find((s) => s.title === title || s.wireTitle === title)!;

describe('feeds', () => {
  it('serves each site in its declared format, parseable by feedsmith, with the 11 items published so far, newest first', async () => {
    expect(double.sites.map((s) => s.format).sort()).toEqual(['atom', 'json', 'rss', 'rss', 'rss']);
    expect(new Set(double.sites.map((s) => s.origin)).size).toBe(double.sites.length);
    expect(new Set(double.sites.map((s) => s.tier))).toEqual(new Set([1, 2, 3]));
    for (const site of double.sites) {
      const { res, body } = await get(site.feedUrl);
      expect(res.status).toBe(200);
      const { format, entries } = entriesOf(body);
      expect(format).toBe(site.format);
      expect(entries).toHaveLength(11);
      expect(new Set(entries.map((e) => e.title)).size).toBe(11);
      for (const e of entries) {
        expect(e.link.startsWith(`${site.origin}/`)).toBe(true);
        expect(e.summary.length).toBeGreaterThan(40);
        expect(Number.isNaN(e.date)).toBe(false);
      }
      const dates = entries.map((e) => e.date);
      expect(dates).toEqual([...dates].sort((a, b) => b - a));
    }
  });

  it('gives ids as each site does: permalink guids, opaque ids, or none (the link is all there is)', async () => {
    const byId = Object.fromEntries(double.sites.map((s) => [s.id, s]));
    const diario = await feedOf(byId['diario-do-mercado']!.feedUrl);
    for (const e of diario) {
      const clean = new URL(e.link);
      for (const key of [...clean.searchParams.keys()]) if (key.startsWith('utm_')) clean.searchParams.delete(key);
      expect(e.link).toContain('utm_source=rss');
      expect(e.id).toBe(clean.toString());
    }
    expect((await feedOf(byId['radar-b3']!.feedUrl)).every((e) => e.id === undefined)).toBe(true);
    const atomIds = (await feedOf(byId['pregao-online']!.feedUrl)).map((e) => e.id);
    expect(atomIds.every((id) => id?.startsWith('tag:pregao-online.test,2025:'))).toBe(true);
  });
});

describe('pages', () => {
  it('carry head metadata, and Readability extracts the story without the boilerplate', async () => {
    const site = double.sites.find((s) => s.id === 'diario-do-mercado')!;
    const [entry] = await feedOf(site.feedUrl);
    const { res, body } = await get(entry!.link);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const [page] = readPages([body]);
    const canonical = entry!.link.split('?')[0]!;
    expect(page).toMatchObject({ title: `${entry!.title} | ${site.name}`, description: entry!.summary, ogTitle: entry!.title, ogUrl: canonical, canonical, h1: entry!.title });
    expect(Date.parse(page!.publishedTime!)).toBe(entry!.date);
    expect(page!.jsonLd).toMatchObject({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: entry!.title, isAccessibleForFree: true });
    expect(Date.parse(String(page!.jsonLd!.datePublished))).toBe(entry!.date);
    const story = storyTitled(entry!.title);
    expect(page!.linhaFina).toBe(story.subtitle);

    const { article } = page!;
    expect(article!.title).toContain(entry!.title.replace(/^URGENTE: /, ''));
    for (const paragraph of story.body) expect(article!.text).toContain(paragraph);
    expect(article!.text.split(' ').length).toBeGreaterThanOrEqual(250);
    for (const boilerplate of ['Todos os direitos reservados', 'Leia também', 'Cadastre-se gratuitamente', 'Usamos cookies', 'O jornal do investidor', 'Finanças Pessoais', 'Compartilhe']) {
      expect(article!.text).not.toContain(boilerplate);
    }
  });

  it('declare a dated canonical path on Pregão Online, different from the feed link, that serves the same page', async () => {
    const site = double.sites.find((s) => s.id === 'pregao-online')!;
    const [entry] = await feedOf(site.feedUrl);
    const [page] = await readUrls([entry!.link]);
    const canonical = page!.canonical!;
    expect(canonical).toMatch(new RegExp(`^${site.origin}/mercados/\\d{4}/\\d{2}/[a-z0-9-]+$`));
    expect(new URL(canonical).pathname.split('/').pop()).toBe(new URL(entry!.link).pathname.split('/').pop());
    expect((await fetch(canonical)).status).toBe(200);
    const [again] = await readUrls([canonical]);
    expect(again!.h1).toBe(entry!.title);
  });

  it('show only a teaser behind the paywall, and say so in JSON-LD', async () => {
    expect(double.scenarios.paywalled.length).toBeGreaterThanOrEqual(2);
    const folha = double.sites.find((s) => s.id === 'folha-economica')!;
    const links = (await feedOf(folha.feedUrl)).map((e) => e.link);
    const bodies = await Promise.all(double.scenarios.paywalled.map(async (link) => (await get(link)).body));
    const pages = readPages(bodies);
    double.scenarios.paywalled.forEach((link, i) => {
      expect(links).toContain(link);
      const story = storyTitled(pages[i]!.h1!);
      expect(bodies[i]).toContain('Conteúdo exclusivo para assinantes');
      expect(pages[i]!.jsonLd).toMatchObject({ isAccessibleForFree: false, hasPart: { isAccessibleForFree: false, cssSelector: '.paywall' } });
      expect(bodies[i]).toContain(story.body[0]!.slice(0, 80));
      expect(bodies[i]).not.toContain(story.body[1]!.slice(0, 80));
    });
  });

  it('answer 404 for a story not yet published, and 200 once it is', async () => {
    const spec = WELL_BEHAVED.find((s) => s.id === 'boletim-financeiro')!;
    const next = itemAt(spec, sequence(spec, 1), 11);
    const site = double.sites.find((s) => s.id === spec.id)!;
    expect((await get(`${site.origin}${next.pagePath}`)).res.status).toBe(404);
    await control.publish(spec.id);
    expect((await get(`${site.origin}${next.pagePath}`)).res.status).toBe(200);
  });
});

describe('stories', () => {
  it('are at least 40, in Portuguese news shape, with breaking news among them, and no two alike', () => {
    expect(ALL_STORIES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(ALL_STORIES.map((s) => s.key)).size).toBe(ALL_STORIES.length);
    for (const s of ALL_STORIES) {
      expect(s.body.length).toBeGreaterThanOrEqual(4);
      expect(s.body.length).toBeLessThanOrEqual(8);
      expect(s.body.join(' ').split(/\s+/).length).toBeGreaterThanOrEqual(250);
      expect(s.summary.length).toBeLessThan(s.body[0]!.length + s.body[1]!.length);
    }
    expect(ALL_STORIES.filter((s) => s.breaking && s.title.startsWith('URGENTE:')).length).toBeGreaterThanOrEqual(3);
    let closest = 0;
    for (let i = 0; i < ALL_STORIES.length; i += 1) {
      for (let j = i + 1; j < ALL_STORIES.length; j += 1) {
        closest = Math.max(closest, similarity(ALL_STORIES[i]!.body.join(' '), ALL_STORIES[j]!.body.join(' ')));
      }
    }
    expect(closest).toBeLessThan(0.05);
  });

  it('syndicated copies read as the same story; different stories about one company do not', async () => {
    expect(double.scenarios.syndicated.length).toBeGreaterThanOrEqual(3);
    const pairs = double.scenarios.syndicated;
    const pages = await readUrls(pairs.flatMap(({ original, copy }) => [original, copy]));
    pairs.forEach(({ original, copy }, i) => {
      const a = pages[2 * i]!.article!;
      const b = pages[2 * i + 1]!.article!;
      expect(new URL(copy).origin).not.toBe(new URL(original).origin);
      expect(b.title).not.toBe(a.title);
      expect(b.text).toContain('Com informações da Agência Boletim Financeiro');
      expect(similarity(a.text, b.text)).toBeGreaterThan(0.6);
    });
    for (const { links } of double.scenarios.sameCompany) {
      const texts = (await readUrls(links)).map((p) => p.article!.text);
      for (let i = 0; i < texts.length; i += 1) for (let j = i + 1; j < texts.length; j += 1) expect(similarity(texts[i]!, texts[j]!)).toBeLessThan(0.1);
    }
  });

  it('cycle past the pool with new URLs and edition headlines, after 14 distinct stories a site', () => {
    for (const spec of WELL_BEHAVED) {
      const order = sequence(spec, 1);
      const items = Array.from({ length: 150 }, (_, k) => itemAt(spec, order, k));
      expect(new Set(items.slice(0, 14).map((i) => i.storyKey)).size).toBe(14);
      expect(new Set(items.map((i) => i.slug)).size).toBe(150);
      expect(new Set(items.map((i) => i.title)).size).toBe(150);
      expect(items[14]!.storyKey).toBe(items[0]!.storyKey);
      expect(items[14]!.title).toBe(`${items[0]!.title} (2ª edição)`);
    }
  });

  it('are ordered by the seed, pinned cases aside', () => {
    for (const spec of WELL_BEHAVED) {
      expect(sequence(spec, 1).map((s) => s.story.key)).toEqual(sequence(spec, 1).map((s) => s.story.key));
      sequence(spec, 2).forEach((slot, k) => {
        if (slot.at !== undefined) expect(slot.at).toBe(k);
      });
    }
    const orders = (seed: number) => WELL_BEHAVED.map((spec) => sequence(spec, seed).map((s) => s.story.key).join());
    expect(orders(1)).not.toEqual(orders(2));
  });
});

describe('politeness', () => {
  it('has robots.txt on every origin forbidding /privado/ only, and one feed item under it', async () => {
    const origins = [...double.sites.map((s) => s.origin), ...Object.values(double.faults).map((f) => new URL(f).origin)];
    for (const origin of origins) {
      const { res, body } = await get(`${origin}/robots.txt`);
      expect(res.status).toBe(200);
      const robots = robotsParser(`${origin}/robots.txt`, body);
      expect(robots.isAllowed(`${origin}/privado/qualquer-coisa`, 'NewsBot')).toBe(false);
      expect(robots.isAllowed(`${origin}/noticias/qualquer-coisa`, 'NewsBot')).toBe(true);
    }
    const radar = double.sites.find((s) => s.id === 'radar-b3')!;
    const item = (await feedOf(radar.feedUrl)).find((e) => e.link === double.scenarios.disallowed);
    expect(new URL(double.scenarios.disallowed).pathname).toMatch(/^\/privado\//);
    expect(item?.summary).toMatch(/carteira recomendada/);
  });

  it('answers conditional GETs on every feed with 304 and no body, until something is published', async () => {
    for (const site of double.sites) {
      const first = await get(site.feedUrl);
      const etag = first.res.headers.get('etag')!;
      const lastModified = first.res.headers.get('last-modified')!;
      expect(etag).toMatch(/^"[0-9a-f]+"$/);
      expect(Date.parse(lastModified)).toBe(entriesOf(first.body).entries[0]!.date);
      const conditions: Record<string, string>[] = [{ 'if-none-match': etag }, { 'if-modified-since': lastModified }, { 'if-none-match': `"other", ${etag}` }];
      for (const headers of conditions) {
        const again = await get(site.feedUrl, headers);
        expect(again.res.status).toBe(304);
        expect(again.body).toBe('');
        expect(again.res.headers.get('etag')).toBe(etag);
      }
      // If-None-Match decides when both are sent.
      expect((await get(site.feedUrl, { 'if-none-match': '"stale"', 'if-modified-since': lastModified })).res.status).toBe(200);
    }
    const site = double.sites[0]!;
    const etag = (await get(site.feedUrl)).res.headers.get('etag')!;
    await control.publish(site.id);
    const after = await get(site.feedUrl, { 'if-none-match': etag });
    expect(after.res.status).toBe(200);
    expect(after.res.headers.get('etag')).not.toBe(etag);
  });
});

describe('control', () => {
  it('publishes the next items now, newest first, keeps 20 in the feed, and refuses an unknown site', async () => {
    const site = double.sites.find((s) => s.id === 'pregao-online')!;
    const before = await feedOf(site.feedUrl);
    const published = await control.publish(site.id, 3);
    expect(published).toHaveLength(3);
    const after = await feedOf(site.feedUrl);
    expect(after).toHaveLength(14);
    expect(after.slice(0, 3).map((e) => e.title).sort()).toEqual(published.map((p) => p.title).sort());
    expect(before.map((e) => e.title)).not.toContain(published[0]!.title);
    expect(Math.abs(after[0]!.date - Date.now())).toBeLessThan(5_000);
    await control.publish(site.id, 15);
    expect(await feedOf(site.feedUrl)).toHaveLength(20);
    await expect(control.publish('jornal-inexistente')).rejects.toThrow(/404/);
  });

  it('logs each request with its origin and headers, and reset clears the log and republishes from the start', async () => {
    const [a, b] = double.sites;
    await fetch(a!.feedUrl, { headers: { 'user-agent': 'NewsBot/1.0 (+https://example.test/bot)', 'if-none-match': '"abc"' } });
    const logged = await control.requests(a!.origin);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ method: 'GET', path: new URL(a!.feedUrl).pathname, origin: a!.origin, headers: { 'user-agent': 'NewsBot/1.0 (+https://example.test/bot)', 'if-none-match': '"abc"' } });
    expect(Number.isNaN(Date.parse(logged[0]!.at))).toBe(false);
    expect(await control.requests(b!.origin)).toEqual([]);

    await control.publish(a!.id, 2);
    await control.reset();
    expect(await control.requests()).toEqual([]);
    expect(await feedOf(a!.feedUrl)).toHaveLength(11);
  });

  it('gives the same feeds for the same seed and start, whatever the ports', async () => {
    const startAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 600_000);
    const twins = await Promise.all([startNewsWebDouble({ startAt, seed: 5 }), startNewsWebDouble({ startAt, seed: 5 })]);
    try {
      const feeds = await Promise.all(twins.map((d) => Promise.all(d.sites.map(async (s) => (await feedOf(s.feedUrl)).map((e) => [e.title, e.date, new URL(e.link).pathname])))));
      expect(feeds[0]).toEqual(feeds[1]);
    } finally {
      await Promise.all(twins.map((d) => d.close()));
    }
  });
});

describe('faults', () => {
  it('malformed: a feed that is not well-formed XML', async () => {
    const { res, body } = await get(double.faults.malformed);
    expect(res.status).toBe(200);
    expect(body).not.toContain('</rss>');
    expect(() => parseFeed(body)).toThrow();
  });

  it('slow: the feed answers only after the delay, so a short timeout gives up', async () => {
    const started = Date.now();
    const { body } = await get(double.faults.slow);
    expect(Date.now() - started).toBeGreaterThanOrEqual(SLOW_MS - 10);
    const [entry] = entriesOf(body).entries;
    await expect(fetch(double.faults.slow, { signal: AbortSignal.timeout(50) })).rejects.toThrow();
    const page = Date.now();
    expect((await get(entry!.link)).res.status).toBe(200);
    expect(Date.now() - page).toBeGreaterThanOrEqual(SLOW_MS - 10);
  });

  it('rateLimited and unavailable: 429 and 503 with Retry-After until told otherwise', async () => {
    for (const [name, status] of [['rateLimited', 429], ['unavailable', 503]] as const) {
      for (let i = 0; i < 3; i += 1) {
        const { res } = await get(double.faults[name]);
        expect(res.status).toBe(status);
        expect(res.headers.get('retry-after')).toBe('120');
      }
      const date = new Date(Date.now() + 90_000).toUTCString();
      await control.fault(name, 1, date);
      const limited = await get(double.faults[name]);
      expect(limited.res.status).toBe(status);
      expect(limited.res.headers.get('retry-after')).toBe(date);
      const ok = await get(double.faults[name]);
      expect(ok.res.status).toBe(200);
      expect(entriesOf(ok.body).entries).toHaveLength(1);
    }
    await control.reset();
    expect((await get(double.faults.rateLimited)).res.status).toBe(429);
  });

  it('oversized: a 20 MB feed streamed without a length, a 20 MB page with one, and a feed that links to it', async () => {
    const count = async (url: string) => {
      const res = await fetch(url);
      let bytes = 0;
      let last = '';
      for await (const chunk of res.body!) {
        bytes += chunk.length;
        last = Buffer.from(chunk).toString('utf8').slice(-40);
      }
      return { res, bytes, last };
    };
    const feed = await count(double.faults.oversized);
    expect(feed.res.headers.get('content-length')).toBeNull();
    expect(feed.bytes).toBeGreaterThanOrEqual(OVERSIZED_BYTES);
    expect(feed.last).toContain('</rss>');
    const page = await count(double.oversizedPage);
    expect(Number(page.res.headers.get('content-length'))).toBe(page.bytes);
    expect(page.bytes).toBeGreaterThanOrEqual(OVERSIZED_BYTES);
    const [entry] = entriesOf((await get(double.oversizedPageFeed)).body).entries;
    expect(entry!.link).toBe(double.oversizedPage);
  });

  it('redirects: a loop, to the metadata address, to a private network, and to file:', async () => {
    const manual = (url: string) => fetch(url, { redirect: 'manual' });
    const loop = await manual(double.faults.redirectLoop);
    expect(loop.status).toBe(302);
    expect(loop.headers.get('location')).toBe('/b');
    const back = await manual(new URL('/b', double.faults.redirectLoop).toString());
    expect(back.headers.get('location')).toBe('/a');
    await expect(fetch(double.faults.redirectLoop)).rejects.toThrow();
    expect((await manual(double.faults.redirectPrivate)).headers.get('location')).toBe('http://169.254.169.254/latest/meta-data/');
    expect((await manual(double.faults.redirectPrivateNet)).headers.get('location')).toBe('http://10.0.0.7/feed.xml');
    const file = await manual(double.faults.nonHttpRedirect);
    expect(file.status).toBeGreaterThanOrEqual(300);
    expect(file.headers.get('location')).toBe('file:///etc/passwd');
  });

  it('notFound: 404', async () => {
    expect((await get(double.faults.notFound)).res.status).toBe(404);
  });
});
