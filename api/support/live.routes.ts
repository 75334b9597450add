/**
 * The support desk's live updates (issue 38): the stream of changes an open queue or ticket page
 * listens to (Server-Sent Events), and presence, who is viewing or replying to a ticket. Staff
 * only (`support.agent`); the staff console serves the same routes under the staff session.
 * The reasons: docs/decisions.md, "Live updates of the support desk" (issue 38).
 */
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { AppError, dependencyUnavailable } from '../../models/errors';
import { EVENT_TAGS_MAX, eventIdOf, parseEventId, type LiveEvent, type TicketChange } from '../../models/support/live.rules';
import { SUPPORT_AGENT } from '../../models/support/ticket.rules';
import { announcePresence, leavePresence, personOf, requireTicket, ticketPresence, type StreamSink } from '../../operations/support/live';
import { bearer } from '../shared/auth';
import { RAW, routeFactory } from '../shared/route';
import { LiveEventsQuery, LiveStreamEvent, PresenceBody, TicketIdParams, TicketPresenceView } from './contracts';
import type { SupportDeps } from './deps';
import { liveTicketEventExample, presenceAfterLeavingExample, presenceExample, ticketId } from './examples';

const route = routeFactory<SupportDeps>();
const staff = bearer(SUPPORT_AGENT);
// Under `tickets`: the live updates are about tickets (a tag of their own would need its description in reference.ts).
const tags = ['tickets'];

/** How long EventSource waits before reconnecting (the `retry:` field). */
export const RETRY_MS = 3_000;
/** A client that reads slower than the events come: past this much unsent, its stream ends (it reconnects and resumes). */
const UNSENT_MAX_BYTES = 1024 * 1024;

const ticketData = (c: TicketChange) => ({
  id: c.id,
  status: c.status,
  ...(c.assignee !== undefined ? { assignee: c.assignee } : {}),
  updatedAt: c.updatedAt.toISOString(),
  lastMessageAt: c.lastMessageAt ? c.lastMessageAt.toISOString() : null,
  tags: c.tags.slice(0, EVENT_TAGS_MAX),
});

/** Each event's `event:` and `data:` lines, serialized once for every stream it goes to. */
const serialized = new WeakMap<LiveEvent, string>();
function linesOf(event: LiveEvent): string {
  let text = serialized.get(event);
  if (text === undefined) {
    const data =
      event.type === 'ticket' ? ticketData(event.change) : event.type === 'presence' ? { ticketId: event.ticketId, people: event.people } : { reason: event.reason };
    text = `event: ${event.type}\ndata: ${JSON.stringify(data)}\n\n`;
    serialized.set(event, text);
  }
  return text;
}

/**
 * Writes a stream's events as Server-Sent Events. Ticket events carry an id, the stream's cursor
 * (never going back); a keep-alive moves it on. A ticket the opening resend read (a resume) passes
 * over the same ticket's events from earlier reads, which the stream held while it opened.
 */
class SseWriter implements StreamSink {
  private lastId = 0;

  constructor(
    private readonly out: PassThrough,
    private readonly resumedAt: Map<number, number>,
    private readonly end: () => void,
  ) {}

  private write(text: string): void {
    if (this.out.writableEnded) return;
    if (this.out.writableLength > UNSENT_MAX_BYTES) return this.end();
    this.out.write(text);
  }

  private advance(id: number): string {
    this.lastId = Math.max(this.lastId, id);
    return `id: ${this.lastId}\n`;
  }

  deliver(event: LiveEvent): void {
    if (event.type !== 'ticket') return this.write(linesOf(event));
    const resumed = this.resumedAt.get(event.ticketId);
    if (resumed !== undefined && event.readAt < resumed) return;
    this.write(this.advance(eventIdOf(event.change)) + linesOf(event));
  }

  keepAlive(cursor: number): void {
    // An id alone dispatches no event: it moves the client's Last-Event-ID on.
    this.write(`: keep-alive\n${this.advance(cursor)}\n`);
  }

  /** The opening: the reconnection delay, and the cursor to resume from. */
  open(cursor: number): void {
    this.write(`retry: ${RETRY_MS}\n${this.advance(cursor)}\n`);
  }
}

