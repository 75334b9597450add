/**
 * Upkeep of the development database (FerretDB on PostgreSQL with DocumentDB) that has no MongoDB
 * equivalent, kept here so product code stays plain MongoDB (docs/decisions.md, "Ordered index
 * scans"):
 * - statistics after a bulk load (`ANALYZE`): until PostgreSQL has them, the planner may still
 *   choose a bitmap scan and a Sort over the ordered index scan of a list;
 * - indexes built by an earlier release on DocumentDB's plain RUM, which can never return rows in
 *   order: rebuilt through the MongoDB protocol (drop, then create with the same key and options),
 *   so they land on the extended RUM the server now routes every index to.
 * Each is a no-op when MONGODB_URI points to a database of its own (MongoDB has neither need).
 */
import { spawnSync } from 'node:child_process';
import type { Connection } from 'mongoose';
import type { Config } from '../models/config';
import { defaultCacheDir } from './binaries';
import { postgresBin, postgresPrefix } from './postgres';

export interface DevPostgres {
  psql: string;
  port: number;
}

/**
 * The development database's PostgreSQL, when this configuration uses it: `DEV_POSTGRES_PORT`
 * (set by `npm test` and the benchmarks for their own stack), else POSTGRES_PORT of `npm start`.
 */
export function devPostgres(config: Config, env: NodeJS.ProcessEnv = process.env): DevPostgres | undefined {
  const testPort = env.DEV_POSTGRES_PORT ? Number(env.DEV_POSTGRES_PORT) : undefined;
  if (config.mongo.uri && !testPort) return undefined;
  return { psql: postgresBin(postgresPrefix(defaultCacheDir(config.devServices.cacheDir)), 'psql'), port: testPort ?? config.devServices.postgresPort };
}

export class DevDatabaseError extends Error {
  override name = 'DevDatabaseError';
}

/** Runs SQL on the development database's PostgreSQL; rows as arrays of fields. */
export function sql(pg: DevPostgres, statement: string): string[][] {
  const r = spawnSync(pg.psql, ['-h', '127.0.0.1', '-p', String(pg.port), '-U', 'postgres', '-d', 'postgres', '-X', '-q', '-A', '-t', '-F', '\t', '-v', 'ON_ERROR_STOP=1', '-c', statement], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (r.status !== 0) throw new DevDatabaseError(`psql on port ${pg.port} failed: ${(r.stderr || r.error?.message || '').trim()}`);
  return r.stdout.split('\n').filter((l) => l.length > 0).map((l) => l.split('\t'));
}

/** Gathers the planner's statistics for every collection (seconds for 100,000 documents). */
export function analyze(pg: DevPostgres | undefined): boolean {
  if (!pg) return false;
  sql(pg, 'ANALYZE');
  return true;
}

/**
 * Vacuums one collection's table now (what autovacuum does some seconds after deletes and updates):
 * tests use it to reach the index states vacuum leaves without waiting for it.
 */
export function vacuumCollection(pg: DevPostgres, database: string, collection: string): void {
  const quote = (v: string) => `'${v.replace(/'/g, "''")}'`;
  const [[id] = []] = sql(pg, `SELECT collection_id FROM documentdb_api_catalog.collections WHERE database_name = ${quote(database)} AND collection_name = ${quote(collection)}`);
  if (!id) throw new DevDatabaseError(`no collection ${database}.${collection}`);
  sql(pg, `VACUUM documentdb_data.documents_${Number(id)}`);
}

export interface IndexOnOldMethod {
  database: string;
  collection: string;
  index: string;
  method: string;
}

/** The collection indexes of a database that are not on the extended RUM (`_id_` is the primary key). */
export function indexesOnOldMethod(pg: DevPostgres, database: string): IndexOnOldMethod[] {
  const rows = sql(
    pg,
    `SELECT c.database_name, c.collection_name, (i.index_spec).index_name, am.amname
       FROM documentdb_api_catalog.collection_indexes i
       JOIN documentdb_api_catalog.collections c USING (collection_id)
       JOIN pg_class pc ON pc.relname = 'documents_rum_index_' || i.index_id
       JOIN pg_am am ON am.oid = pc.relam
      WHERE c.database_name = '${database.replace(/'/g, "''")}' AND am.amname <> 'documentdb_extended_rum'
      ORDER BY 1, 2, 3`,
  );
  return rows.map(([db, collection, index, method]) => ({ database: db!, collection: collection!, index: index!, method: method! }));
}

/**
 * Rebuilds every index of the connection's database still on the old access method: reads its
 * definition, drops it and creates it again with the same key and options. Idempotent: a second
 * run finds nothing. A unique index is briefly absent while rebuilt: run it before traffic, as
 * `npm run cli -- migrate` is meant to be.
 */
export async function rebuildOldIndexes(conn: Connection, pg: DevPostgres | undefined, info: (line: string) => void): Promise<{ rebuilt: string[] }> {
  if (!pg) return { rebuilt: [] };
  const db = conn.db!;
  const rebuilt: string[] = [];
  for (const old of indexesOnOldMethod(pg, db.databaseName)) {
    const collection = db.collection(old.collection);
    const spec = (await collection.listIndexes().toArray()).find((i) => i.name === old.index);
    // Unique and text indexes stay on the plain RUM by design (the extended RUM has neither): only
    // ordinary ascending/descending indexes move, so a second run finds nothing to do.
    if (!spec || spec.unique || Object.values(spec.key as Record<string, unknown>).some((v) => v !== 1 && v !== -1)) continue;
    const { v: _v, ns: _ns, key, ...options } = spec as { v?: unknown; ns?: unknown; key: Record<string, unknown> } & Record<string, unknown>;
    await collection.dropIndex(old.index);
    await db.command({ createIndexes: old.collection, indexes: [{ key, ...options }] });
    rebuilt.push(`${old.collection}.${old.index}`);
    info(`rebuilt ${old.collection}.${old.index} (was on ${old.method})`);
  }
  if (rebuilt.length > 0) analyze(pg);
  return { rebuilt };
}
