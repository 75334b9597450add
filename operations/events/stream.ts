/**
 * The news event stream's fan-out (GET /api/stream, issue 40): one NewsEventHub per API process.
 *
 * While at least one stream is open the hub reads the event log after its watermark
 * (event.rules.ts watermark) every `pollMs`, the next read scheduled when the last one ends,
 * whatever the number of streams; events above the watermark go out at once (a seen-set keeps
 * them from going out twice while a hole below them is waited for). Each event is serialised once
 * per set of include modules and written to every stream whose filter it matches. With the last
 * stream the hub stops reading.
 *
 * A stream's `id:` is the watermark after the event (never the event's own seq above a hole): a
 * client resuming from it (Last-Event-ID) is sent every matching event after it again, so it may
 * get one twice (clients deduplicate by `seq`) and never misses one unless a writer stalled longer
 * than the gap wait. An id older than the history (24 h), or one after which more than
 * `resumeMax` matching events would be resent, gets a `reset` instead.
 */
import { AppError } from '../../models/errors';
import { EVENT_HISTORY_MS, eventMatches, modulesKey, presentEvent, watermark, type EventFilter, type NewsEvent } from '../../models/events/event.rules';
import type { IncludeModule } from '../../models/shared/plan.rules';

export interface NewsStreamSettings {
  /** How often the hub reads the log while streams are open (NEWS_STREAM_POLL_MS). */
  pollMs: number;
  /** How long a hole in the sequence is waited for (event.rules GAP_WAIT_MS). */
  gapWaitMs: number;
  /** How often every stream gets a keep-alive comment (proxies close silent connections). */
  keepAliveMs: number;
  /** How far back a Last-Event-ID may be resumed from (24 h). */
  historyMs: number;
  /** The most matching events a resume sends again; more is a `reset`. */
  resumeMax: number;
  /** Events one read takes. */
  readLimit: number;
  /** Streams this process serves at most (429 past it). */
  maxStreams: number;
  /** Bytes a stream may leave unsent before it is ended as too slow (it reconnects and resumes). */
  maxBufferedBytes: number;
}

export const NEWS_STREAM_DEFAULTS: Omit<NewsStreamSettings, 'pollMs' | 'keepAliveMs' | 'resumeMax' | 'maxStreams'> = {
  gapWaitMs: 5_000,
  historyMs: EVENT_HISTORY_MS,
  readLimit: 500,
  maxBufferedBytes: 1024 * 1024,
};

/** What the hub reads (event-log.repo.ts), and its clock. */
export interface NewsEventPorts {
  readAfter(seq: number, limit: number, since?: Date): Promise<NewsEvent[]>;
  newest(): Promise<number>;
  atOrBefore(seq: number): Promise<Pick<NewsEvent, '_id' | 'at'> | null>;
  now(): Date;
  /** Runs `fn` after `ms`; returns what cancels it (default: an unref'd setTimeout). */
  schedule?: (fn: () => void, ms: number) => () => void;
  /** A read that failed (the hub tries again at the next interval). */
  onError?: (err: unknown) => void;
}

/** Why a stream is told to start over. */
export type NewsResetReason = 'history_window_passed' | 'too_many_events' | 'stream_overflow';

/** Where a stream's frames go (the route writes them to the response). */
export interface NewsStreamSink {
  /** Writes Server-Sent Events text. */
  write(text: string): void;
  /** Bytes written and not yet sent: past the cap, the stream is ended. */
  buffered(): number;
  /** A keep-alive was written (the route renews its lease). */
  keptAlive?(): void;
  /** The hub ended the stream (too slow, or the hub closed). */
  ended(): void;
}

export interface NewsStreamRequest {
  filter: EventFilter;
  modules: readonly IncludeModule[];
  /** Last-Event-ID, when the client resumes. */
  lastEventId?: number | undefined;
}

/** One open stream: frames are held until `attach`. */
export interface NewsSubscription {
  /** The id the stream opens with (its cursor). */
  readonly cursor: number;
  /** Starts writing: `opening` (what `open` answered) first, then the events held meanwhile. */
  attach(sink: NewsStreamSink, opening?: readonly string[]): void;
  close(): void;
}

/** Frames a stream may hold before it attaches (then a `reset` stands for them). */
const HELD_MAX = 1_000;

/** The SSE text of a reset. */
export const resetFrame = (reason: NewsResetReason, id: number): string => `id: ${id}\nevent: reset\ndata: ${JSON.stringify({ reason })}\n\n`;
/** A keep-alive: a comment, and the cursor (an id alone dispatches no event; it moves Last-Event-ID on). */
export const keepAliveFrame = (id: number): string => `: keep-alive\nid: ${id}\n\n`;

