/**
 * One Mongoose connection per process. The services start even when the database is down (their
 * /health then says so): the first connection is retried in the background until it succeeds, and
 * after that the driver reconnects by itself.
 */
import mongoose, { type Connection, type ConnectOptions, type Model, type mongo, type Schema } from 'mongoose';
import { type Config, mongoUri } from '../config';
import { dependencyUnavailable } from '../errors';

export interface MongoHandle {
  conn: Connection;
  /** Resolves once connected; rejects only when closed first. */
  ready: Promise<Connection>;
  close(): Promise<void>;
}

export function connectMongo(config: Config, onRetry?: (err: unknown) => void): MongoHandle {
  const conn = mongoose.createConnection();
  const uri = mongoUri(config);
  const options: ConnectOptions = {
    dbName: config.mongo.db,
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    // Queries fail fast while disconnected instead of queueing without bound (503, not a hang).
    bufferCommands: false,
  };
  let closed = false;
  conn.on('error', () => undefined);

  const ready = (async () => {
    let delay = 250;
    for (;;) {
      if (closed) throw new Error('MongoDB connection closed before it was ready');
      try {
        await conn.openUri(uri, options);
        return conn;
      } catch (err) {
        onRetry?.(err);
        await new Promise((r) => setTimeout(r, delay).unref());
        delay = Math.min(delay * 2, 5_000);
      }
    }
  })();
  ready.catch(() => undefined);

  return {
    conn,
    ready,
    async close() {
      closed = true;
      await conn.close().catch(() => undefined);
    },
  };
}

/**
 * A collection of the connection's database. Before the first connection is made (the database
 * was down when the process started) there is no database handle yet: that is MongoDB being
 * unavailable (503), not a programming error (500).
 */
export function collectionOf<T extends mongo.Document>(conn: Connection, name: string): mongo.Collection<T> {
  if (!conn.db) throw dependencyUnavailable('mongodb');
  return conn.db.collection<T>(name);
}

export async function pingMongo(conn: Connection): Promise<void> {
  if (conn.readyState !== 1 || !conn.db) throw new Error('not connected');
  await conn.db.admin().command({ ping: 1 });
}

/** A write refused by a unique index (MongoDB's E11000, which FerretDB returns too). */
export const isDuplicateKey = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === 11000;

/**
 * PostgreSQL's deadlock_detected (SQLSTATE 40P01, packed as DocumentDB packs SQL states into write
 * error codes). The development database enforces unique indexes with exclusion constraints, and
 * concurrent inserts of one key can deadlock on each other's checks: PostgreSQL then aborts one
 * insert with this instead of E11000 (measured: tests/integration/database.test.ts). MongoDB never
 * returns it. Repeated, the insert meets the committed row and gets E11000 as on MongoDB.
 */
const POSTGRES_DEADLOCK = 16908292;

/** A write (or one write error of a bulk write) the development database aborted as a deadlock. */
export const isWriteDeadlock = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === POSTGRES_DEADLOCK;

const DEADLOCK_ATTEMPTS = 10;

const pauseAfterDeadlock = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1000, 50 * 2 ** (attempt - 1))));

/**
 * Runs `op` again while the development database aborts it as a deadlock, up to 10 times, after a
 * random pause below 50 ms, 100 ms, … 1 s ("full jitter"). Racing inserts of one key each insert
 * their row, then wait on the others' uncommitted rows while checking the exclusion constraint,
 * and PostgreSQL aborts one insert per cycle; repeated at once, the losers met each other again
 * (CI saw 19 of 20 racing inserts deadlock five rounds running). `npm run bench:racing`, 20
 * inserts racing on each of 100 keys under load: 5 immediate tries left 103–217 of 1,900
 * deadlocked to the end, these pauses 0 (docs/benchmarks.md).
 * MongoDB never deadlocks, so the pauses cost nothing there.
 */
async function repeatOnDeadlock<T>(op: () => Promise<T>, deadlocked: (err: unknown) => boolean): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await op();
    } catch (err) {
      if (!deadlocked(err) || attempt >= DEADLOCK_ATTEMPTS) throw err;
      await pauseAfterDeadlock(attempt);
    }
  }
}

/**
 * Runs a write that may race others on a unique key, repeating it when the database aborted it as
 * a deadlock, so callers see MongoDB's outcomes only (success or E11000).
 */
export function writeRacingOnUniqueKey<T>(write: () => Promise<T>): Promise<T> {
  return repeatOnDeadlock(write, isWriteDeadlock);
}

const builtIndexes = new WeakMap<Connection, Map<string, Promise<unknown>>>();

/**
 * Builds a collection's indexes once per connection. Repositories are cheap to make and some are
 * made per call (the news pipeline's activities); without this each call sent its createIndexes
 * again (17 commands per published article, measured by bench:ingest). A failed build is tried
 * again on the next call.
 */
