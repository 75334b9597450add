/**
 * Live updates of the support desk (issue 38): one hub per process fans the desk's changes out to
 * every open stream (GET /support/eventos), and presence says who is viewing or replying to which
 * ticket (PUT/DELETE/GET /support/:id/presenca).
 *
 * The tickets are the event log: every change of a ticket sets its `updatedAt`. While at least one
 * stream is open, the hub reads the tickets changed since its last read (minus a lookback, for the
 * clocks of other processes and writes committed late) and the unexpired presence, once per
 * interval, whatever the number of streams; it passes each change on once (deduplicated by ticket
 * and updatedAt) and each presence set when it changed. With the last stream it stops reading.
 */
import { LRUCache } from 'lru-cache';
import type { Principal } from '../../models/auth/token.rules';
import { AppError, notFound } from '../../models/errors';
import {
  eventIdOf,
  peopleOf,
  presenceKey,
  type LiveEvent,
  type PresenceEntry,
  type PresencePerson,
  type PresenceState,
  type ResetReason,
  type TicketChange,
} from '../../models/support/live.rules';

export interface LiveSettings {
  /** How often the hub reads while streams are open. */
  pollMs: number;
  /** How far before its last read each read looks again (other processes' clocks, late commits). */
  lookbackMs: number;
  /** How often an idle stream gets a comment (proxies close silent connections). */
  keepAliveMs: number;
  /** Streams one process serves at most, and one caller holds at most. */
  maxStreams: number;
  maxStreamsPerCaller: number;
  /** How old a Last-Event-ID may be and still be resumed from (older: `reset`). */
  resumeWindowMs: number;
  /** The most changes one read passes on: more at once (a bulk operation) is a `reset` for everyone. */
  maxChangesPerRead: number;
  /** The most changes a resuming stream is sent again: more is a `reset`. */
  maxResumeChanges: number;
  /** The most presence entries one read takes. */
  maxPresenceEntries: number;
}

export const LIVE_DEFAULTS: Omit<LiveSettings, 'pollMs' | 'lookbackMs' | 'keepAliveMs' | 'maxStreams' | 'maxStreamsPerCaller' | 'resumeWindowMs'> = {
  maxChangesPerRead: 500,
  maxResumeChanges: 500,
  maxPresenceEntries: 5_000,
};

/** What the hub reads, and its clock. */
export interface LivePorts {
  changedSince(since: Date, options: { limit: number; ticketId?: number | undefined }): Promise<TicketChange[]>;
  activePresence(now: Date, limit: number): Promise<PresenceEntry[]>;
  now(): Date;
  /** Runs `fn` after `ms`; returns what cancels it (default: an unref'd setTimeout). */
  schedule?: (fn: () => void, ms: number) => () => void;
  /** A read that failed (the hub tries again at the next interval). */
  onError?: (err: unknown) => void;
}

/** Where a stream's events go (the route writes them as Server-Sent Events). */
export interface StreamSink {
  deliver(event: LiveEvent): void;
  /**
   * Nothing happened for a while: say so (proxies close silent connections). `cursor`: every
   * change after it (minus the lookback) is still to come, so a client may resume from it.
   */
  keepAlive(cursor: number): void;
}

/** One open stream. Events are held until `attach`, then delivered as they come. */
export interface Subscription {
  readonly caller: string;
  readonly ticketId: number | undefined;
  attach(sink: StreamSink): void;
  close(): void;
}

/** A stream's events waiting for it to attach, at most this many (then one `reset` stands for them). */
const HELD_MAX = 1_000;

const reset = (reason: ResetReason): LiveEvent => ({ type: 'reset', reason });

class Stream implements Subscription {
  private held: LiveEvent[] = [];
  private sink: StreamSink | undefined;
  closed = false;

  constructor(
    readonly caller: string,
    readonly ticketId: number | undefined,
    private readonly leave: (s: Stream) => void,
  ) {}

