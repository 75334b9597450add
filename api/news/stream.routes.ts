/**
 * The news event stream (issue 40): GET /api/stream, Server-Sent Events of articles as they are
 * published, for API customers. The fan-out is operations/events/stream.ts (one hub per process,
 * polling the event log); this route authenticates, holds one of the key's stream slots (a lease
 * shared by every process), opens the stream and writes it as the support desk's live route does
 * (api/support/live.routes.ts).
 */
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { AppError, dependencyUnavailable } from '../../models/errors';
import { parseStreamId, type EventFilter } from '../../models/events/event.rules';
import { LeaseWaitTimeout, type Lease } from '../../models/infra/leases';
import { PLAN_LIMITS, planName } from '../../models/shared/plan.rules';
import { modulesFor } from '../../operations/news/articles';
import type { NewsStreamSink } from '../../operations/events/stream';
import { RAW, routeFactory } from '../shared/route';
import { apiKey, type KeyPrincipal } from './auth';
import { NewsStreamEvent, StreamQuery } from './contracts';
import type { NewsDeps } from './deps';
import { breakingArticleExample } from './examples/articles';

const route = routeFactory<NewsDeps>();

/** How long EventSource waits before reconnecting (the `retry:` field). */
export const RETRY_MS = 3_000;
/**
 * A stream slot is held this long without a renewal (each keep-alive renews it), at least four
 * keep-alive intervals: a dead process's slots free by themselves.
 */
export const STREAM_LEASE_TTL_MS = 60_000;
const leaseTtlOf = (deps: NewsDeps) => Math.max(STREAM_LEASE_TTL_MS, 4 * deps.stream.keepAliveMs);
/** Retry-After of a 429 for a key with all its streams open. */
const SLOTS_RETRY_AFTER_SECONDS = 30;

/** What the key may see: read:articles (or *) every event, read:breaking alone the breaking ones. */
const breakingOnlyFor = (auth: KeyPrincipal): boolean => !auth.scopes.includes('*') && !auth.scopes.includes('read:articles');

/** A slot of `key` (one of `limit`), or 429 saying `whose` streams are all open / 503 (the database). */
async function holdOne(deps: NewsDeps, key: string, limit: number, whose: string): Promise<Lease> {
  try {
    return await deps.stream.leases.acquire(key, limit, { waitMs: 0, ttlMs: leaseTtlOf(deps) });
  } catch (err) {
    if (err instanceof LeaseWaitTimeout) throw new AppError('RATE_LIMITED', `${whose}: close one first`, { headers: { 'Retry-After': String(SLOTS_RETRY_AFTER_SECONDS) } });
    throw dependencyUnavailable('mongodb', err);
  }
}

/**
 * One of the key's stream slots and one of its account's, or 429 (every slot of either held, across
 * processes) / 503 (the database). Held, renewed and released together.
 */
async function holdSlot(deps: NewsDeps, auth: KeyPrincipal): Promise<Lease> {
  const { streamsPerKey, streamsPerAccount } = PLAN_LIMITS[auth.plan];
  const plan = planName(auth.plan);
  const key = await holdOne(deps, `news-stream:${auth.keyId}`, streamsPerKey, `This API key has ${streamsPerKey} event streams open, the most the ${plan} plan allows per key`);
  let account: Lease;
  try {
    account = await holdOne(deps, `news-stream-account:${auth.sub}`, streamsPerAccount, `This account has ${streamsPerAccount} event streams open across its keys, the most the ${plan} plan allows`);
  } catch (err) {
    await key.release().catch(() => undefined);
    throw err;
  }
  return {
    release: async () => void (await Promise.all([key.release(), account.release()])),
    renew: async (ttlMs) => (await Promise.all([key.renew(ttlMs), account.renew(ttlMs)])).every(Boolean),
  };
}

