/**
 * The entity curation queue, the use cases: accept a candidate into the catalogue, add it as an
 * alias of an entity the catalogue has (the same company under another name), or dismiss it.
 * Accepting creates the entity first, under an id derived from the candidate (so a retried accept
 * creates nothing twice), then marks the candidate decided; adding an alias adds it first too (a
 * retry finds it there).
 */
import { v5 as uuidv5 } from 'uuid';
import { AppError, notFound } from '../../models/errors';
import { isDuplicateKey } from '../../models/infra/mongo';
import type { EntityCandidateDoc, EntityCandidateRepo } from '../../models/news/entity-candidate.repo';
import type { EntityRepo } from '../../models/news/entity.repo';
import { nameKey } from '../../models/news/ingest.rules';
import { ALIAS_MAX_LENGTH, ALIASES_MAX, nameKeysOf } from '../../models/news/entity.rules';
import { heldBy } from './catalogue';

export interface CandidateDeps {
  entityCandidates: Pick<EntityCandidateRepo, 'get' | 'decide'>;
  /** The catalogue an accepted candidate joins. */
  entities: Pick<EntityRepo, 'insertMany'>;
  now: () => Date;
}

const ENTITY_NAMESPACE = '5f0a3c2e-9d41-4b7a-8e6f-1c2d3e4f5a6b';
export const entityIdForCandidate = (key: string) => uuidv5(key, ENTITY_NAMESPACE);

const decidedAlready = (c: EntityCandidateDoc): never => {
  throw new AppError('CONFLICT', `The candidate was ${c.state} already`);
};

export async function acceptCandidate(deps: CandidateDeps, key: string, by: string): Promise<EntityCandidateDoc> {
  const repo = deps.entityCandidates;
  const now = deps.now();
  const c = (await repo.get(key)) ?? notFound('Candidate');
  if (c.state !== 'open') decidedAlready(c);
  const entityId = entityIdForCandidate(key);
  try {
    await deps.entities.insertMany([{ _id: entityId, entityType: c.entityType, canonicalName: c.name, aliases: [], ticker: c.ticker, cnpj: c.cnpj, nameKeys: [nameKey(c.name)], createdAt: now }]);
  } catch (err) {
    if (!isDuplicateKey(err)) throw err; // created by an earlier attempt
  }
  return (await repo.decide(key, 'accepted', by, entityId, now)) ?? decidedAlready((await repo.get(key))!);
}

export async function dismissCandidate(deps: Pick<CandidateDeps, 'entityCandidates' | 'now'>, key: string, by: string): Promise<EntityCandidateDoc> {
  const repo = deps.entityCandidates;
  const decided = await repo.decide(key, 'dismissed', by, null, deps.now());
  if (decided) return decided;
  return decidedAlready((await repo.get(key)) ?? notFound('Candidate'));
}

export interface AliasDeps {
  entityCandidates: Pick<EntityCandidateRepo, 'get' | 'markAliased'>;
  /** The catalogue entity the name joins. */
  entities: Pick<EntityRepo, 'findById' | 'othersHolding' | 'update'>;
  now: () => Date;
}

/**
 * Adds an open candidate's name to an existing entity's aliases, so later enrichments link the name
 * to it, and marks the candidate aliased (with the entity's id). A name another entity has is a
 * 409 (linking would find either), and so is an entity whose aliases are full.
 */
export async function aliasCandidate(deps: AliasDeps, key: string, entityId: string, by: string): Promise<EntityCandidateDoc> {
  const c = (await deps.entityCandidates.get(key)) ?? notFound('Candidate');
  if (c.state !== 'open') decidedAlready(c);
  const entity = (await deps.entities.findById(entityId)) ?? notFound('Entity');
  const alias = c.name.trim().slice(0, ALIAS_MAX_LENGTH);
  const keys = nameKeysOf(entity.canonicalName, entity.aliases);
  if (!keys.includes(nameKey(alias))) {
    if (entity.aliases.length >= ALIASES_MAX) throw new AppError('CONFLICT', `${entity.canonicalName} has ${ALIASES_MAX} aliases already: remove one first (PATCH /api/admin/entities/{id})`);
    const [other] = await deps.entities.othersHolding({ nameKeys: [nameKey(alias)] }, entityId);
    if (other) heldBy(other, `The name "${alias}"`);
    const aliases = [...entity.aliases, alias];
    await deps.entities.update(entityId, { aliases, nameKeys: nameKeysOf(entity.canonicalName, aliases) });
  }
  return (await deps.entityCandidates.markAliased(key, by, entityId, deps.now())) ?? decidedAlready((await deps.entityCandidates.get(key))!);
}
