/**
 * Re-enrichment of a filter of articles end to end (issue 25) on the test stack: articles made by
 * a news source of the news sites double (Pregão Online, an Atom feed: not one news-sources.test.ts
 * uses), enriched again through the admin API by the `news-reenrich-<id>` workflow with the OpenAI
 * double; its progress, a cancel, bad filters and unknown operations.
 */
import request from 'supertest';
import { collectionOf } from '../../models/infra/mongo';
import { PROMPT_VERSION } from '../../models/news/enrichment.rules';
import { enrichmentUser } from '../../operations/news/enrich-article';
import { NOT_STARTED } from '../../models/infra/save-then-start';
import type { ReenrichmentDoc } from '../../models/news/reenrichment.repo';
import { workflowIds } from '../../workflows/ids';
import { startIsolatedNewsStack, startNewsService, type NewsService } from '../helpers/news';
import { provider } from '../helpers/ai';
import { CLOSED_PORT, tokenFor } from '../helpers/service';
import { until } from '../helpers/time-skipping';

jest.setTimeout(120_000);

interface Site {
  id: string;
  name: string;
  feedUrl: string;
  format: string;
  tier: number;
}

const DOUBLE = process.env.NEWS_WEB_DOUBLE_URL!;
let svc: NewsService;
let stack: Awaited<ReturnType<typeof startIsolatedNewsStack>>;
let admin: string;
let sourceId: string;
let articleIds: string[];

const api = () => request(svc.callback);
const operations = () => collectionOf<ReenrichmentDoc>(svc.deps.mongo.conn, 'news_reenrichments');
const progressOf = async (id: string) => (await api().get(`/api/admin/enrichments/${id}`).set('Authorization', admin).expect(200)).body.data as { state: string; total: number; done: number; failed: number; gone: number; waiting: number; finishedAt: string | null };
/** Waits on the record (polling the API that often would meet its per-user rate limit), then reads the progress through the API. */
const ended = async (id: string) => {
  await until(() => operations().findOne({ _id: id }, { projection: { state: 1 } }), (op) => op?.state !== 'running', 90_000);
  return await progressOf(id);
};

beforeAll(async () => {
  stack = await startIsolatedNewsStack('news-reenrich');
  svc = stack.svc;
  admin = `Bearer ${await tokenFor('news-reenrich-admin', ['news.admin'])}`;
  const info = (await (await fetch(`${DOUBLE}/__control/info`)).json()) as { sites: Site[] };
  const site = info.sites.find((s) => s.id === 'pregao-online')!;
  expect(site.format).toBe('atom');
  // The source reading the feed: added, or the one reading it already (a re-run on the same stack).
  const added = await api().post('/api/admin/sources').set('Authorization', admin).send({ name: site.name, feedUrl: site.feedUrl, tier: site.tier, pollIntervalMinutes: 1 });
  if (added.status === 201) sourceId = added.body.data.id as string;
  else {
    expect(added.status).toBe(409);
    const all = (await api().get('/api/admin/sources').set('Authorization', admin)).body.data as { id: string; feedUrl: string }[];
    sourceId = all.find((s) => s.feedUrl === site.feedUrl)!.id;
  }
  const source = await until(
    async () => (await api().get(`/api/admin/sources/${sourceId}`).set('Authorization', admin)).body.data as { health: { articlesCreated: number } },
    // Enough for a cancellation to arrive while a chunk is still running.
    (s) => s.health.articlesCreated >= 8,
    90_000,
  );
  expect(source.health.articlesCreated).toBeGreaterThanOrEqual(8);
  articleIds = await svc.deps.articles.idsMatching({ sourceId }, 1_000);
});
afterAll(async () => {
  await stack?.close();
});