/** An event ready to go out, its frame serialised once per module set. */
class Outgoing {
  private readonly frames = new Map<string, string>();
  constructor(
    readonly event: NewsEvent,
    readonly id: number,
  ) {}

  frameFor(key: string, modules: readonly IncludeModule[]): string {
    let text = this.frames.get(key);
    if (text === undefined) {
      text = `id: ${this.id}\nevent: ${this.event.type}\ndata: ${JSON.stringify(presentEvent(this.event, modules))}\n\n`;
      this.frames.set(key, text);
    }
    return text;
  }
}

class Stream implements NewsSubscription {
  /** Frames waiting for `attach`, with the seq of the event each carries. */
  private held: { seq: number | undefined; text: string }[] = [];
  private sink: NewsStreamSink | undefined;
  private readonly key: string;
  /** Seqs the opening (a resume) sent: the same events from the live reads are not sent again. */
  readonly resent = new Set<number>();
  closed = false;

  constructor(
    readonly filter: EventFilter,
    readonly modules: readonly IncludeModule[],
    public cursor: number,
    /** Unsent bytes past which the stream is ended as too slow. */
    private readonly maxBuffered: number,
    private readonly leave: (s: Stream) => void,
  ) {
    this.key = modulesKey(modules);
  }

  deliver(out: Outgoing): void {
    if (this.closed || out.event._id <= this.cursor || this.resent.has(out.event._id) || !eventMatches(out.event, this.filter)) return;
    this.push(out.frameFor(this.key, this.modules), out.event._id);
  }

  frameOf(event: NewsEvent, id: number): string {
    return new Outgoing(event, id).frameFor(this.key, this.modules);
  }

  push(text: string, seq?: number): void {
    if (this.closed) return;
    if (!this.sink) {
      this.held.push({ seq, text });
      if (this.held.length > HELD_MAX) this.held = [{ seq: undefined, text: resetFrame('stream_overflow', this.cursor) }];
      return;
    }
    if (this.sink.buffered() > this.maxBuffered) return this.end();
    this.sink.write(text);
  }

  keepAlive(id: number): void {
    if (this.closed || !this.sink) return;
    this.push(keepAliveFrame(id));
    this.sink?.keptAlive?.();
  }

  /**
   * Starts writing to `sink`: the opening frames first (a resume's), then those held meanwhile
   * but for the events the opening sent already.
   */
  attach(sink: NewsStreamSink, opening: readonly string[] = []): void {
    if (this.closed || this.sink) return;
    this.sink = sink;
    const held = this.held;
    this.held = [];
    for (const text of opening) this.push(text);
    for (const h of held) if (h.seq === undefined || !this.resent.has(h.seq)) this.push(h.text);
  }