/** Opens the stream: 404, 429 and 503 are answered as JSON before anything is sent. */
async function openStream(deps: SupportDeps, ctx: Context, caller: string, ticket: number | undefined, lastEventId: string | undefined): Promise<typeof RAW> {
  const live = deps.live;
  const header = parseEventId(ctx.get('last-event-id'));
  const cursor = header ?? parseEventId(lastEventId);
  await requireTicket(live, ticket);
  const subscription = live.hub.subscribe(caller, ticket);
  let opening: LiveEvent[];
  let from: number;
  try {
    await live.hub.ready();
    from = live.hub.cursor;
    opening = live.hub.presenceSnapshot(ticket);
    if (cursor !== undefined) opening.push(...(await live.hub.resume(cursor, ticket)));
  } catch (err) {
    subscription.close();
    if (err instanceof AppError) throw err;
    throw dependencyUnavailable('mongodb', err);
  }
  const out = new PassThrough();
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.set('Cache-Control', 'no-cache, no-transform');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.body = out;
  // Ended after its lifetime (±10 %, so that streams opened together do not come back together):
  // the client reconnects with its Last-Event-ID, and its credential is checked again.
  const lifetime = setTimeout(() => close(), live.streamMaxMs * (0.9 + Math.random() * 0.2));
  lifetime.unref();
  const close = () => {
    clearTimeout(lifetime);
    subscription.close();
    if (!out.writableEnded) out.end();
  };
  ctx.req.once('close', close);
  ctx.res.once('close', close);
  const resumedAt = new Map<number, number>();
  for (const e of opening) if (e.type === 'ticket') resumedAt.set(e.ticketId, e.readAt);
  const writer = new SseWriter(out, resumedAt, close);
  writer.open(cursor === undefined ? from : Math.max(from, cursor));
  for (const e of opening) writer.deliver(e);
  subscription.attach(writer);
  return RAW;
}

export const liveRoutes = [
  route({
    method: 'get',
    path: '/support/eventos',
    summary: "Live updates of the desk's tickets and presence (Server-Sent Events)",
    description:
      'Staff only. A stream of Server-Sent Events (text/event-stream) that stays open: `ticket` events when a ticket changes ' +
      '(a message, its status, fields, tags, assignee: {id, status, assignee, updatedAt, lastMessageAt, tags}), `presence` events when who is viewing or replying to a ticket changes ' +
      '({ticketId, people}, empty when everyone left), and `reset` when the client should reload what it shows ({reason}). ' +
      'Every ticket, or one with `ticket=<id>` (which opens with that ticket\'s presence; the queue\'s stream opens with every ticket someone is on). ' +
      'Changes reach the stream within about a second (SUPPORT_LIVE_POLL_MS); events are states, so one received twice is harmless. ' +
      '`retry:` sets the reconnection delay; ticket events and the keep-alive comment (every SUPPORT_LIVE_KEEPALIVE_SECONDS, 15 s) carry an id: ' +
      'EventSource sends the last as Last-Event-ID when it reconnects (or send it as `lastEventId`), and the stream first sends the tickets changed since, ' +
      `or \`reset\` when that is older than SUPPORT_LIVE_RESUME_SECONDS (5 min) or more than 500 tickets changed. ` +
      'The server ends a stream after SUPPORT_LIVE_STREAM_MAX_SECONDS (10 min, ±10 %): EventSource reconnects and resumes, and the credential is checked again. ' +
      'A person holds at most SUPPORT_LIVE_MAX_STREAMS_PER_PERSON streams (5) and a process serves SUPPORT_LIVE_MAX_STREAMS: past either, 429.',
    tags,
    auth: staff,
    query: LiveEventsQuery,
    produces: 'text/event-stream',
    response: LiveStreamEvent,
    errors: [404, 429, 503],
    example: { query: { ticket: ticketId }, response: liveTicketEventExample },
    handler: ({ query, auth, ctx, deps }) => openStream(deps, ctx, personOf(auth), query.ticket, query.lastEventId),
  }),

  route({
    method: 'get',
    path: '/support/:id/presenca',
    summary: 'Who is viewing or replying to a ticket now',
    description: 'Staff only. For a page that just opened; the stream (GET /support/eventos?ticket=<id>) then tells every change.',
    tags,
    auth: staff,
    params: TicketIdParams,
    response: TicketPresenceView,
    errors: [404],
    example: { params: { id: ticketId }, response: presenceExample },
    handler: async ({ params, deps }) => ({ ticketId: params.id, people: await ticketPresence(deps.live, params.id) }),
  }),

  route({
    method: 'put',
    path: '/support/:id/presenca',
    summary: 'Say you are viewing or replying to a ticket (a heartbeat)',
    description:
      "Staff only. The ticket's page sends it on opening and every ~10 s after (and when its reply box starts or stops being typed in): " +
      'it keeps the caller on the ticket for SUPPORT_PRESENCE_TTL_SECONDS (30 s), so a page that closes without saying so drops off by itself. ' +
      'Answers who is on the ticket now; the other pages learn it from their streams.',
    tags,
    auth: staff,
    params: TicketIdParams,
    body: PresenceBody,
    response: TicketPresenceView,
    errors: [404],
    example: { params: { id: ticketId }, body: { state: 'replying' }, response: presenceExample },
    handler: async ({ params, body, auth, deps }) => ({ ticketId: params.id, people: await announcePresence(deps.live, auth, params.id, body.state) }),
  }),

  route({
    method: 'delete',
    path: '/support/:id/presenca',
    summary: 'Say you left a ticket',
    description: "Staff only. The ticket's page sends it when it closes. Answers who is still on the ticket.",
    tags,
    auth: staff,
    params: TicketIdParams,
    response: TicketPresenceView,
    errors: [404],
    example: { params: { id: ticketId }, response: presenceAfterLeavingExample },
    handler: async ({ params, auth, deps }) => ({ ticketId: params.id, people: await leavePresence(deps.live, auth, params.id) }),
  }),
];
