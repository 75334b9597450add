/**
 * The article index in MongoDB/FerretDB (rules: article-index.rules.ts): heads in
 * `article_index`, immutable chunks in `article_index_chunks`, every read an `_id` lookup.
 *
 * Readers cache decoded chunks (they never change; a replaced chunk gets a new id), so a page
 * usually costs one head read. Writing is for one writer at a time — the news ingest workflow —
 * because FerretDB loses concurrent updates (docs/decisions.md).
 */
import type { Connection } from 'mongoose';
import {
  decodeEntries,
  emptyHead,
  encodeEntries,
  headId,
  mergeEntries,
  orderingsOf,
  touchedChunks,
  type ChunkRef,
  type Entry,
  type Head,
  type Ordering,
} from './article-index.rules';

interface ChunkDoc {
  _id: string;
  n: number;
  data: string;
}

/** A chunk a head named was gone: the head was replaced meanwhile, read it again. */
class StaleHead extends Error {}

/** Least-recently-used decoded chunks, bounded by the number of entries held. */
class ChunkCache {
  private map = new Map<string, Entry[]>();
  private size = 0;
  constructor(private readonly maxEntries: number) {}
  get(id: string): Entry[] | undefined {
    const v = this.map.get(id);
    if (v) {
      this.map.delete(id);
      this.map.set(id, v);
    }
    return v;
  }
  set(id: string, entries: Entry[]): void {
    if (this.map.has(id)) return;
    this.map.set(id, entries);
    this.size += entries.length;
    for (const [k, v] of this.map) {
      if (this.size <= this.maxEntries) break;
      this.map.delete(k);
      this.size -= v.length;
    }
  }
}

async function inBatches<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(fn));
}

export function createArticleIndex(conn: Connection, options: { cacheEntries?: number; headTtlMs?: number } = {}) {
  const heads = () => conn.db!.collection<Head>('article_index');
  const chunks = () => conn.db!.collection<ChunkDoc>('article_index_chunks');
  const cache = new ChunkCache(options.cacheEntries ?? 400_000);
  const headTtl = options.headTtlMs ?? 0;
  const recentHeads = new Map<string, { head: Promise<Head | null>; at: number }>();

  /** A head, reused for headTtl ms (readers only; the writer reads with headTtl 0). */
  function readHead(list: string, ordering: Ordering): Promise<Head | null> {
    const id = headId(list, ordering);
    if (headTtl === 0) return heads().findOne({ _id: id }) as Promise<Head | null>;
    const now = Date.now();
    const hit = recentHeads.get(id);
    if (hit && now - hit.at < headTtl) return hit.head;
    if (recentHeads.size > 50_000) recentHeads.clear();
    const head = heads().findOne({ _id: id }) as Promise<Head | null>;
    recentHeads.set(id, { head, at: now });
    head.catch(() => recentHeads.delete(id));
    return head;
  }

  async function loadChunk(ref: ChunkRef): Promise<Entry[]> {
    const hit = cache.get(ref.id);
    if (hit) return hit;
    const doc = await chunks().findOne({ _id: ref.id });
    if (!doc) throw new StaleHead(ref.id);
    const entries = decodeEntries(doc.data);
    cache.set(ref.id, entries);
    return entries;
  }

  const reader = {
    readHead,
    loadChunk,
    /** Runs a read, again with fresh heads if a writer replaced a chunk under it. */
    async consistent<T>(read: () => Promise<T>): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await read();
        } catch (err) {
          if (!(err instanceof StaleHead) || attempt >= 5) throw err;
          recentHeads.clear(); // a reused head named a replaced chunk
        }
      }
    },
  };

  /** Adds one list's new entries in one ordering: touched chunks replaced, then the head. */
  async function applyList(list: string, ordering: Ordering, entries: Entry[]): Promise<void> {
    const head = ((await heads().findOne({ _id: headId(list, ordering) })) as Head | null) ?? emptyHead(list, ordering);
    const loaded = new Map<number, Entry[]>();
    await Promise.all(
      [...touchedChunks(head, entries)].map(async (i) => {
        const doc = await chunks().findOne({ _id: head.chunks[i]!.id });
        if (!doc) throw new Error(`article index is damaged: ${head.chunks[i]!.id} is missing`);
        loaded.set(i, decodeEntries(doc.data));
      }),
    );
    const { head: next, write, remove } = mergeEntries(head, loaded, entries);
    if (write.length === 0) return;
    // New chunks first (unreachable until the head names them), then the head, then the old chunks.
    await chunks().bulkWrite(
      write.map((c) => ({ replaceOne: { filter: { _id: c.ref.id }, replacement: { _id: c.ref.id, n: c.ref.n, data: encodeEntries(c.entries) }, upsert: true } })),
      { ordered: false },
    );
    await heads().replaceOne({ _id: next._id }, next, { upsert: true });
    // One delete per id: FerretDB answers only single `_id` equality from its index.
    if (remove.length) await chunks().bulkWrite(remove.map((id) => ({ deleteOne: { filter: { _id: id } } })), { ordered: false });
  }

  return {
    ...reader,
    /**
     * Adds postings (list name → entries) in every ordering each list is kept in. Only one writer
     * may run at a time; repeating a call with the same postings changes nothing.
     */
    async apply(postings: ReadonlyMap<string, Entry[]>, options: { width?: number; onProgress?: () => void } = {}): Promise<void> {
      const work = [...postings].flatMap(([list, entries]) => orderingsOf(list).map((ordering) => ({ list, ordering, entries })));
      await inBatches(work, options.width ?? 8, async (w) => {
        await applyList(w.list, w.ordering, w.entries);
        options.onProgress?.();
      });
    },
  };
}

export type ArticleIndex = ReturnType<typeof createArticleIndex>;