/** Opens the stream: 400, 403, 429 and 503 are answered as JSON before anything is sent. */
async function openStream(deps: NewsDeps, ctx: Context, auth: KeyPrincipal, query: StreamQueryOf): Promise<typeof RAW> {
  const modules = modulesFor(query.include?.join(','), auth.plan);
  const filter: EventFilter = { sectors: query.sector, topics: query.topic, tickers: query.ticker, entityIds: query.entity, breakingOnly: breakingOnlyFor(auth) };
  const lastEventId = parseStreamId(ctx.get('last-event-id')) ?? parseStreamId(query.lastEventId);
  const lease = await holdSlot(deps, auth);
  let opened;
  try {
    opened = await deps.stream.hub.open({ filter, modules, lastEventId });
  } catch (err) {
    await lease.release().catch(() => undefined);
    if (err instanceof AppError) throw err;
    throw dependencyUnavailable('mongodb', err);
  }
  const { subscription, opening } = opened;
  const out = new PassThrough();
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.set('Cache-Control', 'no-cache, no-transform');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.body = out;
  // Ended after its lifetime (±10 %, so that streams opened together do not come back together):
  // the client reconnects with its Last-Event-ID, and its key is checked again.
  const lifetime = setTimeout(() => close(), deps.stream.streamMaxMs * (0.9 + Math.random() * 0.2));
  lifetime.unref();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(lifetime);
    subscription.close();
    void lease.release().catch(() => undefined);
    if (!out.writableEnded) out.end();
  };
  ctx.req.once('close', close);
  ctx.res.once('close', close);
  const sink: NewsStreamSink = {
    write: (text) => {
      if (!out.writableEnded) out.write(text);
    },
    buffered: () => out.writableLength,
    // The slot is renewed with each keep-alive; a slot lost (the database was away past its TTL
    // and another stream took it) ends the stream: the client reconnects and queues for one.
    keptAlive: () => {
      lease.renew(leaseTtlOf(deps)).then(
        (held) => {
          if (!held) close();
        },
        () => undefined,
      );
    },
    ended: close,
  };
  out.write(`retry: ${RETRY_MS}\nid: ${subscription.cursor}\n\n`);
  subscription.attach(sink, opening);
  return RAW;
}

type StreamQueryOf = ReturnType<typeof StreamQuery.parse>;

const exampleData = { seq: 48_213, type: 'article.breaking', timestamp: '2026-11-24T14:31:07.412Z', article: breakingArticleExample };

export const streamRoutes = [
  route({
    method: 'get',
    path: '/api/stream',
    summary: 'Articles as they are published (Server-Sent Events)',
    description:
      'A stream of Server-Sent Events (text/event-stream) that stays open: an `article.published` event for each article published (by the newsroom\'s sources or a fresh import), ' +
      '`article.breaking` instead for a breaking one, each with {seq, type, timestamp, article}, the article as GET /api/articles/{id} shows it with the include modules asked for (gated by the plan as the lists are). ' +
      'Filters: sector, topic, ticker, entity, each a comma-separated list (any of its values; every filter given must match). ' +
      'Needs read:articles, or read:breaking, which gets `article.breaking` events only. ' +
      'EventSource cannot send the X-API-Key header: read the stream with fetch (or `curl -N`), never with the key in the URL. ' +
      'Events reach the stream within about a second of publication (NEWS_STREAM_POLL_MS, 250 ms). ' +
      '`retry:` sets the reconnection delay; events and the keep-alive comment (every 15 s) carry an id: send the last one back as the Last-Event-ID header (or `lastEventId`) when reconnecting, ' +
      'and the stream first sends the matching events published since (one may come twice: deduplicate by seq), ' +
      'or `reset` ({reason}) when that id is older than 24 hours or more than 5,000 events would be sent again: then reload from the lists and read on. ' +
      'The server ends a stream after 30 minutes (±10 %): reconnect with the last id. ' +
      'Opening a stream counts one request against the minute limit and the monthly quota; events are not counted. ' +
      'A key holds at most Starter 2, Pro 10, Business 50 streams at once (across all servers); past it, 429.',
    tags: ['articles'],
    auth: apiKey(['read:articles', 'read:breaking']),
    query: StreamQuery,
    produces: 'text/event-stream',
    response: NewsStreamEvent,
    errors: [403, 429, 503],
    example: { query: { sector: ['FIN', 'ENE'], include: ['sentiment'] }, response: { event: 'article.breaking', id: '48213', data: JSON.stringify(exampleData) } },
    handler: ({ query, auth, ctx, deps }) => openStream(deps, ctx, auth, query),
  }),
];
