/**
 * The news event log's rules (issue 40): what an event is, which events a stream's filter wants,
 * how an event is shown under a plan, and the watermark a process has read the log up to. Pure:
 * no I/O (the log is models/events/event-log.repo.ts; the fan-out, operations/events/stream.ts).
 *
 * An event is appended once per article when it is published (by the source pipeline or by a
 * fresh import), and carries a snapshot of the article: its base fields, its stored modules (the
 * plan decides at fan-out which are shown) and what filters match on (sector, topic, tickers,
 * entity ids). The snapshot is taken at publish time: a later correction emits nothing.
 */
import { presentArticle, type ArticleDoc, type PresentedArticle, type Sector, type Topic } from '../news/article.rules';
import type { IncludeModule } from '../shared/plan.rules';

export const EVENT_TYPES = ['article.published', 'article.breaking'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** How long events can be resumed from (Last-Event-ID): older is a `reset`. */
export const EVENT_HISTORY_MS = 24 * 3_600_000;
/** How long the log keeps an event (the TTL index): the history plus an hour for the TTL monitor's lag. */
export const EVENT_TTL_SECONDS = 25 * 3_600;
/**
 * How long a hole in the sequence is waited for before the watermark passes it: a seq is reserved
 * (`$inc`) before its event is inserted, so a later seq may be read first, and a writer that died
 * between the two leaves a hole for ever.
 */
export const GAP_WAIT_MS = 5_000;

/** A breaking article's event is `article.breaking`; any other, `article.published` (both are published). */
export const eventTypeOf = (a: Pick<ArticleDoc, 'isBreaking'>): EventType => (a.isBreaking ? 'article.breaking' : 'article.published');

/** The unique key of an article's publication: an article is appended once. */
export const eventKeyOf = (articleId: string): string => `article:${articleId}`;

/** What an event keeps of its article: what presentArticle shows, and what filters match on. */
export type EventArticle = Pick<
  ArticleDoc,
  | '_id'
  | 'sourceName'
  | 'title'
  | 'subtitle'
  | 'summary'
  | 'publishedAt'
  | 'primarySector'
  | 'primaryTopic'
  | 'contentType'
  | 'urgencyLevel'
  | 'isBreaking'
  | 'language'
  | 'alsoReportedBy'
  | 'modules'
  | 'entityIds'
  | 'tickers'
>;

/** One event of the log (`news_events`). */
export interface NewsEvent {
  /** The sequence number: increasing, with holes (a lost race or a writer that died wastes one). */
  _id: number;
  /** `article:<id>`, unique. */
  key: string;
  type: EventType;
  /** When it was appended (the TTL index's field). */
  at: Date;
  article: EventArticle;
  /** When its webhook fan-out finished (every endpoint it was for has its message); absent until then. */
  dispatchedAt?: Date | null;
}

export function snapshotOf(a: ArticleDoc): EventArticle {
  return {
    _id: a._id,
    sourceName: a.sourceName,
    title: a.title,
    subtitle: a.subtitle,
    summary: a.summary,
    publishedAt: a.publishedAt,
    primarySector: a.primarySector,
    primaryTopic: a.primaryTopic,
    contentType: a.contentType,
    urgencyLevel: a.urgencyLevel,
    isBreaking: a.isBreaking,
    language: a.language,
    alsoReportedBy: a.alsoReportedBy ?? [],
    modules: a.modules ?? {},
    entityIds: a.entityIds ?? [],
    tickers: a.tickers ?? [],
  };
}

/** The event of an article, but for its seq (given when it is reserved). */
export const eventOf = (a: ArticleDoc, at: Date): Omit<NewsEvent, '_id'> => ({ key: eventKeyOf(a._id), type: eventTypeOf(a), at, article: snapshotOf(a) });

/**
 * What a stream asks for. Within a kind any value matches (OR); every kind given must match (AND).
 * An empty or absent list does not filter. `breakingOnly`: `article.breaking` events only.
 */
export interface EventFilter {
  sectors?: readonly Sector[] | undefined;
  topics?: readonly Topic[] | undefined;
  tickers?: readonly string[] | undefined;
  entityIds?: readonly string[] | undefined;
  breakingOnly: boolean;
}

const anyOf = <T>(wanted: readonly T[] | undefined, has: (v: T) => boolean): boolean => !wanted || wanted.length === 0 || wanted.some(has);

export function eventMatches(event: Pick<NewsEvent, 'type' | 'article'>, filter: EventFilter): boolean {
  const a = event.article;
  if (filter.breakingOnly && event.type !== 'article.breaking') return false;
  return (
    anyOf(filter.sectors, (s) => a.primarySector === s) &&
    anyOf(filter.topics, (t) => a.primaryTopic === t) &&
    anyOf(filter.tickers, (t) => a.tickers.includes(t)) &&
    anyOf(filter.entityIds, (id) => a.entityIds.includes(id))
  );
}

/** An event's data as a stream sends it: its seq (clients deduplicate by it), type, time and the article as the lists show it. */
export interface PresentedEvent {
  seq: number;
  type: EventType;
  timestamp: string;
  article: PresentedArticle;
}

/** The event under a plan's include modules (parseInclude decided them): the base fields always, the modules asked for. */
export const presentEvent = (event: NewsEvent, modules: readonly IncludeModule[]): PresentedEvent => ({
  seq: event._id,
  type: event.type,
  timestamp: event.at.toISOString(),
  article: presentArticle(event.article, modules),
});

/** A stable key of a set of include modules: events are serialised once per key. */
export const modulesKey = (modules: readonly IncludeModule[]): string => [...modules].sort().join(',');

/**
 * The watermark after some reads: the largest seq W such that every seq ≤ W was seen or is a hole
 * waited for long enough. `seen` holds the seqs above `mark` read so far, each with when it was
 * first read (ms). A hole below a seq first read `gapWaitMs` ago or more is passed: its writer
 * reserved it before that seq's writer did, and an insert is not that late (a writer whose insert
 * starts late reserves again: event-log.repo.ts).
 */
export function watermark(mark: number, seen: ReadonlyMap<number, number>, now: number, gapWaitMs: number): number {
  let w = mark;
  const above = [...seen.keys()].filter((s) => s > w).sort((a, b) => a - b);
  for (const s of above) {
    if (s === w + 1 || now - seen.get(s)! >= gapWaitMs) w = s;
    else break;
  }
  return w;
}

/** A Last-Event-ID as a stream sent it (digits), or undefined for anything else (ignored: the stream starts live). */
export function parseStreamId(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value.trim())) return undefined;
  const n = Number(value.trim());
  return Number.isSafeInteger(n) ? n : undefined;
}