it('re-enriches every article of a source: 202 with where to follow it, progress up to completed, each article enriched again', async () => {
  const before = new Date();
  const res = await api().post('/api/admin/enrichments').set('Authorization', admin).send({ sourceId }).expect(202);
  const id = res.body.data.id as string;
  expect(res.headers.location).toBe(`/api/admin/enrichments/${id}`);
  expect(res.body.data).toMatchObject({ state: 'running', filter: { sourceId }, promptVersion: PROMPT_VERSION, done: 0, failed: 0, workflowId: workflowIds.newsReenrich(id), statusUrl: res.headers.location });
  const total = res.body.data.total as number;
  // Articles the poller published meanwhile are in it too.
  expect(total).toBeGreaterThanOrEqual(articleIds.length);

  const done = await ended(id);
  expect(done).toMatchObject({ state: 'completed', total, done: total, failed: 0, gone: 0, waiting: 0, finishedAt: expect.any(String) });
  const record = await operations().findOne({ _id: id });
  expect(record!.articleIds).toHaveLength(total);
  expect(record!.articleIds).toEqual(expect.arrayContaining(articleIds));
  for (const article of await svc.deps.articles.findByIds(record!.articleIds)) {
    expect(article.sourceId).toBe(sourceId);
    expect(article.enrichment).toMatchObject({ state: 'enriched', promptVersion: PROMPT_VERSION });
    expect(article.enrichment!.at.getTime()).toBeGreaterThanOrEqual(before.getTime());
  }
  const handle = svc.deps.temporal.client.workflow.getHandle(workflowIds.newsReenrich(id));
  expect(await handle.result()).toEqual({ state: 'completed' });
  // Nothing left running: cancelling an ended operation is a conflict.
  await api().post(`/api/admin/enrichments/${id}/cancel`).set('Authorization', admin).expect(409);
});

it("finds a source's articles, newest first, through an index of their own", async () => {
  const names = (await svc.deps.mongo.conn.db!.collection('articles').indexes()).map((i) => i.name);
  expect(names).toContain('sourceId_1_publishedAt_-1__id_-1');
  // The source keeps polling: the articles listed first are the ones compared.
  const ids = await svc.deps.articles.idsMatching({ sourceId }, 1_000);
  expect(ids).toEqual(expect.arrayContaining(articleIds));
  const stored = await collectionOf<{ _id: string; publishedAt: Date; sourceId?: string }>(svc.deps.mongo.conn, 'articles')
    .find({ _id: { $in: ids } }, { projection: { publishedAt: 1, sourceId: 1 } })
    .toArray();
  expect(stored.every((a) => a.sourceId === sourceId)).toBe(true);
  const newestFirst = stored.sort((a, b) => b.publishedAt.getTime() - a.publishedAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0)).map((a) => a._id);
  expect(ids).toEqual(newestFirst);
});

it('narrows by every field of the filter together', async () => {
  const [newest] = await svc.deps.articles.findByIds(articleIds.slice(0, 1));
  const at = newest!.publishedAt.toISOString();
  const res = await api()
    .post('/api/admin/enrichments')
    .set('Authorization', admin)
    .send({ sourceId, sector: newest!.primarySector, from: at, to: at, promptVersionNot: 'enrich-older', articleIds: [newest!._id, newest!._id] })
    .expect(202);
  expect(res.body.data).toMatchObject({ total: 1, filter: { sourceId, sector: newest!.primarySector, from: at, to: at, promptVersionNot: 'enrich-older', articleIds: [newest!._id] } });
  expect(await ended(res.body.data.id as string)).toMatchObject({ state: 'completed', done: 1 });
  // The current prompt version is not another version: nothing matches, and that completes at once.
  const none = await api().post('/api/admin/enrichments').set('Authorization', admin).send({ sourceId, promptVersionNot: PROMPT_VERSION }).expect(202);
  expect(none.body.data.total).toBe(0);
  expect(await ended(none.body.data.id as string)).toMatchObject({ state: 'completed', total: 0, done: 0 });
});

