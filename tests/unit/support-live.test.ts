/**
 * The support desk's live updates (issue 38) with fakes: one hub per process reads once per tick
 * whatever the number of streams, passes each change on once (the lookback reads it again),
 * diffs presence, stops with its last stream, and caps streams; presence's use cases; and the
 * traffic cop of addMessage (a reply written while someone else's message arrived).
 */
import type { Principal } from '../../models/auth/token.rules';
import { AppError } from '../../models/errors';
import type { LiveEvent, PresenceEntry, TicketChange } from '../../models/support/live.rules';
import type { MessageDoc, TicketDoc } from '../../models/support/support.model';
import { announcePresence, leavePresence, LIVE_DEFAULTS, LiveHub, ticketPresence, type LiveSettings, type PresenceDeps, type StreamSink } from '../../operations/support/live';
import { addMessage } from '../../operations/support/tickets';

const T0 = Date.parse('2026-11-24T12:00:00.000Z');

const SETTINGS: LiveSettings = {
  ...LIVE_DEFAULTS,
  pollMs: 1_000,
  lookbackMs: 5_000,
  keepAliveMs: 15_000,
  resumeWindowMs: 300_000,
  maxStreams: 100,
  maxStreamsPerCaller: 5,
};

/** A database of ticket changes and presence entries, a clock and a timer, all in memory. */
function fakes(settings: Partial<LiveSettings> = {}) {
  const state = {
    now: T0,
    tickets: new Map<number, TicketChange>(),
    presence: [] as PresenceEntry[],
    changedCalls: [] as { since: number; limit: number; ticketId?: number | undefined }[],
    presenceCalls: 0,
    timers: [] as { fn: () => void; ms: number; cancelled: boolean }[],
    failNext: false,
  };
  const hub = new LiveHub(
    {
      async changedSince(since, { limit, ticketId }) {
        state.changedCalls.push({ since: since.getTime(), limit, ticketId });
        if (state.failNext) {
          state.failNext = false;
          throw new Error('database down');
        }
        return [...state.tickets.values()]
          .filter((t) => t.updatedAt.getTime() > since.getTime() && (ticketId === undefined || t.id === ticketId))
          .sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime() || a.id - b.id)
          .slice(0, limit);
      },
      async activePresence(now, limit) {
        state.presenceCalls += 1;
        return state.presence.filter((p) => p.expiresAt.getTime() > now.getTime()).slice(0, limit);
      },
      now: () => new Date(state.now),
      schedule: (fn, ms) => {
        const timer = { fn, ms, cancelled: false };
        state.timers.push(timer);
        return () => {
          timer.cancelled = true;
        };
      },
    },
    { ...SETTINGS, ...settings },
  );
  /** A ticket written at `at` (default: now). */
  const write = (id: number, changes: Partial<TicketChange> = {}, at = state.now) =>
    state.tickets.set(id, { id, status: 'open', lastMessageAt: null, tags: [], ...state.tickets.get(id), ...changes, updatedAt: new Date(at) });
  const pending = () => state.timers.filter((t) => !t.cancelled);
  /** Runs the loop's next scheduled step (a read, then the keep-alives, then the next schedule). */
  const runScheduled = async () => {
    const next = pending()[0];
    if (!next) throw new Error('nothing scheduled');
    next.cancelled = true;
    next.fn();
    // The loop is async: let its read and fan-out finish.
    for (let i = 0; i < 10; i += 1) await Promise.resolve();
  };
  return { hub, state, write, pending, runScheduled };
}

/** A stream's sink that records what it got. */
function recorder() {
  const events: LiveEvent[] = [];
  const keepAlives: number[] = [];
  const sink: StreamSink = { deliver: (e) => events.push(e), keepAlive: (cursor) => keepAlives.push(cursor) };
  return { events, keepAlives, sink, tickets: () => events.flatMap((e) => (e.type === 'ticket' ? [`${e.ticketId}:${e.change.status}`] : [])) };
}

