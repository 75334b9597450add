/**
 * The entity curation queue, the use cases: accept a candidate into the catalogue, or dismiss it.
 * Accepting creates the entity first, under an id derived from the candidate (so a retried accept
 * creates nothing twice), then marks the candidate decided.
 */
import { v5 as uuidv5 } from 'uuid';
import type { Connection } from 'mongoose';
import { AppError, notFound } from '../../errors';
import { isDuplicateKey } from '../../infra/mongo';
import { createEntityCandidateRepo, type EntityCandidateDoc } from '../entity-candidate.repo';
import { entityModel } from '../entity.model';
import { nameKey } from '../ingest.rules';

const ENTITY_NAMESPACE = '5f0a3c2e-9d41-4b7a-8e6f-1c2d3e4f5a6b';
export const entityIdForCandidate = (key: string) => uuidv5(key, ENTITY_NAMESPACE);

const decidedAlready = (c: EntityCandidateDoc): never => {
  throw new AppError('CONFLICT', `The candidate was ${c.state} already`);
};

export async function acceptCandidate(conn: Connection, key: string, by: string, now: Date): Promise<EntityCandidateDoc> {
  const repo = createEntityCandidateRepo(conn);
  const c = (await repo.get(key)) ?? notFound('Candidate');
  if (c.state !== 'open') decidedAlready(c);
  const entityId = entityIdForCandidate(key);
  try {
    await entityModel(conn).create({ _id: entityId, entityType: c.entityType, canonicalName: c.name, aliases: [], ticker: c.ticker, cnpj: c.cnpj, nameKeys: [nameKey(c.name)], createdAt: now });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err; // created by an earlier attempt
  }
  return (await repo.decide(key, 'accepted', by, entityId, now)) ?? decidedAlready((await repo.get(key))!);
}

export async function dismissCandidate(conn: Connection, key: string, by: string, now: Date): Promise<EntityCandidateDoc> {
  const repo = createEntityCandidateRepo(conn);
  const decided = await repo.decide(key, 'dismissed', by, null, now);
  if (decided) return decided;
  return decidedAlready((await repo.get(key)) ?? notFound('Candidate'));
}
