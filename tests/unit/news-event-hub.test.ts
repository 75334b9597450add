/**
 * The news event stream's hub (operations/events/stream.ts) over a fake log: fan-out by filter and
 * plan, holes and late inserts, resume from Last-Event-ID, resets, slow clients. The tests drive
 * the reads (tick) and the clock themselves.
 */
import { eventOf, type EventFilter, type NewsEvent } from '../../models/events/event.rules';
import type { IncludeModule } from '../../models/shared/plan.rules';
import { NEWS_STREAM_DEFAULTS, NewsEventHub, type NewsStreamSettings, type NewsStreamSink } from '../../operations/events/stream';
import { eventArticle } from '../helpers/events';

const HOUR = 3_600_000;
let clock: number;
let log: NewsEvent[];
let failing: boolean;

const settings: NewsStreamSettings = { ...NEWS_STREAM_DEFAULTS, pollMs: 250, keepAliveMs: 15_000, resumeMax: 5, maxStreams: 10, readLimit: 3, maxBufferedBytes: 10_000 };

function hubOf(over: Partial<NewsStreamSettings> = {}): NewsEventHub {
  return new NewsEventHub(
    {
      readAfter: async (seq, limit, since) =>
        log
          .filter((e) => e._id > seq && (!since || e.at > since))
          .sort((a, b) => a._id - b._id)
          .slice(0, limit),
      newest: async () => {
        if (failing) throw new Error('database down');
        return Math.max(0, ...log.map((e) => e._id));
      },
      atOrBefore: async (seq) => log.filter((e) => e._id <= seq).sort((a, b) => b._id - a._id)[0] ?? null,
      now: () => new Date(clock),
      schedule: () => () => undefined,
    },
    { ...settings, ...over },
  );
}

/** Appends the event numbered `seq` (appended `agoMs` before the clock). */
function append(seq: number, over: Parameters<typeof eventArticle>[0] = {}, agoMs = 0): NewsEvent {
  const at = new Date(clock - agoMs);
  const event = { _id: seq, ...eventOf(eventArticle(over, at), at) };
  log.push(event);
  return event;
}

interface Frame {
  event: string;
  id: number | undefined;
  data: any;
}

class Sink implements NewsStreamSink {
  text = '';
  backlog = 0;
  endedCount = 0;
  keptAliveCount = 0;
  write(text: string): void {
    this.text += text;
  }
  buffered(): number {
    return this.backlog;
  }
  keptAlive(): void {
    this.keptAliveCount += 1;
  }
  ended(): void {
    this.endedCount += 1;
  }
  get frames(): Frame[] {
    return this.text
      .split('\n\n')
      .filter(Boolean)
      .map((block) => {
        const f: Frame = { event: 'comment', id: undefined, data: undefined };
        for (const line of block.split('\n')) {
          const [field, ...rest] = line.split(': ');
          const value = rest.join(': ');
          if (field === 'id') f.id = Number(value);
          if (field === 'event') f.event = value;
          if (field === 'data') f.data = JSON.parse(value);
        }
        return f;
      });
  }
  get seqs(): number[] {
    return this.frames.filter((f) => f.event.startsWith('article.')).map((f) => f.data.seq);
  }
}

const all: EventFilter = { breakingOnly: false };

/** Opens a stream (the first read made), attached to a new sink. */
async function openOn(hub: NewsEventHub, filter: EventFilter = all, modules: IncludeModule[] = [], lastEventId?: number) {
  const opened = hub.open({ filter, modules, lastEventId });
  await hub.tick();
  const { subscription, opening } = await opened;
  const sink = new Sink();
  subscription.attach(sink, opening);
  return { subscription, sink };
}

beforeEach(() => {
  clock = Date.parse('2026-11-26T12:00:00Z');
  log = [];
  failing = false;
});