describe('the live hub', () => {
  it('fans one read per tick out to every stream: 50 streams, one query', async () => {
    const { hub, state, write } = fakes();
    const streams = Array.from({ length: 50 }, (_, i) => {
      const r = recorder();
      hub.subscribe(`agent-${i}@newsletter.dev`).attach(r.sink);
      return r;
    });
    state.now += 1_000;
    write(1842, { status: 'in_progress' });
    await hub.tick();
    expect(state.changedCalls).toHaveLength(1);
    expect(state.presenceCalls).toBe(1);
    for (const s of streams) expect(s.tickets()).toEqual(['1842:in_progress']);
    state.now += 1_000;
    await hub.tick();
    expect(state.changedCalls).toHaveLength(2);
    // Read again by the lookback, passed on once.
    for (const s of streams) expect(s.tickets()).toEqual(['1842:in_progress']);
  });

  it('reads from its last read minus the lookback, and passes a late change on once', async () => {
    const { hub, state, write } = fakes();
    const r = recorder();
    hub.subscribe('mariana@newsletter.dev').attach(r.sink);
    await hub.tick();
    expect(state.changedCalls[0]!.since).toBe(T0 - 5_000);
    state.now += 1_000;
    write(1, { status: 'in_progress' });
    await hub.tick();
    expect(state.changedCalls[1]!.since).toBe(T0 - 5_000);
    // Another process, its clock 3 s behind, commits a change stamped before this process's last read.
    write(2, { status: 'resolved' }, state.now - 3_000);
    state.now += 1_000;
    await hub.tick();
    expect(state.changedCalls[2]!.since).toBe(T0 + 1_000 - 5_000);
    expect(r.tickets()).toEqual(['1:in_progress', '2:resolved']);
    // The same ticket changed again: a new state, passed on.
    write(1, { status: 'resolved' });
    state.now += 1_000;
    await hub.tick();
    expect(r.tickets()).toEqual(['1:in_progress', '2:resolved', '1:resolved']);
  });

  it("gives a ticket's stream that ticket's events only, and every stream the resets", async () => {
    const { hub, state, write } = fakes({ maxChangesPerRead: 3 });
    const queue = recorder();
    const one = recorder();
    hub.subscribe('a@newsletter.dev').attach(queue.sink);
    hub.subscribe('b@newsletter.dev', 7).attach(one.sink);
    write(7, { status: 'in_progress' });
    write(8, { status: 'closed' });
    state.now += 1_000;
    await hub.tick();
    expect(queue.tickets()).toEqual(['7:in_progress', '8:closed']);
    expect(one.tickets()).toEqual(['7:in_progress']);
    // More changes at once than a read passes on (a bulk operation): everyone reloads.
    for (const id of [9, 10, 11, 12]) write(id, { status: 'resolved' });
    state.now += 1_000;
    await hub.tick();
    expect(queue.events.at(-1)).toEqual({ type: 'reset', reason: 'too_many_changes' });
    expect(one.events.at(-1)).toEqual({ type: 'reset', reason: 'too_many_changes' });
    // Nothing before that read is read again.
    state.now += 1_000;
    await hub.tick();
    expect(state.changedCalls.at(-1)!.since).toBe(state.now - 1_000);
  });

  it('tells presence when a ticket\'s set changes, and when it empties', async () => {
    const { hub, state } = fakes();
    const r = recorder();
    hub.subscribe('mariana@newsletter.dev').attach(r.sink);
    const until = (s: number) => new Date(state.now + s * 1000);
    // The first read learns who is where; a stream opening gets that from the snapshot, not as an event.
    state.presence.push({ ticketId: 1842, email: 'ana@newsletter.dev', state: 'viewing', expiresAt: until(30) });
    await hub.tick();
    expect(r.events).toEqual([]);
    expect(hub.presenceSnapshot()).toEqual([{ type: 'presence', ticketId: 1842, people: [{ email: 'ana@newsletter.dev', state: 'viewing' }] }]);
    state.presence.splice(0);
    state.now += 1_000;
    await hub.tick();
    expect(r.events).toEqual([{ type: 'presence', ticketId: 1842, people: [] }]);
    r.events.splice(0);
    state.presence.push({ ticketId: 1842, email: 'lucas@newsletter.dev', state: 'viewing', expiresAt: until(30) });
    state.now += 1_000;
    await hub.tick();
    expect(r.events).toEqual([{ type: 'presence', ticketId: 1842, people: [{ email: 'lucas@newsletter.dev', state: 'viewing' }] }]);
    // The same set read again: nothing.
    state.now += 1_000;
    await hub.tick();
    expect(r.events).toHaveLength(1);
    // Lucas starts replying; Ana opens it.
    state.presence[0] = { ...state.presence[0]!, state: 'replying', expiresAt: until(30) };
    state.presence.push({ ticketId: 1842, email: 'ana@newsletter.dev', state: 'viewing', expiresAt: until(30) });
    state.now += 1_000;
    await hub.tick();
    expect(r.events.at(-1)).toEqual({
      type: 'presence',
      ticketId: 1842,
      people: [
        { email: 'ana@newsletter.dev', state: 'viewing' },
        { email: 'lucas@newsletter.dev', state: 'replying' },
      ],
    });
    expect(hub.presenceSnapshot(1842)).toEqual([r.events.at(-1)]);
    expect(hub.presenceSnapshot(99)).toEqual([{ type: 'presence', ticketId: 99, people: [] }]);
    // Their heartbeats stop: the entries expire (read as gone at once, whatever the TTL monitor does).
    state.now += 31_000;
    await hub.tick();
    expect(r.events.at(-1)).toEqual({ type: 'presence', ticketId: 1842, people: [] });
    expect(hub.presenceSnapshot()).toEqual([]);
  });

  it('holds a stream\'s events until it attaches, then delivers them in order', async () => {
    const { hub, state, write } = fakes();
    const sub = hub.subscribe('a@newsletter.dev');
    write(1, { status: 'in_progress' });
    state.now += 1_000;
    await hub.tick();
    write(1, { status: 'resolved' });
    state.now += 1_000;
    await hub.tick();
    const r = recorder();
    sub.attach(r.sink);
    expect(r.tickets()).toEqual(['1:in_progress', '1:resolved']);
  });

  it('reads only while a stream is open: the first starts the loop, the last stops it', async () => {
    const { hub, state, pending, runScheduled } = fakes();
    expect(hub.isRunning).toBe(false);
    const a = hub.subscribe('a@newsletter.dev');
    const b = hub.subscribe('b@newsletter.dev');
    expect(hub.isRunning).toBe(true);
    expect(pending()).toEqual([expect.objectContaining({ ms: 0 })]);
    await runScheduled();
    expect(state.changedCalls).toHaveLength(1);
    expect(pending()).toEqual([expect.objectContaining({ ms: 1_000 })]);
    a.close();
    expect(hub.isRunning).toBe(true);
    b.close();
    expect(hub.isRunning).toBe(false);
    expect(pending()).toEqual([]);
    expect(hub.size).toBe(0);
    // Started again by the next stream, reading from its new start.
    state.now += 60_000;
    hub.subscribe('c@newsletter.dev');
    await runScheduled();
    expect(state.changedCalls.at(-1)!.since).toBe(state.now - 5_000);
  });

  it('drops a read that finishes after the hub stopped', async () => {
    const { hub, state, write } = fakes();
    const sub = hub.subscribe('a@newsletter.dev');
    const r = recorder();
    sub.attach(r.sink);
    write(1);
    state.now += 1_000;
    const reading = hub.tick();
    sub.close();
    await reading;
    expect(r.events).toEqual([]);
  });

  it('caps the streams of a person (5) and of the process, with a 429 that says which', () => {
    const { hub } = fakes({ maxStreams: 7 });
    const mine = Array.from({ length: 5 }, () => hub.subscribe('mariana@newsletter.dev'));
    const refused = (() => {
      try {
        hub.subscribe('mariana@newsletter.dev');
      } catch (err) {
        return err as AppError;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/5 live streams open, the most one person may \(5\)/) });
    expect(refused!.headers).toEqual({ 'Retry-After': '30' });
    mine[0]!.close();
    hub.subscribe('mariana@newsletter.dev');
    hub.subscribe('lucas@newsletter.dev');
    hub.subscribe('ana@newsletter.dev');
    expect(() => hub.subscribe('rui@newsletter.dev')).toThrow(/most live streams it serves open \(7\)/);
    expect(hub.size).toBe(7);
  });

  it('sends keep-alives with the cursor a stream may resume from', async () => {
    const { hub, state, runScheduled } = fakes();
    const r = recorder();
    hub.subscribe('a@newsletter.dev').attach(r.sink);
    for (let i = 0; i < 15; i += 1) {
      await runScheduled();
      state.now += 1_000;
    }
    expect(r.keepAlives).toEqual([]);
    await runScheduled();
    expect(r.keepAlives).toEqual([T0 + 15_000]);
    expect(hub.cursor).toBe(T0 + 15_000);
  });

  it('is ready after its first read, and says so when that read failed', async () => {
    const { hub, state } = fakes();
    hub.subscribe('a@newsletter.dev');
    state.failNext = true;
    const first = hub.ready();
    await hub.tick();
    await expect(first).rejects.toThrow('database down');
    const second = hub.ready();
    await hub.tick();
    await expect(second).resolves.toBeUndefined();
    await expect(hub.ready()).resolves.toBeUndefined();
  });

  it('resumes a Last-Event-ID within the window, else asks for a reload', async () => {
    const { hub, state, write } = fakes({ maxResumeChanges: 2 });
    write(1, { status: 'resolved' }, T0 - 60_000);
    write(2, { status: 'closed' }, T0 - 10_000);
    const resumed = await hub.resume(T0 - 12_000);
    expect(resumed).toEqual([expect.objectContaining({ type: 'ticket', ticketId: 2, readAt: T0 })]);
    expect(state.changedCalls.at(-1)).toEqual({ since: T0 - 17_000, limit: 3, ticketId: undefined });
    expect(await hub.resume(T0 - 12_000, 1)).toEqual([]);
    expect(await hub.resume(T0 - 301_000)).toEqual([{ type: 'reset', reason: 'resume_window_passed' }]);
    write(3, {}, T0 - 5_000);
    write(4, {}, T0 - 4_000);
    expect(await hub.resume(T0 - 12_000)).toEqual([{ type: 'reset', reason: 'too_many_changes' }]);
  });

  it('ends every stream and stops when the process stops', async () => {
    const { hub, pending } = fakes();
    hub.subscribe('a@newsletter.dev');
    hub.subscribe('b@newsletter.dev', 3);
    hub.close();
    expect(hub.size).toBe(0);
    expect(hub.isRunning).toBe(false);
    expect(pending()).toEqual([]);
  });
});

