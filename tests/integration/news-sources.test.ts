/**
 * News sources end to end (issue 25) on the test stack: the admin API, the source's poller on
 * Temporal, the news sites double (real RSS, Atom and JSON Feed, real HTML pages) read through the
 * polite fetcher, articles published once enriched by the OpenAI double, and every fault the
 * double serves handled as a source's health.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { collectionOf } from '../../models/infra/mongo';
import type { FeedItemDoc } from '../../models/news/sources/feed-item.repo';
import { workflowIds } from '../../workflows/ids';
import { accountWithKey, startNewsService, withKey, type NewsService } from '../helpers/news';
import { tokenFor } from '../helpers/service';
import { until } from '../helpers/time-skipping';

jest.setTimeout(120_000);

interface Site {
  id: string;
  name: string;
  feedUrl: string;
  origin: string;
  format: string;
  tier: number;
  defaultSector?: string;
}
interface Sites {
  sites: Site[];
  faults: Record<string, string>;
}

const DOUBLE = process.env.NEWS_WEB_DOUBLE_URL!;
let svc: NewsService;
let admin: string;
let web: Sites;

const control = async (path: string, body?: unknown) => {
  const res = await fetch(`${DOUBLE}/__control/${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`double ${path}: ${res.status}`);
  return (await res.json()) as unknown;
};

beforeAll(async () => {
  svc = await startNewsService();
  admin = `Bearer ${await tokenFor('news-admin', ['news.admin'])}`;
  web = (await control('info')) as Sites;
});
afterAll(async () => {
  await svc?.close();
});

const api = () => request(svc.callback);
const addSource = (body: Record<string, unknown>) => api().post('/api/admin/sources').set('Authorization', admin).send(body);
const sourceOf = async (id: string) => (await api().get(`/api/admin/sources/${id}`).set('Authorization', admin)).body.data as {
  state: string;
  health: { lastPollAt: string | null; lastSuccessAt: string | null; lastError: string | null; consecutiveFailures: number; itemsSeen: number; articlesCreated: number; nextPollAt: string | null };
};
const items = () => collectionOf<FeedItemDoc>(svc.deps.mongo.conn, 'news_feed_items');

describe('the admin API', () => {
  it('adds, reads, lists, changes and removes a source; a feed read already is a 409; bad input is a 400 and stores nothing', async () => {
    const feedUrl = `https://feeds.example.test/${randomUUID()}.xml`;
    const created = await addSource({ name: 'Fonte de teste', feedUrl, tier: 1, defaultSector: 'FIN', enabled: false });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(created.headers.location).toBe(`/api/admin/sources/${id}`);
    expect(created.body.data).toMatchObject({ name: 'Fonte de teste', feedUrl, tier: 1, language: 'pt', defaultSector: 'FIN', pollIntervalMinutes: 5, enabled: false, state: 'disabled', workflowId: workflowIds.newsSource(id) });

    expect((await addSource({ name: 'Outra', feedUrl: `${feedUrl}#x` })).status).toBe(409);
    for (const bad of [
      { name: 'Sem URL' },
      { name: 'FTP', feedUrl: 'ftp://example.test/feed' },
      { name: 'Credenciais', feedUrl: 'https://user:pw@example.test/feed' },
      { name: 'Rápida demais', feedUrl: 'https://example.test/a', pollIntervalMinutes: 0 },
      { name: 'Tier', feedUrl: 'https://example.test/b', tier: 4 },
      { name: 'Setor', feedUrl: 'https://example.test/c', defaultSector: 'XYZ' },
      { name: 'Extra', feedUrl: 'https://example.test/d', owner: 'me' },
    ]) {
      const res = await addSource(bad);
      expect([res.status, res.body.success]).toEqual([400, false]);
    }
    const listed = await api().get('/api/admin/sources').set('Authorization', admin);
    expect(listed.body.data.filter((s: { feedUrl: string }) => s.feedUrl.startsWith('https://example.test/'))).toEqual([]);
    expect(listed.body.data.map((s: { id: string }) => s.id)).toContain(id);

    const changed = await api().patch(`/api/admin/sources/${id}`).set('Authorization', admin).send({ pollIntervalMinutes: 30, name: 'Fonte renomeada' });
    expect(changed.body.data).toMatchObject({ pollIntervalMinutes: 30, name: 'Fonte renomeada', enabled: false });
    expect((await api().patch(`/api/admin/sources/${id}`).set('Authorization', admin).send({})).status).toBe(400);
    expect((await api().post(`/api/admin/sources/${id}/poll`).set('Authorization', admin)).status).toBe(409);

    expect((await api().delete(`/api/admin/sources/${id}`).set('Authorization', admin)).status).toBe(200);
    expect((await api().get(`/api/admin/sources/${id}`).set('Authorization', admin)).status).toBe(404);
    expect((await api().delete(`/api/admin/sources/${id}`).set('Authorization', admin)).status).toBe(404);
  });

  it('needs the news.admin permission', async () => {
    const reader = `Bearer ${await tokenFor('reader-1', [])}`;
    expect((await api().get('/api/admin/sources').set('Authorization', reader)).status).toBe(403);
    expect((await api().get('/api/admin/sources')).status).toBe(401);
  });
});

describe('from feed to enriched article', () => {
  let rssSite: Site;
  let sourceId: string;

  beforeAll(async () => {
    rssSite = web.sites.find((s) => s.format === 'rss')!;
    const res = await addSource({ name: rssSite.name, feedUrl: rssSite.feedUrl, tier: rssSite.tier, pollIntervalMinutes: 1 });
    expect(res.status).toBe(201);
    sourceId = res.body.data.id;
  });

  it('polls the feed on its own workflow and publishes its items as enriched articles, listed by the API', async () => {
    const { key } = await accountWithKey(svc, 'business');
    const health = await until(() => sourceOf(sourceId), (s) => s.health.articlesCreated >= 3, 90_000);
    expect(health.state).toBe('ok');
    expect(health.health.lastSuccessAt).not.toBeNull();
    expect(health.health.itemsSeen).toBeGreaterThanOrEqual(health.health.articlesCreated);

    const listed = await until(
      async () => (await withKey(svc, key, `/api/articles?limit=100&include=sentiment,entities,meta,classification`)).body.data as { sourceName: string; sentimentLabel: string; meta: { sourceTier: number; wordCount: number } }[],
      (list) => list.filter((a) => a.sourceName === rssSite.name).length >= 3,
    );
    const ours = listed.filter((a) => a.sourceName === rssSite.name);
    expect(ours.length).toBeGreaterThanOrEqual(3);
    for (const a of ours) {
      expect(a.sentimentLabel).toEqual(expect.any(String));
      expect(a.meta.sourceTier).toBe(rssSite.tier);
      expect(a.meta.wordCount).toBeGreaterThan(100);
    }
    const { status } = await svc.deps.temporal.client.workflow.getHandle(workflowIds.newsSource(sourceId)).describe();
    expect(status.name).toBe('RUNNING');
    const article = await items().findOne({ sourceId, state: 'published' });
    const enrich = await svc.deps.temporal.client.workflow.getHandle(workflowIds.newsEnrich(article!.articleId)).describe();
    expect(enrich.status.name).toBe('COMPLETED');
  });

  it('asks for the feed again conditionally, naming the platform in its User-Agent', async () => {
    await api().post(`/api/admin/sources/${sourceId}/poll`).set('Authorization', admin).expect(202);
    const log = await until(
      async () => (await control(`requests?origin=${encodeURIComponent(rssSite.origin)}`)) as { requests: { path: string; headers: Record<string, string> }[] },
      (l) => l.requests.filter((r) => r.path === new URL(rssSite.feedUrl).pathname && r.headers['if-none-match']).length > 0,
    );
    const feedRequests = log.requests.filter((r) => r.path === new URL(rssSite.feedUrl).pathname);
    expect(feedRequests.some((r) => r.headers['if-none-match'])).toBe(true);
    expect(feedRequests.every((r) => /NewsletterPlatformBot/.test(r.headers['user-agent'] ?? ''))).toBe(true);
  });
});

describe('every fault of the news sites double is a source health, never a crash or a hammering', () => {
  const faultSource = async (fault: string) => {
    const res = await addSource({ name: `Falha ${fault}`, feedUrl: web.faults[fault], pollIntervalMinutes: 1 });
    expect(res.status).toBe(201);
    const id = res.body.data.id as string;
    return await until(() => sourceOf(id), (s) => s.health.consecutiveFailures >= 1, 60_000);
  };

  it.each([
    ['malformed', /could not be read/],
    ['notFound', /404/],
    ['redirectLoop', /redirect/i],
    ['redirectPrivate', /169\.254\.169\.254|not allowed|refused/i],
    ['redirectPrivateNet', /10\.0\.0\.7|not allowed|refused/i],
    ['nonHttpRedirect', /file:|scheme/i],
    ['oversized', /large|bytes/i],
    ['slow', /time/i],
  ])('%s: the poll fails, the error is recorded, the source backs off', async (fault, message) => {
    const s = await faultSource(fault);
    expect(s.state).toBe('backing-off');
    expect(s.health.lastError).toMatch(message);
    expect(s.health.lastSuccessAt).toBeNull();
    expect(s.health.itemsSeen).toBe(0);
    expect(new Date(s.health.nextPollAt!).getTime()).toBeGreaterThan(new Date(s.health.lastPollAt!).getTime() + 59_000);
  });

  it('429 with Retry-After: the next poll waits at least what the site asked', async () => {
    await control('fault', { name: 'rateLimited', remaining: 100, retryAfter: '600' });
    const s = await faultSource('rateLimited');
    expect(s.health.lastError).toMatch(/429/);
    expect(new Date(s.health.nextPollAt!).getTime() - new Date(s.health.lastPollAt!).getTime()).toBeGreaterThanOrEqual(600_000);
  });

  it('503 with Retry-After as an HTTP date is honoured the same way', async () => {
    const at = new Date(Date.now() + 15 * 60_000);
    await control('fault', { name: 'unavailable', remaining: 100, retryAfter: at.toUTCString() });
    const s = await faultSource('unavailable');
    expect(s.health.lastError).toMatch(/503/);
    expect(new Date(s.health.nextPollAt!).getTime()).toBeGreaterThanOrEqual(at.getTime() - 2_000);
  });
});
