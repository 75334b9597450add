/**
 * The support desk's live updates on the real stack (issue 38): the event stream (Server-Sent
 * Events over a real port of loopback), presence, Last-Event-ID resume, the stream caps, and the
 * traffic cop of POST /support/:id/mensagens. Events are waited for with deadlines, never slept for.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { presenceModel } from '../../models/support/support.model';
import { serve, type Served } from '../helpers/clients';
import { eventually, tokenFor } from '../helpers/service';
import { agentToken, buildTicket, client, readerToken, startSupportService, type SupportService } from '../helpers/support';

jest.setTimeout(60_000);

interface SseEvent {
  event: string;
  id: string | undefined;
  data: any;
}

/**
 * A stream opened with fetch, parsed as Server-Sent Events. `next` waits (up to a deadline) for
 * the first event not yet taken that matches; `retry` and `lastId` are what the stream set.
 */
class Stream {
  readonly events: SseEvent[] = [];
  private taken = 0;
  retry: number | undefined;
  lastId: string | undefined;
  private waiters: (() => void)[] = [];
  private buffer = '';
  private readonly abort = new AbortController();
  closed = false;

  static async open(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; stream?: Stream; body?: any; headers: Headers }> {
    const s = new Stream();
    const res = await fetch(`${base}${path}`, { headers, signal: s.abort.signal });
    if (res.status !== 200) return { status: res.status, body: await res.json(), headers: res.headers };
    void s.read(res.body!);
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
      if (line.startsWith(':')) continue;
      const [field, ...rest] = line.split(':');
      const value = rest.join(':').replace(/^ /, '');
      if (field === 'retry') this.retry = Number(value);
      else if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (id !== undefined) this.lastId = id;
    if (data.length === 0) return;
    this.events.push({ event, id, data: JSON.parse(data.join('\n')) });
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** The next event (after those taken) matching `match`, within `deadlineMs`. */
  async next(match: (e: SseEvent) => boolean, deadlineMs: number): Promise<SseEvent> {
    const until = Date.now() + deadlineMs;
    for (;;) {
      const i = this.events.findIndex((e, n) => n >= this.taken && match(e));
      if (i >= 0) {
        this.taken = i + 1;
        return this.events[i]!;
      }
      const left = until - Date.now();
      if (left <= 0 || this.closed) throw new Error(`no matching event within ${deadlineMs} ms; got ${JSON.stringify(this.events.slice(this.taken))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until the stream has sent its opening (retry and the cursor). */
  async opened(deadlineMs = 5_000): Promise<void> {
    const until = Date.now() + deadlineMs;
    while (this.retry === undefined) {
      if (Date.now() > until || this.closed) throw new Error('the stream did not open');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.abort.abort();
  }
}

let svc: SupportService;
let served: Served;
let agentA: string;
let agentB: string;
const emailA = `agent-a-${randomUUID().slice(0, 6)}`;
const emailB = `agent-b-${randomUUID().slice(0, 6)}`;
const streams: Stream[] = [];

beforeAll(async () => {
  svc = await startSupportService();
  served = await serve(svc.callback);
  agentA = await agentToken(emailA);
  agentB = await agentToken(emailB);
});
afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});
afterAll(async () => {
  await served?.close();
  await svc?.close();
});

/** Opens a stream as `token` (each from its own client IP). */
async function open(token: string, query = '', headers: Record<string, string> = {}): Promise<Stream> {
  const { status, stream, body } = await Stream.open(served.baseUrl, `/support/eventos${query}`, { authorization: `Bearer ${token}`, 'x-forwarded-for': `10.9.${streams.length}.${Math.floor(Math.random() * 250) + 1}`, ...headers });
  if (!stream) throw new Error(`stream answered ${status}: ${JSON.stringify(body)}`);
  streams.push(stream);
  await stream.opened();
  return stream;
}

/** A client (its own IP) with the methods the helper's lacks. */
function as(service: SupportService, token?: string) {
  const c = client(service, token);
  const put = (path: string, body: object) => {
    const t = request(service.callback).put(path).set('X-Forwarded-For', c.ip);
    return (token ? t.set('Authorization', `Bearer ${token}`) : t).send(body);
  };
  return { ...c, put };
}

async function createTicket() {
  const res = await client(svc).post('/support', buildTicket()).expect(201);
  return res.body.data as { id: number; email: string };
}

describe('GET /support/eventos', () => {
  it('opens with retry and a cursor, and carries a message added by another agent as a ticket event within 2 s', async () => {
    const ticket = await createTicket();
    const a = await open(agentA);
    expect(a.retry).toBe(3000);
    expect(a.lastId).toMatch(/^\d+$/);
    const sent = await client(svc, agentB).post(`/support/${ticket.id}/mensagens`, { conteudo: 'Reenviamos a edição.' }).expect(201);
    const at = Date.now();
    // The message and the status it moves the ticket to are two writes: a read between them sends two events.
    const event = await a.next((e) => e.event === 'ticket' && e.data.id === ticket.id && e.data.lastMessageAt !== null && e.data.status === 'in_progress', 2_000);
    expect(Date.now() - at).toBeLessThan(2_000);
    const { assignee, ...rest } = event.data;
    expect(rest).toEqual({ id: ticket.id, status: 'in_progress', updatedAt: expect.any(String), lastMessageAt: sent.body.data.createdAt, tags: [] });
    // Where tickets have an assignee field (issue 38's assignment), no one yet.
    expect([undefined, null]).toContain(assignee);
    expect(Number(event.id)).toBeGreaterThanOrEqual(Number(a.lastId) - 60_000);
  });

  it('carries a status change, to the queue and to that ticket\'s stream only', async () => {
    const [ticket, other] = [await createTicket(), await createTicket()];
    const queue = await open(agentA);
    const one = await open(agentA, `?ticket=${ticket.id}`);
    // A ticket's stream opens with who is on it.
    await one.next((e) => e.event === 'presence', 2_000).then((e) => expect(e.data).toEqual({ ticketId: ticket.id, people: [] }));
    await client(svc, agentB).patch(`/support/${other.id}`, { status: 'resolved' }).expect(200);
    await client(svc, agentB).patch(`/support/${ticket.id}`, { status: 'closed' }).expect(200);
    await queue.next((e) => e.event === 'ticket' && e.data.id === other.id && e.data.status === 'resolved', 3_000);
    await queue.next((e) => e.event === 'ticket' && e.data.id === ticket.id && e.data.status === 'closed', 3_000);
    await one.next((e) => e.event === 'ticket' && e.data.id === ticket.id && e.data.status === 'closed', 3_000);
    expect(one.events.filter((e) => e.event === 'ticket').map((e) => e.data.id)).toEqual([ticket.id]);
  });

  it('resends what changed after a Last-Event-ID, and asks for a reload when it is too old', async () => {
    const ticket = await createTicket();
    const first = await open(agentA, `?ticket=${ticket.id}`);
    const cursor = first.lastId!;
    first.close();
    await client(svc, agentB).post(`/support/${ticket.id}/mensagens`, { conteudo: 'Enquanto você estava fora.' }).expect(201);
    const resumed = await open(agentA, `?ticket=${ticket.id}`, { 'last-event-id': cursor });
    const event = await resumed.next((e) => e.event === 'ticket' && e.data.id === ticket.id, 2_000);
    expect(event.data.lastMessageAt).not.toBeNull();
    expect(Number(event.id)).toBeGreaterThanOrEqual(Number(cursor));
    // The same by the query parameter (a page that makes a new EventSource).
    const byQuery = await open(agentA, `?ticket=${ticket.id}&lastEventId=${cursor}`);
    await byQuery.next((e) => e.event === 'ticket' && e.data.id === ticket.id, 2_000);
    const stale = await open(agentA, `?ticket=${ticket.id}`, { 'last-event-id': String(Date.now() - 3_600_000) });
    await stale.next((e) => e.event === 'reset', 2_000).then((e) => expect(e.data).toEqual({ reason: 'resume_window_passed' }));
  });

  it('ends a stream after its lifetime; the client comes back with its last id and gets what it missed', async () => {
    const brief = await startSupportService({ SUPPORT_LIVE_STREAM_MAX_SECONDS: '1' });
    const port = await serve(brief.callback);
    try {
      const ticket = (await client(brief).post('/support', buildTicket()).expect(201)).body.data as { id: number };
      const first = await Stream.open(port.baseUrl, `/support/eventos?ticket=${ticket.id}`, { authorization: `Bearer ${agentA}` });
      streams.push(first.stream!);
      await first.stream!.opened();
      expect(await eventually(async () => first.stream!.closed, true, 5_000)).toBe(true);
      await client(brief, agentB).post(`/support/${ticket.id}/mensagens`, { conteudo: 'Depois do fim do stream.' }).expect(201);
      const again = await Stream.open(port.baseUrl, `/support/eventos?ticket=${ticket.id}`, { authorization: `Bearer ${agentA}`, 'last-event-id': first.stream!.lastId! });
      streams.push(again.stream!);
      const missed = await again.stream!.next((e) => e.event === 'ticket' && e.data.id === ticket.id, 2_000);
      expect(missed.data.lastMessageAt).not.toBeNull();
    } finally {
      for (const s of streams.splice(0)) s.close();
      await port.close();
      await brief.close();
    }
  });

  it('refuses a sixth stream of one person with 429, and frees a place when one closes', async () => {
    const person = await agentToken(`agent-cap-${randomUUID().slice(0, 6)}`);
    const five = await Promise.all(Array.from({ length: 5 }, () => open(person)));
    const hub = svc.deps.live.hub;
    const refused = await Stream.open(served.baseUrl, '/support/eventos', { authorization: `Bearer ${person}`, 'x-forwarded-for': '10.8.0.1' });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ success: false, message: expect.stringMatching(/5 live streams open, the most one person may \(5\)/), error: 'RATE_LIMITED' });
    expect(refused.headers.get('retry-after')).toBe('30');
    const before = hub.size;
    five[0]!.close();
    // The server notices the client went away and forgets its stream.
    expect(await eventually(async () => hub.size, before - 1, 5_000)).toBe(before - 1);
    await open(person);
  });

  it('stops reading when the last stream closes', async () => {
    const hub = svc.deps.live.hub;
    const s = await open(agentA);
    expect(hub.isRunning).toBe(true);
    s.close();
    for (const other of streams.splice(0)) other.close();
    expect(await eventually(async () => hub.isRunning, false, 5_000)).toBe(false);
  });

  it.each(['?ticket=abc', '?ticket=0', '?lastEventId=abc', '?lastEventId=1234567890123456'])('rejects %s with 400', async (query) => {
    const res = await client(svc, agentA).get(`/support/eventos${query}`).expect(400);
    expect(res.body.error).toBe('VALIDATION_FAILED');
  });

  it('answers 404 for a ticket that does not exist, before opening', async () => {
    const res = await client(svc, agentA).get('/support/eventos?ticket=999999999').expect(404);
    expect(res.body.error).toBe('NOT_FOUND');
  });
});

describe('presence', () => {
  it("shows agent B's viewing and replying on agent A's stream, and B leaving", async () => {
    const ticket = await createTicket();
    const a = await open(agentA, `?ticket=${ticket.id}`);
    await a.next((e) => e.event === 'presence' && e.data.people.length === 0, 2_000);
    const put = await as(svc, agentB).put(`/support/${ticket.id}/presenca`, { state: 'viewing' }).expect(200);
    expect(put.body.data).toEqual({ ticketId: ticket.id, people: [{ email: `${emailB}@newsletter.dev`, state: 'viewing' }] });
    await a.next((e) => e.event === 'presence' && e.data.people[0]?.state === 'viewing', 3_000).then((e) => expect(e.data).toEqual(put.body.data));
    await as(svc, agentB).put(`/support/${ticket.id}/presenca`, { state: 'replying' }).expect(200);
    await a.next((e) => e.event === 'presence' && e.data.people[0]?.state === 'replying', 3_000);
    const now = await client(svc, agentA).get(`/support/${ticket.id}/presenca`).expect(200);
    expect(now.body).toEqual({ success: true, data: { ticketId: ticket.id, people: [{ email: `${emailB}@newsletter.dev`, state: 'replying' }] } });
    const left = await client(svc, agentB).delete(`/support/${ticket.id}/presenca`).expect(200);
    expect(left.body.data).toEqual({ ticketId: ticket.id, people: [] });
    await a.next((e) => e.event === 'presence' && e.data.people.length === 0, 3_000);
  });

  it('expires when the heartbeats stop', async () => {
    // A service of its own whose heartbeats keep someone on a ticket 5 s (the least allowed).
    const short = await startSupportService({ SUPPORT_PRESENCE_TTL_SECONDS: '5' });
    const port = await serve(short.callback);
    try {
      const ticket = (await client(short).post('/support', buildTicket()).expect(201)).body.data as { id: number };
      const { stream } = await Stream.open(port.baseUrl, `/support/eventos?ticket=${ticket.id}`, { authorization: `Bearer ${agentA}` });
      streams.push(stream!);
      await stream!.opened();
      await as(short, agentB).put(`/support/${ticket.id}/presenca`, { state: 'viewing' }).expect(200);
      await stream!.next((e) => e.event === 'presence' && e.data.people.length === 1, 3_000);
      await stream!.next((e) => e.event === 'presence' && e.data.people.length === 0, 10_000);
      expect((await client(short, agentA).get(`/support/${ticket.id}/presenca`).expect(200)).body.data.people).toEqual([]);
    } finally {
      for (const s of streams.splice(0)) s.close();
      await port.close();
      await short.close();
    }
  });

  it.each([{ state: 'typing' }, {}, { state: 'viewing', extra: 1 }, { state: null }])('rejects %j with 400 and stores nothing', async (body) => {
    const ticket = await createTicket();
    const res = await as(svc, agentA).put(`/support/${ticket.id}/presenca`, body).expect(400);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect(await presenceModel(svc.deps.mongo.conn).countDocuments({ ticketId: ticket.id })).toBe(0);
  });

  it('answers 404 for a ticket that does not exist', async () => {
    await as(svc, agentA).put('/support/999999999/presenca', { state: 'viewing' }).expect(404);
    await client(svc, agentA).get('/support/999999999/presenca').expect(404);
    await client(svc, agentA).delete('/support/999999999/presenca').expect(404);
  });
});

describe('a token without support.agent', () => {
  it('gets 403 on every live route, and nothing is stored', async () => {
    const ticket = await createTicket();
    for (const token of [await readerToken(ticket.email), await tokenFor(`quiz-${randomUUID().slice(0, 6)}`, ['quiz.view'], 'quiz@example.com')]) {
      const answers = [
        await as(svc, token).get('/support/eventos'),
        await as(svc, token).get(`/support/eventos?ticket=${ticket.id}`),
        await as(svc, token).get(`/support/${ticket.id}/presenca`),
        await as(svc, token).put(`/support/${ticket.id}/presenca`, { state: 'viewing' }),
        await as(svc, token).delete(`/support/${ticket.id}/presenca`),
      ];
      expect(answers.map((r) => [r.status, r.body.error])).toEqual(Array(5).fill([403, 'FORBIDDEN']));
      const { status } = await Stream.open(served.baseUrl, '/support/eventos', { authorization: `Bearer ${token}` });
      expect(status).toBe(403);
    }
    expect(await presenceModel(svc.deps.mongo.conn).countDocuments({ ticketId: ticket.id })).toBe(0);
  });
});

describe('POST /support/:id/mensagens with lastSeenMessageId (the traffic cop)', () => {
  it('refuses a reply written while a newer message arrived (409 with it, nothing written), and sends it with force', async () => {
    const ticket = await createTicket();
    const reader = client(svc, await readerToken(ticket.email));
    const first = (await client(svc, agentA).post(`/support/${ticket.id}/mensagens`, { conteudo: 'Reenviamos a edição.' }).expect(201)).body.data;
    const thanks = (await reader.post(`/support/${ticket.id}/mensagens`, { conteudo: 'Chegou, obrigada!' }).expect(201)).body.data;
    const stale = await client(svc, agentB).post(`/support/${ticket.id}/mensagens`, { conteudo: 'Conseguiu receber?', lastSeenMessageId: first.id }).expect(409);
    expect(stale.body).toEqual({
      success: false,
      message: expect.stringMatching(/1 newer message\(s\) arrived/),
      error: 'CONFLICT',
      details: { reason: 'newer_messages', newerCount: 1, lastMessageId: thanks.id, newer: [thanks] },
    });
    const messages = async () => (await client(svc, agentA).get(`/support/${ticket.id}/mensagens`).expect(200)).body.data.map((m: { id: number }) => m.id);
    expect(await messages()).toEqual([first.id, thanks.id]);
    // Seen now: sent. Or sent anyway with force.
    const seen = await client(svc, agentB).post(`/support/${ticket.id}/mensagens`, { conteudo: 'Que bom!', lastSeenMessageId: thanks.id }).expect(201);
    const forced = await client(svc, agentA).post(`/support/${ticket.id}/mensagens`, { conteudo: 'Qualquer coisa, estamos aqui.', lastSeenMessageId: first.id, force: true }).expect(201);
    expect(await messages()).toEqual([first.id, thanks.id, seen.body.data.id, forced.body.data.id]);
    // Without the field nothing is checked (clients of before).
    await client(svc, agentA).post(`/support/${ticket.id}/mensagens`, { conteudo: 'Sem verificação.' }).expect(201);
  });

  it.each([{ lastSeenMessageId: -1 }, { lastSeenMessageId: 'x' }, { lastSeenMessageId: 1.5 }, { force: 'yes' }])('rejects %j with 400 and writes nothing', async (extra) => {
    const ticket = await createTicket();
    const res = await client(svc, agentA).post(`/support/${ticket.id}/mensagens`, { conteudo: 'Olá', ...extra }).expect(400);
    expect(res.body.error).toBe('VALIDATION_FAILED');
    expect((await client(svc, agentA).get(`/support/${ticket.id}/mensagens`).expect(200)).body.data).toEqual([]);
  });
});