describe('presence', () => {
  function presenceFakes() {
    const entries = new Map<string, PresenceEntry>();
    let now = T0;
    const deps: PresenceDeps = {
      presence: {
        ticketExists: async (id) => id === 1842,
        presenceOn: async (ticketId, at) => [...entries.values()].filter((e) => e.ticketId === ticketId && e.expiresAt > at),
        putPresence: async (ticketId, email, state, expiresAt) => void entries.set(`${ticketId}:${email}`, { ticketId, email, state, expiresAt }),
        removePresence: async (ticketId, email) => void entries.delete(`${ticketId}:${email}`),
      },
      now: () => new Date(now),
      presenceTtlMs: 30_000,
    };
    return { deps, entries, advance: (ms: number) => (now += ms) };
  }

  it('keeps the caller on the ticket for the TTL per heartbeat, by e-mail in lower case', async () => {
    const { deps, entries, advance } = presenceFakes();
    expect(await announcePresence(deps, { sub: 'u1', email: 'Lucas@Newsletter.dev' }, 1842, 'viewing')).toEqual([{ email: 'lucas@newsletter.dev', state: 'viewing' }]);
    expect(entries.get('1842:lucas@newsletter.dev')!.expiresAt).toEqual(new Date(T0 + 30_000));
    expect(await announcePresence(deps, { sub: 'no-email' }, 1842, 'replying')).toEqual([
      { email: 'lucas@newsletter.dev', state: 'viewing' },
      { email: 'no-email', state: 'replying' },
    ]);
    advance(31_000);
    expect(await ticketPresence(deps, 1842)).toEqual([]);
  });

  it('takes the caller off the ticket, and 404s an unknown ticket', async () => {
    const { deps } = presenceFakes();
    await announcePresence(deps, { sub: 'u1', email: 'lucas@newsletter.dev' }, 1842, 'replying');
    await announcePresence(deps, { sub: 'u2', email: 'ana@newsletter.dev' }, 1842, 'viewing');
    expect(await leavePresence(deps, { sub: 'u2', email: 'ana@newsletter.dev' }, 1842)).toEqual([{ email: 'lucas@newsletter.dev', state: 'replying' }]);
    await expect(announcePresence(deps, { sub: 'u1', email: 'lucas@newsletter.dev' }, 9, 'viewing')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(ticketPresence(deps, 9)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('addMessage: a reply written while a newer message arrived', () => {
  const ticket = { _id: 1842, email: 'renata@example.com', status: 'in_progress', statusVersion: 2, createdAt: new Date(T0) } as TicketDoc;
  const msg = (id: number, remetente: string): MessageDoc => ({
    _id: id,
    ticketId: 1842,
    conteudo: `mensagem ${id}`,
    remetente,
    origem: remetente.endsWith('@newsletter.dev') ? 'admin' : 'usuario',
    dedupeKey: `msg:${id}`,
    createdAt: new Date(T0 + id * 1000),
    ticketCreatedAt: new Date(T0),
  });
  function ticketsFake(messages: MessageDoc[]) {
    const added: string[] = [];
    const repo = {
      findById: async () => ticket,
      messages: async () => messages,
      addMessage: async (_t: unknown, m: { conteudo: string; remetente: string }) => {
        added.push(m.conteudo);
        return { message: { ...msg(99, m.remetente), conteudo: m.conteudo }, added: true };
      },
    };
    return { deps: { tickets: repo as never }, added };
  }
  const mariana: Principal = { sub: 'agent-mariana', email: 'mariana@newsletter.dev', permissions: ['support.agent'] };

  it('refuses with 409 and the messages not seen, writing nothing', async () => {
    const { deps, added } = ticketsFake([msg(5127, 'mariana@newsletter.dev'), msg(5131, 'renata@example.com')]);
    const err = await addMessage(deps, mariana, 1842, 'Reenviamos.', undefined, { lastSeenMessageId: 5127 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONFLICT', details: { reason: 'newer_messages', newerCount: 1, lastMessageId: 5131, newer: [expect.objectContaining({ id: 5131, remetente: 'renata@example.com', origem: 'usuario' })] } });
    expect(added).toEqual([]);
  });

  it('sends with force, with the newest id seen, without the field, or when the newer messages are the author\'s own', async () => {
    const { deps, added } = ticketsFake([msg(5127, 'mariana@newsletter.dev'), msg(5131, 'renata@example.com'), msg(5140, 'mariana@newsletter.dev')]);
    await addMessage(deps, mariana, 1842, 'a', undefined, { lastSeenMessageId: 5127, force: true });
    await addMessage(deps, mariana, 1842, 'b', undefined, { lastSeenMessageId: 5131 });
    await addMessage(deps, mariana, 1842, 'c');
    expect(added).toEqual(['a', 'b', 'c']);
    // 0: only the description was seen, and the reader wrote since.
    await expect(addMessage(deps, mariana, 1842, 'd', undefined, { lastSeenMessageId: 0 })).rejects.toMatchObject({ code: 'CONFLICT', details: { newerCount: 1 } });
  });
});
