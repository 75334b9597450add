/**
 * The curated entity catalogue as enrichment links the model's mentions to it (entity-link.rules):
 * the dictionary by ticker, name and alias, and the ids by CNPJ, read in one query.
 *
 * Enrichment needs it for every article, and it changes only when an administrator accepts a
 * candidate or the seed runs, so a worker keeps it for a minute (`cachedEntityCatalogue`): an
 * entity added to the catalogue is linked by enrichments that start at most a minute later. The
 * catalogue is small (curated by hand), so each worker holding a copy costs little memory.
 */
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
 * `load`'s value, loaded again once `ttlMs` has passed since the last load began. Callers at the
 * same moment share one load; a load that failed is not kept (the next caller loads again).
 */
export function cachedFor<T>(ttlMs: number, load: () => Promise<T>, now: () => number = Date.now): () => Promise<T> {
  let current: { at: number; value: Promise<T> } | null = null;
  return () => {
    const at = now();
    if (!current || at - current.at >= ttlMs) {
      const entry = { at, value: load() };
      current = entry;
      entry.value.catch(() => {
        if (current === entry) current = null;
      });
    }
    return current.value;
  };
}
