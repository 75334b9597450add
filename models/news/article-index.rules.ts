/**
 * Our own article index, kept in ordinary documents so that every read is an `_id` lookup: the
 * only lookup FerretDB v1 answers from an index (docs/decisions.md, "Article index"). Pure.
 *
 * A posting list (`all`, `sector:FIN`, `topic:M&A`, `breaking`, `entity:<id>`, `ticker:PETR4`,
 * `term:<stem>`) is kept in one ordering or more. Each (list, ordering) has a head document (count
 * and, per chunk, its size and key range) and immutable chunk documents holding up to
 * CHUNK_MAX compact entries packed in one string. A writer replaces touched chunks by new ones
 * and then the head, so a reader holding a head always sees a consistent list, and readers may
 * cache chunks forever.
 */
import { urgencyRank, URGENCY_LEVELS, type ArticleDoc, type UrgencyLevel } from './article.rules';

export const ORDERINGS = ['publishedAt', 'baseScore', 'urgencyLevel', 'relevance'] as const;
export type Ordering = (typeof ORDERINGS)[number];

/** Entries per chunk: new chunks are cut at CHUNK_TARGET and split when they pass CHUNK_MAX. */
export const CHUNK_TARGET = 1_000;
export const CHUNK_MAX = 2_000;

/**
 * Relevance: hours of publication time one point of baseScore (0–100) is worth. At 0.24 a
 * 100-point article keeps a 24-hour head start over a 0-point one, so a recent 80 beats a 95
 * from two days ago, and the order of two articles never changes as time passes (so it can be
 * stored).
 */
export const RELEVANCE_HOURS_PER_POINT = 0.24;

/** Where a search term was found: bits of title, subtitle and summary. */
export const FIELD = { title: 4, subtitle: 2, summary: 1 } as const;

/** One article in a posting list: what sorting, filtering and feed scoring need, nothing more. */
export interface Entry {
  id: string;
  /** publishedAt, seconds since the epoch. */
  pub: number;
  /** baseScore × 10, an integer 0–1000. */
  score: number;
  /** Urgency rank: CRITICAL 4 … LOW 1. */
  urg: number;
  sector: string;
  topic: string;
  lang: string;
  ctype: string;
  breaking: boolean;
  exclusive: boolean;
  /** Term lists: FIELD bits where the term occurs; 0 elsewhere. */
  mask: number;
}

export type ListKind = 'all' | 'sector' | 'topic' | 'breaking' | 'entity' | 'ticker' | 'term';

export const listName = {
  all: () => 'all',
  sector: (code: string) => `sector:${code}`,
  topic: (code: string) => `topic:${code}`,
  breaking: () => 'breaking',
  entity: (id: string) => `entity:${id}`,
  ticker: (ticker: string) => `ticker:${ticker}`,
  term: (stem: string) => `term:${stem}`,
};

/** Lists that lists/by-sector can sort four ways; the others are kept newest first only. */
export function orderingsOf(list: string): readonly Ordering[] {
  return list === 'all' || list.startsWith('sector:') || list.startsWith('topic:') ? ORDERINGS : ['publishedAt'];
}

export const headId = (list: string, ordering: Ordering) => `h|${list}|${ordering}`;
export const chunkId = (list: string, ordering: Ordering, version: number, n: number) => `c|${list}|${ordering}|${version}|${n}`;

export function entryOf(a: Pick<ArticleDoc, '_id' | 'publishedAt' | 'baseScore' | 'urgencyLevel' | 'primarySector' | 'primaryTopic' | 'language' | 'contentType' | 'isBreaking' | 'isExclusive'>, mask = 0): Entry {
  return {
    id: a._id,
    pub: Math.floor(a.publishedAt.getTime() / 1000),
    score: Math.round(a.baseScore * 10),
    urg: urgencyRank(a.urgencyLevel),
    sector: a.primarySector,
    topic: a.primaryTopic,
    lang: a.language,
    ctype: a.contentType,
    breaking: a.isBreaking,
    exclusive: a.isExclusive,
    mask,
  };
}

export const urgencyOfRank = (rank: number): UrgencyLevel => URGENCY_LEVELS[URGENCY_LEVELS.length - rank]!;

export function encodeEntries(entries: readonly Entry[]): string {
  return entries
    .map((e) => `${e.id}|${e.pub}|${e.score}|${e.urg}|${e.sector}|${e.topic}|${e.lang}|${e.ctype}|${e.breaking ? 'b' : ''}${e.exclusive ? 'x' : ''}|${e.mask}`)
    .join('\n');
}

export function decodeEntries(packed: string): Entry[] {
  if (!packed) return [];
  return packed.split('\n').map((line) => {
    const [id, pub, score, urg, sector, topic, lang, ctype, flags, mask] = line.split('|') as [string, string, string, string, string, string, string, string, string, string];
    return { id, pub: +pub, score: +score, urg: +urg, sector, topic, lang, ctype, breaking: flags.includes('b'), exclusive: flags.includes('x'), mask: +mask };
  });
}

const PUB_MAX = 99_999_999_999;
const REL_MAX = 9_999_999_999_999;
const pad = (n: number, width: number) => String(n).padStart(width, '0');
const newest = (e: Entry) => pad(PUB_MAX - e.pub, 11) + e.id;

/** Relevance value of an entry: publication hours plus the score's head start. */
export const relevanceValue = (e: Pick<Entry, 'pub' | 'score'>) => e.pub / 3600 + (e.score / 10) * RELEVANCE_HOURS_PER_POINT;