describe('fan-out', () => {
  it('starts at the end of the log and sends each new event once, to the streams it matches', async () => {
    append(1);
    append(2);
    const hub = hubOf();
    const everything = await openOn(hub);
    const energy = await openOn(hub, { sectors: ['ENE'], breakingOnly: false });
    const breaking = await openOn(hub, { breakingOnly: true });
    append(3, { primarySector: 'ENE' });
    append(4, { primarySector: 'FIN', isBreaking: true });
    await hub.tick();
    await hub.tick();
    expect(everything.sink.seqs).toEqual([3, 4]);
    expect(energy.sink.seqs).toEqual([3]);
    expect(breaking.sink.seqs).toEqual([4]);
    expect(breaking.sink.frames.find((f) => f.data?.seq === 4)).toMatchObject({ event: 'article.breaking', id: 4, data: { type: 'article.breaking', article: { isBreaking: true } } });
    expect(everything.sink.frames.find((f) => f.data?.seq === 3)).toMatchObject({ event: 'article.published', id: 4 });
  });

  it('shows the include modules each stream asked for, serialising each event once per module set', async () => {
    const hub = hubOf();
    const plain = await openOn(hub);
    const pro = await openOn(hub, all, ['sentiment', 'scoring']);
    const proAgain = await openOn(hub, all, ['scoring', 'sentiment']);
    append(1);
    const stringify = jest.spyOn(JSON, 'stringify');
    await hub.tick();
    const dataCalls = stringify.mock.calls.filter(([v]) => (v as { seq?: number } | null)?.seq === 1).length;
    stringify.mockRestore();
    expect(dataCalls).toBe(2);
    expect(plain.sink.frames[0]!.data.article).not.toHaveProperty('sentimentScore');
    expect(pro.sink.frames[0]!.data.article).toMatchObject({ sentimentScore: 0.5, scoring: { overall: 60 } });
    expect(proAgain.sink.text).toBe(pro.sink.text);
  });

  it('holds events until the stream attaches, and stands a reset for too many', async () => {
    const hub = hubOf();
    const opened = hub.open({ filter: all, modules: [] });
    await hub.tick();
    const { subscription } = await opened;
    append(1);
    await hub.tick();
    const sink = new Sink();
    subscription.attach(sink);
    expect(sink.seqs).toEqual([1]);

    const second = hub.subscribe({ filter: all, modules: [] });
    for (let i = 2; i <= 1_002; i++) append(i);
    for (let i = 0; i < 400 && hub.watermark < 1_002; i++) await hub.tick();
    const late = new Sink();
    second.attach(late);
    expect(late.frames).toEqual([expect.objectContaining({ event: 'reset', data: { reason: 'stream_overflow' } })]);
  });

  it('reads only while streams are open, and stops with the last', async () => {
    const hub = hubOf();
    expect(hub.isRunning).toBe(false);
    const a = await openOn(hub);
    const b = await openOn(hub);
    expect(hub.isRunning).toBe(true);
    a.subscription.close();
    expect(hub.isRunning).toBe(true);
    b.subscription.close();
    expect(hub.isRunning).toBe(false);
    expect(hub.size).toBe(0);
  });

  it('refuses a stream past the process cap (429)', async () => {
    const hub = hubOf({ maxStreams: 1 });
    await openOn(hub);
    expect(() => hub.subscribe({ filter: all, modules: [] })).toThrow(expect.objectContaining({ code: 'RATE_LIMITED' }));
  });

  it('fails the opening when the first read fails, and holds no stream', async () => {
    const hub = hubOf();
    failing = true;
    const opened = hub.open({ filter: all, modules: [] });
    await hub.tick();
    await expect(opened).rejects.toThrow('database down');
    expect(hub.size).toBe(0);
  });
});

describe('holes in the sequence', () => {
  it('sends events above a hole at once with the watermark as id, a late insert when it comes, and each once', async () => {
    const hub = hubOf();
    const { sink } = await openOn(hub);
    append(1);
    append(3);
    await hub.tick();
    expect(sink.seqs).toEqual([1, 3]);
    expect(sink.frames.map((f) => f.id)).toEqual([1, 1]);
    expect(hub.watermark).toBe(1);
    await hub.tick(); // 3 is read again (above the watermark): not sent twice
    expect(sink.seqs).toEqual([1, 3]);
    append(2); // committed late
    clock += 100;
    await hub.tick();
    expect(sink.seqs).toEqual([1, 3, 2]);
    expect(hub.watermark).toBe(3);
    expect(sink.frames.at(-1)!.id).toBe(3);
  });

  it('passes a hole never filled (a wasted seq) after the gap wait', async () => {
    const hub = hubOf();
    const { sink } = await openOn(hub);
    append(2);
    await hub.tick();
    expect(hub.watermark).toBe(0);
    clock += settings.gapWaitMs - 1;
    await hub.tick();
    expect(hub.watermark).toBe(0);
    clock += 1;
    await hub.tick();
    expect(hub.watermark).toBe(2);
    append(3);
    await hub.tick();
    expect(sink.seqs).toEqual([2, 3]);
    expect(hub.watermark).toBe(3);
  });

  it('keeps streams alive with the watermark as id, and lets the route renew its lease', async () => {
    const hub = hubOf();
    const { sink } = await openOn(hub);
    append(1);
    await hub.tick();
    hub.keepAlives();
    expect(sink.keptAliveCount).toBe(0);
    clock += settings.keepAliveMs;
    hub.keepAlives();
    expect(sink.keptAliveCount).toBe(1);
    expect(sink.text.endsWith(': keep-alive\nid: 1\n\n')).toBe(true);
  });
});