export function indexesOnce(conn: Connection, collection: string, build: () => Promise<unknown>): Promise<unknown> {
  let byCollection = builtIndexes.get(conn);
  if (!byCollection) builtIndexes.set(conn, (byCollection = new Map()));
  let built = byCollection.get(collection);
  if (!built) {
    const map = byCollection;
    built = build();
    map.set(collection, built);
    built.catch(() => map.delete(collection));
  }
  return built;
}

/**
 * Builds indexes, repeating the build when the development database aborted it as a deadlock:
 * DocumentDB's index builds take PostgreSQL locks that concurrent writes or builds of the same
 * collection can deadlock with ("deadlock detected", seen in CI when two imports started at once).
 * Repeated, the build finds the index made or makes it. MongoDB never returns it.
 */
export function buildIndexesRacing<T>(build: () => Promise<T>): Promise<T> {
  return repeatOnDeadlock(build, (err) => isWriteDeadlock(err) || /deadlock detected/i.test((err as Error | null)?.message ?? ''));
}

/** The per-document errors of an unordered bulk write (the driver gives one or a list), or null when `err` is not one. */
function writeErrorsOf(err: unknown): { index: number; code: number }[] | null {
  const found = (err as { writeErrors?: { index: number; code: number }[] | { index: number; code: number } } | null)?.writeErrors;
  if (found === undefined) return null;
  return (Array.isArray(found) ? found : [found]).map((e) => ({ index: e.index, code: e.code }));
}

/**
 * `insertMany` unordered, racing other writers on unique keys: the documents the development
 * database aborted as deadlocks are inserted again (as writeRacingOnUniqueKey does for one), so
 * callers see MongoDB's outcomes only. Returns the positions in `docs` refused by a unique index
 * (E11000), in order; any other write error is thrown.
 */
export async function insertManyRacing<T extends mongo.Document>(collection: mongo.Collection<T>, docs: readonly mongo.OptionalUnlessRequiredId<T>[]): Promise<number[]> {
  const refused: number[] = [];
  let pending = docs.map((_, i) => i);
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    let failed: { index: number; code: number }[] = [];
    try {
      await collection.insertMany(pending.map((i) => docs[i]!), { ordered: false });
    } catch (err) {
      // One document may come back as a plain write error rather than a bulk one.
      const single = pending.length === 1 && (isDuplicateKey(err) || isWriteDeadlock(err)) ? [{ index: 0, code: (err as { code: number }).code }] : null;
      const errors = writeErrorsOf(err) ?? single;
      if (!errors) throw err;
      failed = errors;
    }
    const unexpected = failed.find((f) => !isDuplicateKey(f) && !isWriteDeadlock(f));
    if (unexpected) throw new Error(`insert into ${collection.collectionName} failed with code ${unexpected.code}`);
    refused.push(...failed.filter(isDuplicateKey).map((f) => pending[f.index]!));
    const deadlocked = failed.filter(isWriteDeadlock).map((f) => pending[f.index]!);
    if (deadlocked.length > 0 && attempt >= DEADLOCK_ATTEMPTS) throw new Error(`insert into ${collection.collectionName} deadlocked ${attempt} times`);
    if (deadlocked.length > 0) await pauseAfterDeadlock(attempt);
    pending = deadlocked;
  }
  return refused.sort((a, b) => a - b);
}

/**
 * How many documents of a collection match a query, exactly, with the `count` command: one index
 * count on MongoDB (exact on an unsharded collection), and ~2 ms on the development database
 * where `countDocuments`' aggregation costs ~18 ms (docs/benchmarks.md).
 */
export async function countMatching(conn: Connection, collection: string, query: Record<string, unknown>): Promise<number> {
  const counted = (await conn.db!.command({ count: collection, query, maxTimeMS: READ_TIME_LIMIT_MS })) as { n: number };
  return counted.n;
}

/**
 * How long one read serving a list, a search or a count may run on the database server before it
 * is cancelled (`maxTimeMS`; DocumentDB turns it into PostgreSQL's statement timeout). A read past
 * it is MongoDB's MaxTimeMSExpired (code 50), answered 503 naming the database: a page that takes
 * longer than this is a sick database or a runaway plan, and holding its backend longer only
 * takes memory from every other request (issue 34: such backends grew to ~1 GB each until the
 * kernel killed PostgreSQL). The development database also ends any statement of FerretDB's after
 * a minute (ops/dev-services.ts), whatever asked for it.
 */
export const READ_TIME_LIMIT_MS = 10_000;

/** The connection's model of that name, compiled once. */
export function modelOn<T>(conn: Connection, name: string, schema: Schema<T>): Model<T> {
  return (conn.models[name] as Model<T> | undefined) ?? conn.model<T>(name, schema);
}