/** The key entries are kept in, ascending, unique per article (the id ends every key). */
export function sortKey(e: Entry, ordering: Ordering): string {
  switch (ordering) {
    case 'publishedAt':
      return newest(e);
    case 'baseScore':
      return pad(1000 - e.score, 4) + newest(e);
    case 'urgencyLevel':
      return String(9 - e.urg) + newest(e);
    case 'relevance':
      return pad(REL_MAX - Math.round(relevanceValue(e) * 100), 13) + e.id;
  }
}

export interface ChunkRef {
  id: string;
  n: number;
  /** Keys of the first and last entry. */
  first: string;
  last: string;
  /** Oldest and newest publication (seconds), to skip chunks outside from/to. */
  minPub: number;
  maxPub: number;
}

export interface Head {
  _id: string;
  list: string;
  ordering: Ordering;
  count: number;
  version: number;
  chunks: ChunkRef[];
}

export interface NewChunk {
  ref: ChunkRef;
  entries: Entry[];
}

export function emptyHead(list: string, ordering: Ordering): Head {
  return { _id: headId(list, ordering), list, ordering, count: 0, version: 0, chunks: [] };
}

function refOf(id: string, entries: Entry[], ordering: Ordering): ChunkRef {
  let minPub = Infinity;
  let maxPub = -Infinity;
  for (const e of entries) {
    if (e.pub < minPub) minPub = e.pub;
    if (e.pub > maxPub) maxPub = e.pub;
  }
  return { id, n: entries.length, first: sortKey(entries[0]!, ordering), last: sortKey(entries[entries.length - 1]!, ordering), minPub, maxPub };
}

/** Index of the chunk a key belongs in: the first whose last key is ≥ it, else the last chunk. */
export function chunkFor(chunks: readonly ChunkRef[], key: string): number {
  let lo = 0;
  let hi = chunks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (chunks[mid]!.last >= key) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Sorted, one entry per key (so re-applying a batch changes nothing). */
function sortUnique(entries: Entry[], ordering: Ordering): Entry[] {
  const keyed = entries.map((e) => ({ e, k: sortKey(e, ordering) }));
  keyed.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  return keyed.filter((x, i) => i === 0 || keyed[i - 1]!.k !== x.k).map((x) => x.e);
}

function cut(entries: Entry[]): Entry[][] {
  if (entries.length <= CHUNK_MAX) return [entries];
  const pieces = Math.ceil(entries.length / CHUNK_TARGET);
  const size = Math.ceil(entries.length / pieces);
  const out: Entry[][] = [];
  for (let i = 0; i < entries.length; i += size) out.push(entries.slice(i, i + size));
  return out;
}

/** The chunks a batch of entries touches (to be loaded before `mergeEntries`). */
export function touchedChunks(head: Head, entries: readonly Entry[]): Set<number> {
  const touched = new Set<number>();
  if (head.chunks.length === 0) return touched;
  for (const e of entries) touched.add(chunkFor(head.chunks, sortKey(e, head.ordering)));
  return touched;
}

/**
 * Adds entries to a list: returns the new head, the chunks to write (new ids, under the next
 * version) and the ids of the chunks they replace. `loaded` holds the entries of every chunk
 * `touchedChunks` named. Entries already present (same key) are skipped.
 */
export function mergeEntries(head: Head, loaded: ReadonlyMap<number, Entry[]>, entries: readonly Entry[]): { head: Head; write: NewChunk[]; remove: string[] } {
  const { ordering, list } = head;
  const version = head.version + 1;
  let n = 0;
  const make = (piece: Entry[]): NewChunk => ({ ref: refOf(chunkId(list, ordering, version, n++), piece, ordering), entries: piece });
  if (head.chunks.length === 0) {
    const sorted = sortUnique([...entries], ordering);
    const write = sorted.length ? cutTarget(sorted).map(make) : [];
    return { head: { ...head, version, count: sorted.length, chunks: write.map((c) => c.ref) }, write, remove: [] };
  }
  const groups = new Map<number, Entry[]>();
  for (const e of entries) {
    const i = chunkFor(head.chunks, sortKey(e, ordering));
    (groups.get(i) ?? groups.set(i, []).get(i)!).push(e);
  }
  const chunks: ChunkRef[] = [];
  const write: NewChunk[] = [];
  const remove: string[] = [];
  let count = 0;
  head.chunks.forEach((ref, i) => {
    const added = groups.get(i);
    if (!added) {
      chunks.push(ref);
      count += ref.n;
      return;
    }
    const existing = loaded.get(i);
    if (!existing) throw new Error(`chunk ${ref.id} was not loaded before merging`);
    const merged = sortUnique([...existing, ...added], ordering);
    if (merged.length === existing.length) {
      chunks.push(ref); // nothing new: keep the chunk as it is
      count += ref.n;
      return;
    }
    remove.push(ref.id);
    for (const piece of cut(merged)) {
      const c = make(piece);
      write.push(c);
      chunks.push(c.ref);
      count += piece.length;
    }
  });
  return { head: { ...head, version, count, chunks }, write, remove };
}

function cutTarget(entries: Entry[]): Entry[][] {
  const out: Entry[][] = [];
  for (let i = 0; i < entries.length; i += CHUNK_TARGET) out.push(entries.slice(i, i + CHUNK_TARGET));
  return out;
}

/** The chunks holding positions [offset, offset + limit) and where the first one starts. */
export function locate(head: Head, offset: number, limit: number): { chunks: number[]; skip: number } {
  const chunks: number[] = [];
  let start = 0;
  let skip = 0;
  for (let i = 0; i < head.chunks.length && start < offset + limit; i++) {
    const n = head.chunks[i]!.n;
    if (start + n > offset) {
      if (chunks.length === 0) skip = offset - start;
      chunks.push(i);
    }
    start += n;
  }
  return { chunks, skip };
}