it('cancels a running re-enrichment: it stops between articles, keeps what was done and says so', async () => {
  // A slow provider (a second per article), so the chunk is still running when the cancellation reaches it.
  const slow = await svc.deps.articles.idsMatching({ sourceId }, 1_000);
  for (const a of slow) await provider().script(enrichmentUser(a), [{ kind: 'default', delayMs: 1_000 }]);
  const before = new Date();
  const res = await api().post('/api/admin/enrichments').set('Authorization', admin).send({ sourceId }).expect(202);
  const id = res.body.data.id as string;
  let done;
  try {
    await until(() => operations().findOne({ _id: id }, { projection: { state: 1, done: 1 } }), (op) => op!.done >= 1 || op!.state !== 'running');
    const cancel = await api().post(`/api/admin/enrichments/${id}/cancel`).set('Authorization', admin).expect(202);
    expect(cancel.body.data).toEqual({ id, state: 'cancelling' });
    done = await ended(id);
  } finally {
    for (const a of slow) await provider().reset(enrichmentUser(a));
  }
  expect(done.state).toBe('cancelled');
  expect(done.done).toBeGreaterThanOrEqual(1);
  expect(done.done).toBeLessThan(done.total);
  expect(done.finishedAt).not.toBeNull();
  // The articles enriched again are exactly those counted; the others were left alone.
  const record = await operations().findOne({ _id: id });
  const again = (await svc.deps.articles.findByIds(record!.articleIds)).filter((a) => a.enrichment!.at.getTime() >= before.getTime());
  expect(again).toHaveLength(done.done);
  const handle = svc.deps.temporal.client.workflow.getHandle(workflowIds.newsReenrich(id));
  await expect(handle.result()).rejects.toThrow();
  expect((await handle.describe()).status.name).toBe('CANCELLED');
  await api().post(`/api/admin/enrichments/${id}/cancel`).set('Authorization', admin).expect(409);
});

it('an article the provider refuses is counted failed and listed; a provider outage is retried, not counted', async () => {
  const [first, second] = articleIds;
  // An article's model calls are sent as its own user: the first article's first call meets an
  // outage (retried by Temporal after its back-off), its second a refusal; the second article is enriched.
  await provider().reset(enrichmentUser(first!));
  await provider().script(enrichmentUser(first!), [
    { kind: 'error', status: 503, message: 'overloaded' },
    { kind: 'error', status: 400, message: 'refused' },
  ]);
  const res = await api().post('/api/admin/enrichments').set('Authorization', admin).send({ articleIds: [second, first] }).expect(202);
  const id = res.body.data.id as string;
  const record = await operations().findOne({ _id: id });
  expect(record!.articleIds).toEqual([first, second]); // newest first
  const done = await ended(id);
  expect(done).toMatchObject({ state: 'completed', total: 2, done: 1, failed: 1 });
  const errors = (await api().get(`/api/admin/enrichments/${id}`).set('Authorization', admin)).body.data.errors as { articleId: string; error: string }[];
  expect(errors).toEqual([{ articleId: first, error: expect.stringMatching(/refused the request.*refused/) }]);
  const history = await svc.deps.temporal.client.workflow.getHandle(workflowIds.newsReenrich(id)).fetchHistory();
  const attempts = history.events!.flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt] : []));
  expect(attempts).toContain(2);
});

it('Temporal down: 503, and the operation is failed with why, never left running', async () => {
  const down = await startNewsService({ TEMPORAL_ADDRESS: `127.0.0.1:${CLOSED_PORT}`, MONGODB_DB: svc.deps.config.mongo.db });
  const by = `news-reenrich-temporal-down-${crypto.randomUUID().slice(0, 8)}`;
  try {
    const res = await request(down.callback).post('/api/admin/enrichments').set('Authorization', `Bearer ${await tokenFor(by, ['news.admin'])}`).send({ sourceId });
    expect([res.status, res.body.code]).toEqual([503, 'DEPENDENCY_UNAVAILABLE']);
  } finally {
    await down.close();
  }
  const ops = await operations().find({ createdBy: by }).toArray();
  expect(ops).toHaveLength(1);
  expect(ops[0]).toMatchObject({ state: 'failed', error: NOT_STARTED, finishedAt: expect.any(Date), done: 0 });
});