  /** Ended by the hub: the route closes the response. */
  end(): void {
    const sink = this.sink;
    this.close();
    sink?.ended();
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

export class NewsEventHub {
  private readonly streams = new Set<Stream>();
  private readonly schedule: NonNullable<NewsEventPorts['schedule']>;
  private cancel: (() => void) | undefined;
  /** Bumped at each start and stop: a read that finishes after a stop is dropped. */
  private generation = 0;
  private running = false;
  private ticked = false;
  private mark = 0;
  /** Seqs above the watermark already passed on, with when each was first read (ms). */
  private readonly seen = new Map<number, number>();
  private lastKeepAlive = 0;
  private waiting: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  /** Reads made, for tests and the benchmark. */
  reads = 0;

  constructor(
    private readonly ports: NewsEventPorts,
    readonly settings: NewsStreamSettings,
  ) {
    this.schedule = ports.schedule ?? defaultSchedule;
  }

  get size(): number {
    return this.streams.size;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** The watermark: every event at or below it has reached the open streams (holes passed after the gap wait). */
  get watermark(): number {
    return this.mark;
  }

  /** Resolves once a read has completed since the hub started (rejects if that read fails). */
  ready(): Promise<void> {
    if (this.ticked) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /**
   * Opens a stream: 429 past the process's cap. The hub starts reading if it was not; call
   * `ready()` then `open()` before `attach` (the route does: `openStream`).
   */
  subscribe(request: NewsStreamRequest): Stream {
    if (this.streams.size >= this.settings.maxStreams) {
      throw new AppError('RATE_LIMITED', `This server has the most event streams it serves open (${this.settings.maxStreams}): retry in a few seconds`, { headers: { 'Retry-After': '5' } });
    }
    const stream = new Stream(request.filter, request.modules, this.mark, this.settings.maxBufferedBytes, (s) => this.leave(s));
    this.streams.add(stream);
    if (!this.running) this.start();
    return stream;
  }

  /**
   * Opens a stream once the hub has read, with what a resuming client missed: every matching
   * event after its Last-Event-ID (a `reset` if that is older than the history or too many would
   * be resent). Answers the subscription (frames held until `attach`) and its opening frames.
   */
  async open(request: NewsStreamRequest): Promise<{ subscription: NewsSubscription; opening: string[] }> {
    const stream = this.subscribe(request);
    try {
      await this.ready();
      stream.cursor = this.mark;
      const opening = request.lastEventId === undefined ? [] : await this.resume(stream, request.lastEventId);
      return { subscription: stream, opening };
    } catch (err) {
      stream.close();
      throw err;
    }
  }

  private async resume(stream: Stream, last: number): Promise<string[]> {
    const now = this.ports.now().getTime();
    const since = new Date(now - this.settings.historyMs);
    const mark = this.mark;
    // The client was further on (another process's watermark was ahead of ours): nothing to resend,
    // and nothing up to its id is sent to it.
    if (last >= mark) {
      stream.cursor = last;
      return [];
    }
    const anchor = await this.ports.atOrBefore(last);
    if (anchor ? anchor.at.getTime() <= since.getTime() : !(await this.followsAtOnce(last, since))) return [resetFrame('history_window_passed', mark)];
    const frames: string[] = [];
    const seqs: number[] = [];
    const pageSize = this.settings.readLimit;
    const scanMax = Math.max(50 * this.settings.resumeMax, 10 * pageSize);
    let from = last;
    for (let scanned = 0; scanned < scanMax; ) {
      const page = await this.ports.readAfter(from, pageSize, since);
      for (const event of page) {
        if (!eventMatches(event, stream.filter)) continue;
        seqs.push(event._id);
        stream.resent.add(event._id);
        if (seqs.length > this.settings.resumeMax) {
          stream.cursor = mark;
          return [resetFrame('too_many_events', mark)];
        }
        // Above the watermark an event's id is the watermark (a hole below it may still fill).
        frames.push(stream.frameOf(event, Math.max(last, Math.min(event._id, mark))));
      }
      scanned += page.length;
      if (page.length < pageSize) {
        stream.cursor = last;
        return frames;
      }
      from = page[page.length - 1]!._id;
    }
    stream.cursor = mark;
    return [resetFrame('too_many_events', mark)];
  }

  /**
   * No event at or below `last` is left: the id is still good if the log's first event comes
   * right after it (a client that saw the log empty, or the first event only), within the history.
   */
  private async followsAtOnce(last: number, since: Date): Promise<boolean> {
    const [first] = await this.ports.readAfter(last, 1);
    return first !== undefined && first._id === last + 1 && first.at.getTime() > since.getTime();
  }

  /** Ends every stream and stops reading (the process is stopping). */
  close(): void {
    for (const s of [...this.streams]) s.end();
    this.stop();
  }

  /** One read and its fan-out. The loop calls it every `pollMs`; tests call it directly. */
  async tick(): Promise<void> {
    const generation = this.generation;
    this.reads += 1;
    let events: NewsEvent[];
    try {
      if (!this.ticked) {
        // Streams opened now start at the end of the log.
        const newest = await this.ports.newest();
        if (generation !== this.generation) return;
        this.mark = newest;
        this.seen.clear();
      }
      events = await this.ports.readAfter(this.mark, this.settings.readLimit);
    } catch (err) {
      if (generation !== this.generation) return;
      this.ports.onError?.(err);
      if (!this.ticked) this.settle(err);
      return;
    }
    if (generation !== this.generation) return;
    const now = this.ports.now().getTime();
    const fresh = events.filter((e) => e._id > this.mark && !this.seen.has(e._id));
    for (const e of fresh) this.seen.set(e._id, now);
    const mark = watermark(this.mark, this.seen, now, this.settings.gapWaitMs);
    for (const s of [...this.seen.keys()]) if (s <= mark) this.seen.delete(s);
    this.mark = mark;
    for (const e of fresh.sort((a, b) => a._id - b._id)) {
      const out = new Outgoing(e, mark);
      for (const s of [...this.streams]) s.deliver(out);
    }
    if (!this.ticked) {
      this.ticked = true;
      this.settle();
    }
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
    this.ticked = false;
    this.lastKeepAlive = this.ports.now().getTime();
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
    this.seen.clear();
    this.ticked = false;
    this.settle(new AppError('DEPENDENCY_UNAVAILABLE', 'The event stream stopped'));
  }

  /** Every keepAliveMs: a comment with the watermark to every stream. Tests call it directly. */
  keepAlives(force = false): void {
    const now = this.ports.now().getTime();
    if (!force && now - this.lastKeepAlive < this.settings.keepAliveMs) return;
    this.lastKeepAlive = now;
    for (const s of [...this.streams]) s.keepAlive(Math.max(s.cursor, this.mark));
  }

  private leave(stream: Stream): void {
    if (!this.streams.delete(stream)) return;
    if (this.streams.size === 0) this.stop();
  }
}
