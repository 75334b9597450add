/**
 * The curated entity catalogue as enrichment links the model's mentions to it (entity-link.rules):
 * the dictionary by ticker, name and alias, and the ids by CNPJ, read in one query.
 *
 * Enrichment needs it for every article, and it changes only when an administrator accepts a
 * candidate or the seed runs, so a worker keeps it for a minute (`cachedEntityCatalogue`): an
 * entity added to the catalogue is linked by enrichments that start at most a minute later. The
 * catalogue is small (curated by hand), so each worker holding a copy costs little memory.
 */
import { LRUCache } from 'lru-cache';
import type { Connection } from 'mongoose';
import { entityModel } from './entity.model';
import { buildDictionary, type EntityDictionary } from './ingest.rules';

export interface EntityCatalogue {
  dictionary: EntityDictionary;
  /** Entity ids by CNPJ, digits only. */
  byCnpj: ReadonlyMap<string, string>;
}

/** How long a worker reuses the catalogue it read. */
export const ENTITY_CATALOGUE_TTL_MS = 60_000;

/** Reads the whole catalogue (one query). */
export async function loadEntityCatalogue(conn: Connection): Promise<EntityCatalogue> {
  const entities = await entityModel(conn).find({}, { entityType: 1, canonicalName: 1, aliases: 1, ticker: 1, cnpj: 1 }).lean();
  const byCnpj = new Map<string, string>();
  for (const e of entities) {
    const digits = e.cnpj ? String(e.cnpj).replace(/\D/g, '') : '';
    if (digits) byCnpj.set(digits, e._id);
  }
  return { dictionary: buildDictionary(entities), byCnpj };
}

/** The catalogue as a worker keeps it: read again once ENTITY_CATALOGUE_TTL_MS has passed. */
export function cachedEntityCatalogue(conn: Connection, opts: { ttlMs?: number } = {}): () => Promise<EntityCatalogue> {
  return cachedFor(opts.ttlMs ?? ENTITY_CATALOGUE_TTL_MS, () => loadEntityCatalogue(conn));
}

/**
 * `load`'s value, loaded again once `ttlMs` has passed since it was loaded: lru-cache's fetch,
 * which shares one load among callers at the same moment and keeps no load that failed (the next
 * caller loads again). `now` is the clock (tests move it).
 */
export function cachedFor<T extends object | string | number | boolean>(ttlMs: number, load: () => Promise<T>, now: () => number = () => performance.now()): () => Promise<T> {
  const cache = new LRUCache<'value', T>({ max: 1, ttl: ttlMs, ttlResolution: 0, perf: { now }, fetchMethod: () => load() });
  return async () => (await cache.fetch('value')) as T;
}

/** Reads the entity catalogue as import links mentions to it (a worker hands it to runImport as `dictionary`). */
export async function loadDictionary(conn: Connection, signal?: AbortSignal): Promise<EntityDictionary> {
  const entities = await entityModel(conn).find({}, { entityType: 1, canonicalName: 1, aliases: 1, ticker: 1 }).setOptions(signal ? { signal } : {}).lean();
  return buildDictionary(entities);
}