it('counts each article once: a retried call resumes at its saved position, and an outcome repeated for a passed position is not counted', async () => {
  const repo = svc.deps.reenrichments;
  const id = crypto.randomUUID();
  await repo.create({
    _id: id, filter: { sourceId }, promptVersion: PROMPT_VERSION, articleIds: ['a0', 'a1', 'a2', 'a3'], total: 4, done: 0, failed: 0, gone: 0, waiting: 0, resumeAt: null,
    errors: [], positions: {}, state: 'running', createdBy: 'news-reenrich-admin', createdAt: new Date(), finishedAt: null, error: null,
  });
  // The call [2, 4): its first attempt saves its start, counts article 2, then dies.
  expect(await repo.positionOf((await repo.get(id))!, 2)).toBe(2);
  expect(await repo.record(id, 2, 2, 'done')).toBe(true);
  // Its retry resumes at 3; the outcome of article 2 told again (the attempt that died) counts nothing.
  expect(await repo.positionOf((await repo.get(id))!, 2)).toBe(3);
  expect(await repo.record(id, 2, 2, 'done')).toBe(false);
  expect(await repo.record(id, 2, 3, 'failed', { articleId: 'a3', error: 'refused' })).toBe(true);
  // Another call's positions are its own.
  expect(await repo.positionOf((await repo.get(id))!, 0)).toBe(0);
  await repo.wait(id, new Date('2026-11-26T00:00:00Z'));
  expect(await repo.find(id)).toMatchObject({ done: 1, failed: 1, waiting: 2, resumeAt: new Date('2026-11-26T00:00:00Z'), errors: [{ articleId: 'a3', error: 'refused' }] });
  await repo.resume(id);
  await repo.finish(id, 'cancelled', new Date());
  await repo.finish(id, 'completed', new Date()); // an ended operation stays as it ended
  expect(await repo.find(id)).toMatchObject({ state: 'cancelled', waiting: 0, resumeAt: null });
});

it('refuses a bad filter with 400 and stores nothing', async () => {
  const by = 'news-reenrich-bad-filters';
  const bad = `Bearer ${await tokenFor(by, ['news.admin'])}`;
  for (const body of [
    {},
    { sector: 'XYZ' },
    { sourceId: 'not-a-uuid' },
    { from: 'yesterday' },
    { from: '2026-11-20T00:00:00Z', to: '2026-11-19T00:00:00Z' },
    { articleIds: [] },
    { articleIds: Array.from({ length: 1_001 }, () => crypto.randomUUID()) },
    { promptVersionNot: '' },
    { sourceId, everything: true },
  ]) {
    const res = await api().post('/api/admin/enrichments').set('Authorization', bad).send(body);
    expect([res.status, res.body.success, res.body.code]).toEqual([400, false, 'VALIDATION_FAILED']);
  }
  expect(await operations().countDocuments({ createdBy: by })).toBe(0);
});

it('answers 404 for an unknown operation, and needs the news.admin permission', async () => {
  const unknown = crypto.randomUUID();
  await api().get(`/api/admin/enrichments/${unknown}`).set('Authorization', admin).expect(404);
  await api().post(`/api/admin/enrichments/${unknown}/cancel`).set('Authorization', admin).expect(404);
  await api().get('/api/admin/enrichments/not-a-uuid').set('Authorization', admin).expect(400);
  const reader = `Bearer ${await tokenFor('reader-reenrich', [])}`;
  await api().post('/api/admin/enrichments').set('Authorization', reader).send({ sourceId }).expect(403);
  await api().post('/api/admin/enrichments').send({ sourceId }).expect(401);
});
