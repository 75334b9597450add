/**
 * The news event stream on the real stack (issue 40): GET /api/stream served by two news API
 * processes (two services with their own connections and hubs, on ports of loopback) over one
 * event log, with a database of this file's own. Events are appended through the publish
 * operation (as enrichment and imports do) and waited for with deadlines, never slept for.
 */
import { randomUUID } from 'node:crypto';
import { EVENT_TTL_SECONDS, eventOf } from '../../models/events/event.rules';
import { NEWS_EVENTS_COLLECTION, NEWS_EVENTS_SEQUENCE } from '../../models/events/event-log.repo';
import { reserveIds } from '../../models/infra/counters';
import type { ArticleDoc } from '../../models/news/article.rules';
import { publishEvents } from '../../operations/events/publish';
import { serve, type Served } from '../helpers/clients';
import { eventArticle } from '../helpers/events';
import { accountWithKey, startNewsService, type NewsService } from '../helpers/news';

jest.setTimeout(60_000);

const HOUR = 3_600_000;
const tag = randomUUID().slice(0, 8);
const ENV = { MONGODB_DB: `news_stream_${tag}`, TASK_QUEUE_PREFIX: `news-stream-${tag}-`, NEWS_STREAM_POLL_MS: '100', NEWS_STREAM_KEEPALIVE_SECONDS: '1' };

interface SseEvent {
  event: string;
  id: string | undefined;
  data: any;
}

/** A stream opened with fetch, parsed as Server-Sent Events (as tests/integration/support-live.test.ts reads them). */
class Stream {
  readonly events: SseEvent[] = [];
  retry: number | undefined;
  lastId: string | undefined;
  /** Keep-alive comments received. */
  keepAlives = 0;
  closed = false;
  private taken = 0;
  private buffer = '';
  private waiters: (() => void)[] = [];
  private readonly abort = new AbortController();

