/**
 * Counting semaphores shared by every process through the database: "at most N concurrent
 * requests per host across all workers" (the polite fetcher's host slots) and, later, "at most N
 * concurrent model calls per deployment". A limit of N is N slot documents `<key>#<i>`, each held
 * by one holder until it is released or its lease runs out (a crashed holder frees its slot after
 * the TTL). Taking a slot is one conditional findOneAndUpdate, so it needs only single-document
 * atomicity: it works on MongoDB and on FerretDB (DocumentDB on PostgreSQL) alike, no transactions.
 *
 * Expiry compares each process's clock with the `until` another process wrote: clocks must agree
 * to well within the TTL (NTP does), and the TTL must outlast the longest hold.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Connection } from 'mongoose';
import { collectionOf, insertManyRacing } from './mongo';
import type { HostSlots } from './polite-fetch';
import { backoffMs } from './polite-fetch.rules';

interface SlotDoc {
  _id: string;
  /** Who holds the slot (one id per acquisition), or null when it is free. */
  holder: string | null;
  /** When a held slot may be taken over: its holder is presumed dead. */
  until: Date;
}

export interface Lease {
  /** Frees the slot; does nothing when the lease already ran out and another holder took it. */
  release(): Promise<void>;
  /**
   * Keeps the slot `ttlMs` more (a long hold: an open stream renews on each keep-alive). False when
   * the lease had run out and another holder took the slot (or it was released): it is lost.
   */
  renew(ttlMs: number): Promise<boolean>;
}

export interface AcquireOptions {
  /** How long the slot is ours without a release (default 60 s). */
  ttlMs?: number;
  /** How long to wait for a free slot before giving up (default 30 s). */
  waitMs?: number;
  signal?: AbortSignal;
}

export interface Leases {
  acquire(key: string, limit: number, opts?: AcquireOptions): Promise<Lease>;
}

/** No slot of the key came free in time. Worth retrying later: someone else is using them. */
export class LeaseWaitTimeout extends Error {
  override name = 'LeaseWaitTimeout';
  constructor(
    readonly key: string,
    readonly limit: number,
    readonly waitMs: number,
  ) {
    super(`no free slot of "${key}" (limit ${limit}) within ${waitMs} ms`);
  }
}

export const LEASES_COLLECTION = 'leases';
const DEFAULT_TTL_MS = 60_000;
const DEFAULT_WAIT_MS = 30_000;
/** Waiters poll: often at first, then at most every second (jittered, so they do not poll in step). */
const POLL = { baseMs: 50, capMs: 1_000 };
const MAX_LIMIT = 1_000;

const slotIds = (key: string, limit: number) => Array.from({ length: limit }, (_, i) => `${key}#${i}`);

export function createLeases(conn: Connection): Leases {
  const slots = () => collectionOf<SlotDoc>(conn, LEASES_COLLECTION);
  /** Key and limit pairs whose slot documents this process has made sure exist. */
  const ensured = new Map<string, Promise<void>>();

  function ensureSlots(key: string, ids: string[]): Promise<void> {
    const id = `${key}#${ids.length}`;
    let done = ensured.get(id);
    if (!done) {
      // Every process may race to create the same slots: the ones already there are refused by
      // the _id index, which is what we want.
      done = insertManyRacing(
        slots(),
        ids.map((_id) => ({ _id, holder: null, until: new Date(0) })),
      ).then(() => undefined);
      ensured.set(id, done);
      void done.catch(() => ensured.delete(id));
    }
    return done;
  }

  async function acquire(key: string, limit: number, opts: AcquireOptions = {}): Promise<Lease> {
    if (!key) throw new Error('lease key must not be empty');
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new Error(`lease limit must be an integer from 1 to ${MAX_LIMIT}, got ${limit}`);
    const ttlMs = opts.ttlMs ?? DEFAULT_TTL_MS;
    const waitMs = opts.waitMs ?? DEFAULT_WAIT_MS;
    const { signal } = opts;
    const ids = slotIds(key, limit);
    await ensureSlots(key, ids);

    const holder = randomUUID();
    const deadline = Date.now() + waitMs;
    for (let attempt = 1; ; attempt += 1) {
      signal?.throwIfAborted();
      const now = Date.now();
      const taken = await slots().findOneAndUpdate(
        { _id: { $in: ids }, $or: [{ holder: null }, { until: { $lt: new Date(now) } }] },
        { $set: { holder, until: new Date(now + ttlMs) } },
        { projection: { _id: 1 } },
      );
      if (taken) return leaseOf(taken._id, holder);
      const left = deadline - Date.now();
      if (left <= 0) throw new LeaseWaitTimeout(key, limit, waitMs);
      try {
        await sleep(Math.min(left, Math.max(backoffMs(attempt, POLL), 10)), undefined, signal ? { signal } : {});
      } catch (err) {
        throw signal?.aborted ? signal.reason : err;
      }
    }
  }

  function leaseOf(slotId: string, holder: string): Lease {
    let released = false;
    return {
      async release() {
        if (released) return;
        // Only our own hold is freed: after expiry the slot may be someone else's.
        await slots().updateOne({ _id: slotId, holder }, { $set: { holder: null } });
        released = true;
      },
      async renew(ttlMs) {
        if (released) return false;
        const res = await slots().updateOne({ _id: slotId, holder }, { $set: { until: new Date(Date.now() + ttlMs) } });
        return res.matchedCount === 1;
      },
    };
  }

  return { acquire };
}

/**
 * Host slots for the polite fetcher: at most `limitPerHost` concurrent requests per origin across
 * every process. The TTL must outlast the fetcher's timeout (a request holds its slot that long).
 */
export function hostSlotsFrom(leases: Leases, limitPerHost: number, opts: { ttlMs?: number; waitMs?: number } = {}): HostSlots {
  return {
    async acquire(origin, signal) {
      const lease = await leases.acquire(`host:${origin}`, limitPerHost, { ...opts, ...(signal ? { signal } : {}) });
      return () => lease.release();
    },
  };
}