  wants(event: LiveEvent): boolean {
    return this.ticketId === undefined || event.type === 'reset' || event.ticketId === this.ticketId;
  }

  deliver(event: LiveEvent): void {
    if (this.closed || !this.wants(event)) return;
    if (this.sink) return this.sink.deliver(event);
    this.held.push(event);
    if (this.held.length > HELD_MAX) this.held = [reset('stream_overflow')];
  }

  keepAlive(cursor: number): void {
    if (!this.closed) this.sink?.keepAlive(cursor);
  }

  attach(sink: StreamSink): void {
    if (this.closed || this.sink) return;
    this.sink = sink;
    const held = this.held;
    this.held = [];
    for (const event of held) sink.deliver(event);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.held = [];
    this.sink = undefined;
    this.leave(this);
  }
}

const defaultSchedule = (fn: () => void, ms: number) => {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

export class LiveHub {
  private readonly streams = new Set<Stream>();
  private readonly perCaller = new Map<string, number>();
  /** Changes passed on lately, by `<ticketId>:<updatedAt ms>`: the lookback reads them again. */
  private readonly seen = new LRUCache<string, true>({ max: 50_000 });
  /** Each ticket's presence as last read, with its comparable key. */
  private presence = new Map<number, { key: string; people: PresencePerson[] }>();
  private readonly schedule: NonNullable<LivePorts['schedule']>;
  private cancel: (() => void) | undefined;
  /** Bumped at each start and stop: a read that finishes after a stop is dropped. */
  private generation = 0;
  private running = false;
  /** When the last successful read began (ms); the next reads from there minus the lookback. */
  private readFrom = 0;
  /** Nothing before this is read again (after a `reset` for too many changes). */
  private floor = 0;
  private lastKeepAlive = 0;
  private ticked = false;
  private waiting: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  /** Reads made, for tests and the benchmark. */
  reads = 0;

  constructor(
    private readonly ports: LivePorts,
    readonly settings: LiveSettings,
  ) {
    this.schedule = ports.schedule ?? defaultSchedule;
  }

  /** Open streams now. */
  get size(): number {
    return this.streams.size;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /**
   * When the last successful read began: every change after it (minus the lookback) reaches the
   * open streams by the next reads, so a stream opened now may later resume from it.
   */
  get cursor(): number {
    return this.readFrom;
  }

  /**
   * Opens a stream for `caller` (all tickets, or one). 429 past the process's cap or the caller's:
   * nothing is held for a refused stream.
   */
  subscribe(caller: string, ticketId?: number): Subscription {
    const { maxStreams, maxStreamsPerCaller } = this.settings;
    if (this.streams.size >= maxStreams) {
      throw new AppError('RATE_LIMITED', `This server has the most live streams it serves open (${maxStreams}): retry in a few seconds`, { headers: { 'Retry-After': '5' } });
    }
    const mine = this.perCaller.get(caller) ?? 0;
    if (mine >= maxStreamsPerCaller) {
      throw new AppError('RATE_LIMITED', `You have ${mine} live streams open, the most one person may (${maxStreamsPerCaller}): close one (a tab) first`, {
        headers: { 'Retry-After': '30' },
      });
    }
    const stream = new Stream(caller, ticketId, (s) => this.leave(s));
    this.streams.add(stream);
    this.perCaller.set(caller, mine + 1);
    if (!this.running) this.start();
    return stream;
  }

  /** Resolves once a read has completed since the hub started (rejects if that read fails). */
  ready(): Promise<void> {
    if (this.ticked) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** The presence the hub holds: one ticket's (possibly empty), or every ticket someone is on. */
  presenceSnapshot(ticketId?: number): LiveEvent[] {
    if (ticketId !== undefined) return [{ type: 'presence', ticketId, people: this.presence.get(ticketId)?.people ?? [] }];
    return [...this.presence].map(([id, p]) => ({ type: 'presence', ticketId: id, people: p.people }));
  }

  /**
   * What a stream reconnecting with Last-Event-ID `cursor` missed: the tickets changed since then
   * (minus the lookback; some may come again, which is harmless), or a `reset` when the cursor is
   * older than the resume window or too many tickets changed.
   */
  async resume(cursor: number, ticketId?: number): Promise<LiveEvent[]> {
    const { resumeWindowMs, lookbackMs, maxResumeChanges } = this.settings;
    if (this.ports.now().getTime() - cursor > resumeWindowMs) return [reset('resume_window_passed')];
    const readAt = this.ports.now().getTime();
    const changes = await this.ports.changedSince(new Date(cursor - lookbackMs), { limit: maxResumeChanges + 1, ticketId });
    if (changes.length > maxResumeChanges) return [reset('too_many_changes')];
    return changes.map((change) => ({ type: 'ticket', ticketId: change.id, change, readAt }));
  }

  /** Ends every stream and stops reading (the process is stopping). */
  close(): void {
    for (const s of [...this.streams]) s.close();
    this.stop();
  }

  /** One read and its fan-out. The loop calls it every `pollMs`; tests call it directly. */
  async tick(): Promise<void> {
    const generation = this.generation;
    const { lookbackMs, maxChangesPerRead, maxPresenceEntries } = this.settings;
    const started = this.ports.now().getTime();
    const since = new Date(Math.max(this.floor, this.readFrom - lookbackMs));
    let changes: TicketChange[];
    let entries: PresenceEntry[];
    this.reads += 1;
    try {
      [changes, entries] = await Promise.all([
        this.ports.changedSince(since, { limit: maxChangesPerRead }),
        this.ports.activePresence(new Date(started), maxPresenceEntries),
      ]);
    } catch (err) {
      if (generation !== this.generation) return;
      this.ports.onError?.(err);
      if (!this.ticked) this.settle(err);
      return;
    }
    if (generation !== this.generation) return;
    this.readFrom = started;
    const events: LiveEvent[] = [];
    if (changes.length >= maxChangesPerRead) {
      // More at once than is worth passing on one by one: everyone reloads, and nothing before
      // this read is read again.
      for (const c of changes) this.seen.set(`${c.id}:${eventIdOf(c)}`, true);
      this.floor = started;
      events.push(reset('too_many_changes'));
    } else {
      for (const change of changes) {
        const key = `${change.id}:${eventIdOf(change)}`;
        if (this.seen.has(key)) continue;
        this.seen.set(key, true);
        events.push({ type: 'ticket', ticketId: change.id, change, readAt: started });
      }
    }
    // The first read after a start only learns who is where: every stream opening now gets it
    // from presenceSnapshot after ready(), so passing it on too would send it twice.
    const presence = this.presenceChanges(entries);
    if (this.ticked) events.push(...presence);
    for (const event of events) for (const s of this.streams) s.deliver(event);
    if (!this.ticked) {
      this.ticked = true;
      this.settle();
    }
  }

  private presenceChanges(entries: readonly PresenceEntry[]): LiveEvent[] {
    const byTicket = new Map<number, PresenceEntry[]>();
    for (const e of entries) byTicket.set(e.ticketId, [...(byTicket.get(e.ticketId) ?? []), e]);
    const next = new Map<number, { key: string; people: PresencePerson[] }>();
    for (const [ticketId, list] of byTicket) {
      const people = peopleOf(list);
      next.set(ticketId, { key: presenceKey(people), people });
    }
    const events: LiveEvent[] = [];
    for (const [ticketId, now] of next) {
      if (this.presence.get(ticketId)?.key !== now.key) events.push({ type: 'presence', ticketId, people: now.people });
    }
    for (const ticketId of this.presence.keys()) if (!next.has(ticketId)) events.push({ type: 'presence', ticketId, people: [] });
    this.presence = next;
    return events;
  }

  private settle(err?: unknown): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) {
      if (err === undefined) w.resolve();
      else w.reject(err);
    }
  }

  private start(): void {
    this.generation += 1;
    this.running = true;
    const now = this.ports.now().getTime();
    this.readFrom = now;
    this.floor = 0;
    this.lastKeepAlive = now;
    this.ticked = false;
    const generation = this.generation;
    const loop = async () => {
      this.cancel = undefined;
      await this.tick();
      if (generation !== this.generation) return;
      this.keepAlives();
      this.cancel = this.schedule(() => void loop(), this.settings.pollMs);
    };
    this.cancel = this.schedule(() => void loop(), 0);
  }

  private stop(): void {
    this.generation += 1;
    this.running = false;
    this.cancel?.();
    this.cancel = undefined;
    this.presence = new Map();
    this.seen.clear();
    this.ticked = false;
    this.settle(new AppError('DEPENDENCY_UNAVAILABLE', 'The live updates stopped'));
  }

  private keepAlives(): void {
    const now = this.ports.now().getTime();
    if (now - this.lastKeepAlive < this.settings.keepAliveMs) return;
    this.lastKeepAlive = now;
    for (const s of this.streams) s.keepAlive(this.readFrom);
  }

  private leave(stream: Stream): void {
    if (!this.streams.delete(stream)) return;
    const n = (this.perCaller.get(stream.caller) ?? 1) - 1;
    if (n <= 0) this.perCaller.delete(stream.caller);
    else this.perCaller.set(stream.caller, n);
    if (this.streams.size === 0) this.stop();
  }
}

// ---- Presence ---------------------------------------------------------------------------------

export interface PresenceDeps {
  presence: {
    ticketExists(ticketId: number): Promise<boolean>;
    presenceOn(ticketId: number, now: Date): Promise<PresenceEntry[]>;
    putPresence(ticketId: number, email: string, state: PresenceState, expiresAt: Date): Promise<void>;
    removePresence(ticketId: number, email: string): Promise<void>;
  };
  now: () => Date;
  /** How long a heartbeat keeps someone on a ticket. */
  presenceTtlMs: number;
}

/** Who a staff member is on a ticket: their e-mail (a token without one: its subject), in lower case. */
export const personOf = (principal: Pick<Principal, 'email' | 'sub'>): string => (principal.email ?? principal.sub).toLowerCase();

/** Who is on a ticket now (404 if there is no such ticket). */
export async function ticketPresence(deps: PresenceDeps, ticketId: number): Promise<PresencePerson[]> {
  if (!(await deps.presence.ticketExists(ticketId))) notFound('ticket');
  return peopleOf(await deps.presence.presenceOn(ticketId, deps.now()));
}

/** The caller is on the ticket (viewing or replying) for the next presenceTtlMs; answers who is on it now. */
export async function announcePresence(deps: PresenceDeps, principal: Pick<Principal, 'email' | 'sub'>, ticketId: number, state: PresenceState): Promise<PresencePerson[]> {
  if (!(await deps.presence.ticketExists(ticketId))) notFound('ticket');
  const now = deps.now();
  await deps.presence.putPresence(ticketId, personOf(principal), state, new Date(now.getTime() + deps.presenceTtlMs));
  return peopleOf(await deps.presence.presenceOn(ticketId, now));
}

/** The caller left the ticket; answers who is on it now. */
export async function leavePresence(deps: PresenceDeps, principal: Pick<Principal, 'email' | 'sub'>, ticketId: number): Promise<PresencePerson[]> {
  if (!(await deps.presence.ticketExists(ticketId))) notFound('ticket');
  await deps.presence.removePresence(ticketId, personOf(principal));
  return peopleOf(await deps.presence.presenceOn(ticketId, deps.now()));
}

/** A stream's ticket filter must name a ticket (404 otherwise). */
export async function requireTicket(deps: Pick<PresenceDeps, 'presence'>, ticketId: number | undefined): Promise<void> {
  if (ticketId !== undefined && !(await deps.presence.ticketExists(ticketId))) notFound('ticket');
}