describe('resume from Last-Event-ID', () => {
  it('sends the matching events after the id, then the live ones, none twice', async () => {
    for (let i = 1; i <= 4; i++) append(i, { primarySector: i % 2 ? 'ENE' : 'FIN' }, HOUR);
    const hub = hubOf();
    await openOn(hub); // the hub is at 4
    const { sink } = await openOn(hub, { sectors: ['ENE'], breakingOnly: false }, [], 1);
    expect(sink.seqs).toEqual([3]);
    expect(sink.frames.map((f) => f.id)).toEqual([3]);
    append(5, { primarySector: 'ENE' });
    await hub.tick();
    expect(sink.seqs).toEqual([3, 5]);
  });

  it('does not send again what the opening sent, though the live read met it too', async () => {
    append(1, {}, HOUR);
    append(2, {}, HOUR);
    const hub = hubOf();
    await openOn(hub); // the hub is at 2
    const opened = hub.open({ filter: all, modules: [], lastEventId: 1 });
    append(3);
    await hub.tick(); // delivers 3 to the opening stream (held) while its resume reads 2 and 3
    const { subscription, opening } = await opened;
    expect(opening).toHaveLength(2);
    const sink = new Sink();
    subscription.attach(sink, opening);
    expect(sink.seqs).toEqual([2, 3]);
  });

  it('resends nothing for an id at or past the watermark, and nothing up to it later', async () => {
    append(1);
    const hub = hubOf();
    await openOn(hub);
    const { sink } = await openOn(hub, all, [], 3);
    expect(sink.text).toBe('');
    append(2);
    append(3);
    append(4);
    await hub.tick();
    expect(sink.seqs).toEqual([4]);
  });

  it('resets an id older than the history (24 h)', async () => {
    append(1, {}, 25 * HOUR);
    append(2, {}, 25 * HOUR);
    append(3);
    const hub = hubOf();
    const { sink } = await openOn(hub, all, [], 1);
    expect(sink.frames).toEqual([{ event: 'reset', id: 3, data: { reason: 'history_window_passed' } }]);
  });

  it('resets an id below everything the log still holds', async () => {
    append(10);
    const hub = hubOf();
    const { sink } = await openOn(hub, all, [], 4);
    expect(sink.frames).toEqual([{ event: 'reset', id: 10, data: { reason: 'history_window_passed' } }]);
  });

  it('resumes from an id right before the first event of the log (a client that saw it empty)', async () => {
    append(1);
    append(2);
    const hub = hubOf();
    const { sink } = await openOn(hub, all, [], 0);
    expect(sink.seqs).toEqual([1, 2]);
  });

  it('resets when more matching events than the most a resume sends would be resent, over several pages', async () => {
    for (let i = 1; i <= 12; i++) append(i, { primarySector: i <= 6 ? 'ENE' : 'FIN' }, HOUR);
    const hub = hubOf();
    const many = await openOn(hub, all, [], 1);
    expect(many.sink.frames).toEqual([{ event: 'reset', id: 12, data: { reason: 'too_many_events' } }]);
    // The matching ones only are counted: 5 energy events after 1 are within the most (5).
    const energy = await openOn(hub, { sectors: ['ENE'], breakingOnly: false }, [], 1);
    expect(energy.sink.seqs).toEqual([2, 3, 4, 5, 6]);
  });
});

describe('slow clients', () => {
  it('ends a stream whose unsent bytes passed the cap, and the others go on', async () => {
    const hub = hubOf();
    const slow = await openOn(hub);
    const fast = await openOn(hub);
    slow.sink.backlog = settings.maxBufferedBytes + 1;
    append(1);
    await hub.tick();
    expect(slow.sink.endedCount).toBe(1);
    expect(slow.sink.seqs).toEqual([]);
    expect(fast.sink.seqs).toEqual([1]);
    expect(hub.size).toBe(1);
  });

  it('ends every stream when the hub closes', async () => {
    const hub = hubOf();
    const a = await openOn(hub);
    hub.close();
    expect(a.sink.endedCount).toBe(1);
    expect(hub.isRunning).toBe(false);
  });
});