  static async open(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; stream?: Stream; body?: any; headers: Headers }> {
    const s = new Stream();
    const res = await fetch(`${base}${path}`, { headers, signal: s.abort.signal });
    if (res.status !== 200) return { status: res.status, body: await res.json(), headers: res.headers };
    void s.read(res.body!);
    streams.push(s);
    return { status: 200, stream: s, headers: res.headers };
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = this.buffer.indexOf('\n\n')) >= 0) {
          this.parse(this.buffer.slice(0, end));
          this.buffer = this.buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted
    }
    this.closed = true;
    this.wake();
  }

  private parse(block: string): void {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(': keep-alive')) this.keepAlives += 1;
      if (line.startsWith(':')) continue;
      const [field, ...rest] = line.split(':');
      const value = rest.join(':').replace(/^ /, '');
      if (field === 'retry') this.retry = Number(value);
      else if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (id !== undefined) this.lastId = id;
    if (data.length > 0) this.events.push({ event, id, data: JSON.parse(data.join('\n')) });
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private async until(done: () => boolean, deadlineMs: number, what: () => string): Promise<void> {
    const until = Date.now() + deadlineMs;
    while (!done()) {
      const left = until - Date.now();
      if (left <= 0 || this.closed) throw new Error(`${what()} within ${deadlineMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The next event (after those taken) matching `match`, within `deadlineMs`. */
  async next(match: (e: SseEvent) => boolean, deadlineMs = 10_000): Promise<SseEvent> {
    let found: SseEvent | undefined;
    await this.until(
      () => {
        const i = this.events.findIndex((e, n) => n >= this.taken && match(e));
        if (i < 0) return false;
        this.taken = i + 1;
        found = this.events[i];
        return true;
      },
      deadlineMs,
      () => `no matching event; got ${JSON.stringify(this.events.slice(this.taken)).slice(0, 2_000)}`,
    );
    return found!;
  }

  /** Waits for `n` keep-alives more than were counted when called. */
  keptAlive(n: number, deadlineMs = 10_000): Promise<void> {
    const target = this.keepAlives + n;
    return this.until(() => this.keepAlives >= target, deadlineMs, () => `fewer than ${n} keep-alives`);
  }

  /** Waits until the stream has sent its opening (retry and the cursor). */
  opened(deadlineMs = 5_000): Promise<void> {
    return this.until(() => this.retry !== undefined, deadlineMs, () => 'the stream did not open');
  }

  close(): void {
    this.abort.abort();
  }
}

let first: NewsService;
let second: NewsService;
const served: Served[] = [];
let urls: [string, string];
const streams: Stream[] = [];

beforeAll(async () => {
  [first, second] = await Promise.all([startNewsService(ENV), startNewsService(ENV)]);
  for (const svc of [first, second]) served.push(await serve(svc.callback));
  urls = [served[0]!.baseUrl, served[1]!.baseUrl];
});

afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});

afterAll(async () => {
  for (const s of streams) s.close();
  await Promise.allSettled(served.map((s) => s.close()));
  await first?.deps.mongo.conn.db?.dropDatabase().catch(() => undefined);
  await Promise.allSettled([first?.close(), second?.close()]);
});

/** Publishes articles as enrichment and imports do (the publish operation), answering their seqs. */
async function publish(...articles: ArticleDoc[]): Promise<number[]> {
  const done = await publishEvents({ events: first.deps.stream.log }, articles);
  return done.map((d) => d.seq);
}

const open = async (at: 0 | 1, key: string, query = '', headers: Record<string, string> = {}) => {
  const res = await Stream.open(urls[at], `/api/stream${query}`, { 'X-API-Key': key, Accept: 'text/event-stream', ...headers });
  if (res.status !== 200) throw new Error(`stream refused: ${res.status} ${JSON.stringify(res.body)}`);
  await res.stream!.opened();
  return res.stream!;
};

const isArticle = (e: SseEvent) => e.event === 'article.published' || e.event === 'article.breaking';
const ofArticle = (id: string) => (e: SseEvent) => isArticle(e) && e.data.article.id === id;

it('delivers an event appended once to the clients of both processes', async () => {
  const { key } = await accountWithKey(first, 'pro');
  const [a, b] = [await open(0, key), await open(1, key)];
  expect(a.lastId).toMatch(/^\d+$/);
  const article = eventArticle({ primarySector: 'FIN' });
  const [seq] = await publish(article);
  const [onA, onB] = await Promise.all([a.next(ofArticle(article._id)), b.next(ofArticle(article._id))]);
  for (const e of [onA, onB]) {
    expect(e.event).toBe('article.published');
    expect(e.data).toMatchObject({ seq, type: 'article.published', article: { id: article._id, title: article.title, primarySector: 'FIN', isBreaking: false } });
    expect(Number(e.id)).toBeGreaterThanOrEqual(seq!);
  }
  expect(await first.deps.mongo.conn.db!.collection(NEWS_EVENTS_COLLECTION).countDocuments({ key: `article:${article._id}` })).toBe(1);
});

it('sends each stream only the events its filters match (any value of a filter, every filter given)', async () => {
  const { key } = await accountWithKey(first, 'pro');
  const entity = randomUUID();
  const filtered = await open(0, key, `?sector=FIN,ENE&ticker=PETR4,VALE3`);
  const byEntity = await open(1, key, `?entity=${entity}&topic=EARN`);
  const miningPetro = eventArticle({ primarySector: 'MAT', tickers: ['PETR4'] });
  const finItau = eventArticle({ primarySector: 'FIN', tickers: ['ITUB4'] });
  const finVale = eventArticle({ primarySector: 'FIN', tickers: ['VALE3'], primaryTopic: 'EARN', entityIds: [entity] });
  const enePetro = eventArticle({ primarySector: 'ENE', tickers: ['PETR4'], primaryTopic: 'DIV', entityIds: [entity] });
  const last = eventArticle({ primarySector: 'FIN', tickers: ['PETR4'], primaryTopic: 'EARN', entityIds: [entity] });
  await publish(miningPetro, finItau, finVale, enePetro);
  await publish(last);
  await filtered.next(ofArticle(last._id));
  await byEntity.next(ofArticle(last._id));
  expect(filtered.events.filter(isArticle).map((e) => e.data.article.id)).toEqual([finVale._id, enePetro._id, last._id]);
  expect(byEntity.events.filter(isArticle).map((e) => e.data.article.id)).toEqual([finVale._id, last._id]);
});

it('gives a read:breaking key the breaking events only, and refuses a key of neither scope (403) or none (401)', async () => {
  const { key } = await accountWithKey(first, 'pro', { scopes: ['read:breaking'] });
  const stream = await open(1, key);
  const calm = eventArticle();
  const breaking = eventArticle({ isBreaking: true, urgencyLevel: 'CRITICAL' });
  await publish(calm);
  await publish(breaking);
  const got = await stream.next(isArticle);
  expect(got).toMatchObject({ event: 'article.breaking', data: { type: 'article.breaking', article: { id: breaking._id, isBreaking: true } } });
  expect(stream.events.filter(isArticle)).toHaveLength(1);

  const entitiesOnly = await accountWithKey(first, 'pro', { scopes: ['read:entities'] });
  const refused = await Stream.open(urls[0], '/api/stream', { 'X-API-Key': entitiesOnly.key });
  expect(refused.status).toBe(403);
  expect(refused.body).toMatchObject({ success: false, code: 'FORBIDDEN', error: expect.stringContaining('read:articles or read:breaking') });
  const anonymous = await Stream.open(urls[0], '/api/stream', {});
  expect(anonymous.status).toBe(401);
  expect(anonymous.body).toMatchObject({ success: false, code: 'UNAUTHENTICATED' });
});

it('gates the include modules by plan, as the article lists do', async () => {
  const starter = await accountWithKey(first, 'starter');
  const pro = await accountWithKey(first, 'pro');
  const above = await Stream.open(urls[0], '/api/stream?include=sentiment', { 'X-API-Key': starter.key });
  expect(above.status).toBe(403);
  expect(above.body).toMatchObject({ code: 'FORBIDDEN', error: expect.stringContaining('Pro') });
  const unknown = await Stream.open(urls[0], '/api/stream?include=horoscope', { 'X-API-Key': pro.key });
  expect(unknown.status).toBe(400);
  const badSector = await Stream.open(urls[0], '/api/stream?sector=XYZ', { 'X-API-Key': pro.key });
  expect(badSector.status).toBe(400);

  const plain = await open(0, starter.key, '?include=classification');
  const full = await open(1, pro.key, '?include=sentiment,scoring');
  const article = eventArticle();
  await publish(article);
  const [s, p] = await Promise.all([plain.next(ofArticle(article._id)), full.next(ofArticle(article._id))]);
  expect(s.data.article).toHaveProperty('classification');
  expect(s.data.article).not.toHaveProperty('sentimentScore');
  expect(s.data.article).not.toHaveProperty('scoring');
  expect(p.data.article).toMatchObject({ sentimentScore: 0.5, sentimentLabel: 'POSITIVO', scoring: { overall: 60 } });
});

it('resumes from Last-Event-ID (the header, or lastEventId) with the events since, on either process', async () => {
  const { key } = await accountWithKey(first, 'pro');
  const stream = await open(0, key, '?sector=AGR');
  const before = eventArticle({ primarySector: 'AGR' });
  await publish(before);
  const seen = await stream.next(ofArticle(before._id));
  stream.close();
  const missed = [eventArticle({ primarySector: 'AGR' }), eventArticle({ primarySector: 'TUR' }), eventArticle({ primarySector: 'AGR' })];
  await publish(...missed);
  const resumed = await open(1, key, '?sector=AGR', { 'Last-Event-ID': seen.id! });
  await resumed.next(ofArticle(missed[2]!._id));
  expect(resumed.events.filter(isArticle).map((e) => e.data.article.id)).toEqual([missed[0]!._id, missed[2]!._id]);
  const byQuery = await open(0, key, `?sector=AGR&lastEventId=${seen.id!}`);
  await byQuery.next(ofArticle(missed[2]!._id));
  expect(byQuery.events.filter(isArticle).map((e) => e.data.article.id)).toEqual([missed[0]!._id, missed[2]!._id]);
});

it('answers a reset for an id older than the history (25 hours)', async () => {
  const { key } = await accountWithKey(first, 'pro');
  const events = first.deps.mongo.conn.db!.collection(NEWS_EVENTS_COLLECTION);
  const at = new Date(Date.now() - 25 * HOUR);
  const old = await reserveIds(first.deps.mongo.conn, NEWS_EVENTS_SEQUENCE, 1);
  await events.insertOne({ _id: old as never, ...eventOf(eventArticle({}, at), at) });
  expect(EVENT_TTL_SECONDS).toBe(25 * 3_600); // the TTL monitor would remove it about now
  await publish(eventArticle());
  const stream = await open(1, key, '', { 'Last-Event-ID': String(old) });
  expect(await stream.next((e) => e.event === 'reset')).toMatchObject({ data: { reason: 'history_window_passed' } });
});

it('caps the streams of a key (Starter: 2) and of its account (4) across both processes, and frees a slot when a stream closes', async () => {
  const { key, userId } = await accountWithKey(first, 'starter');
  const a = await open(0, key);
  await open(1, key);
  const third = await Stream.open(urls[0], '/api/stream', { 'X-API-Key': key });
  expect(third.status).toBe(429);
  expect(third.headers.get('retry-after')).toBe('30');
  expect(third.body).toMatchObject({ success: false, code: 'RATE_LIMITED', statusCode: 429, error: expect.stringContaining('2 event streams open') });
  const fourth = await Stream.open(urls[1], '/api/stream', { 'X-API-Key': key });
  expect(fourth.status).toBe(429);
  a.close();
  // The slot is released when the server sees the connection close.
  const until = Date.now() + 10_000;
  let reopened = await Stream.open(urls[1], '/api/stream', { 'X-API-Key': key });
  while (reopened.status === 429 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    reopened = await Stream.open(urls[1], '/api/stream', { 'X-API-Key': key });
  }
  expect(reopened.status).toBe(200);
  await reopened.stream!.opened();
  // Another key of the same account has slots of its own…
  const other = await first.deps.apiKeys.create({ userId, name: 'second', mode: 'live', scopes: ['*'], expiresAt: null });
  await open(0, other.key);
  await open(1, other.key);
  // …but not past the account's (Starter: 4 across its keys): a third key adds none.
  const thirdKey = await first.deps.apiKeys.create({ userId, name: 'third', mode: 'live', scopes: ['*'], expiresAt: null });
  const over = await Stream.open(urls[0], '/api/stream', { 'X-API-Key': thirdKey.key });
  expect(over.status).toBe(429);
  expect(over.body).toMatchObject({ code: 'RATE_LIMITED', error: expect.stringContaining('This account has 4 event streams open across its keys') });
  // The key's slot taken before the account refused is given back: its key opens once the account has room.
  expect(await first.deps.mongo.conn.db!.collection('leases').countDocuments({ _id: { $regex: `^news-stream:${thirdKey.record.keyId}#` } as never, holder: { $ne: null } })).toBe(0);
});

it('keeps an idle stream alive with comments carrying its id, renewing its slot each time', async () => {
  const { key, keyId } = await accountWithKey(first, 'pro');
  const stream = await open(0, key);
  const slots = first.deps.mongo.conn.db!.collection<{ _id: string; holder: string | null; until: Date }>('leases');
  const held = async () => (await slots.find({ _id: { $regex: `^news-stream:${keyId}#` } as never, holder: { $ne: null } }).toArray()).map((d) => d.until.getTime());
  const [before] = await held();
  await stream.keptAlive(2);
  expect(stream.lastId).toMatch(/^\d+$/);
  const [after] = await held();
  expect(after).toBeGreaterThan(before!);
  stream.close();
  const until = Date.now() + 10_000;
  while ((await held()).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  expect(await held()).toEqual([]);
});

it('appends one event per article however often its publication is repeated (a retry after the insert, racing writers)', async () => {
  const article = eventArticle({ isBreaking: true });
  const [firstSeq] = await publish(article);
  const raced = await Promise.all([publishEvents({ events: first.deps.stream.log }, [article]), publishEvents({ events: second.deps.stream.log }, [article]), publish(article)]);
  expect(raced.flat().map((r) => (typeof r === 'number' ? r : r.seq))).toEqual([firstSeq, firstSeq, firstSeq]);
  expect(raced.flat().some((r) => typeof r !== 'number' && r.appended)).toBe(false);
  const other = eventArticle();
  const both = await Promise.all([publishEvents({ events: first.deps.stream.log }, [other]), publishEvents({ events: second.deps.stream.log }, [other])]);
  expect(both.flat().filter((r) => r.appended)).toHaveLength(1);
  expect(new Set(both.flat().map((r) => r.seq)).size).toBe(1);
  const docs = await first.deps.mongo.conn.db!.collection(NEWS_EVENTS_COLLECTION).find({ key: { $in: [`article:${article._id}`, `article:${other._id}`] } }).toArray();
  expect(docs).toHaveLength(2);
  expect(docs.find((d) => d.key === `article:${article._id}`)).toMatchObject({ type: 'article.breaking' });
});
