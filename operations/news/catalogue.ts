/**
 * The curated entity catalogue, as editors keep it (issue 38): the list they pick entities from
 * (by name, alias or ticker prefix), and changing an entity's aliases, ticker or CNPJ.
 *
 * The catalogue has no unique index (seeded data may share values, and an index could not be built
 * over them): an edit is refused (409) when another entity already holds the ticker, the CNPJ or a
 * folded alias it would give, since linking would then find either (ingest.rules buildDictionary:
 * the first registered wins). Two editors giving the same value to two entities at the same moment
 * could both pass the check; the catalogue is edited by hand, rarely. Stored articles keep the
 * mentions they were linked with; enrichments and imports from then on use the edit (a worker's
 * copy of the catalogue is at most a minute old: entity-catalogue.ts).
 */
import { AppError, notFound } from '../../models/errors';
import type { EntityDoc } from '../../models/news/entity.model';
import type { CatalogueFilters, EntityRepo } from '../../models/news/entity.repo';
import { keptAliases, nameKeysOf, type EntityPatch } from '../../models/news/entity.rules';
import { nameKey } from '../../models/news/ingest.rules';
import type { PageQuery } from '../../models/news/pagination.rules';

export interface CatalogueDeps {
  entities: Pick<EntityRepo, 'catalogue' | 'findById' | 'othersHolding' | 'update'>;
}

export const listCatalogue = (deps: CatalogueDeps, filters: CatalogueFilters, page: PageQuery) => deps.entities.catalogue(filters, page);

/** 409 naming the entity that holds what an edit would give another. */
export function heldBy(other: EntityDoc, what: string): never {
  throw new AppError('CONFLICT', `${what} belongs to another entity already: ${other.canonicalName} (${other._id})`);
}

/** Changes an entity's aliases, ticker or CNPJ; answers the entity as stored. */
export async function changeEntity(deps: CatalogueDeps, id: string, patch: EntityPatch): Promise<EntityDoc> {
  const entity = (await deps.entities.findById(id)) ?? notFound('Entity');
  const set: Partial<Pick<EntityDoc, 'aliases' | 'nameKeys' | 'ticker' | 'cnpj'>> = {};
  let newKeys: string[] = [];
  if (patch.aliases !== undefined) {
    set.aliases = keptAliases(entity.canonicalName, patch.aliases);
    set.nameKeys = nameKeysOf(entity.canonicalName, set.aliases);
    // The canonical name is not changed here: only the aliases' spellings are checked.
    newKeys = set.aliases.map(nameKey);
  }
  if (patch.ticker !== undefined) set.ticker = patch.ticker;
  if (patch.cnpj !== undefined) set.cnpj = patch.cnpj;
  const others = await deps.entities.othersHolding({ ticker: set.ticker ?? undefined, cnpj: set.cnpj ?? undefined, nameKeys: newKeys }, id);
  for (const other of others) {
    if (set.ticker && other.ticker === set.ticker) heldBy(other, `The ticker ${set.ticker}`);
    if (set.cnpj && other.cnpj === set.cnpj) heldBy(other, `The CNPJ ${set.cnpj}`);
    const alias = set.aliases?.find((a) => other.nameKeys.includes(nameKey(a)));
    if (alias !== undefined) heldBy(other, `The name "${alias}"`);
  }
  return (await deps.entities.update(id, set)) ?? notFound('Entity');
}
