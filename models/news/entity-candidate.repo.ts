/**
 * The entity curation queue (`news_entity_candidates`): names the enrichment model found that the
 * curated catalogue lacks. They are never added to the catalogue silently: an administrator
 * accepts one (it becomes an entity) or dismisses it (it stays dismissed, still counted, so the
 * same name does not come back). One candidate per folded name.
 */
import type { Connection } from 'mongoose';
import { collectionOf, indexesOnce } from '../infra/mongo';
import type { EntityType } from './article.rules';

/** aliased: added to an existing entity as an alias (the entity it joined is `entityId`). */
export const CANDIDATE_STATES = ['open', 'accepted', 'dismissed', 'aliased'] as const;
export type CandidateState = (typeof CANDIDATE_STATES)[number];
/** Articles remembered per candidate (examples for the curator). */
export const CANDIDATE_ARTICLES_KEPT = 20;

export interface EntityCandidateDoc {
  /** The folded name (text.rules fold, words joined by single spaces). */
  _id: string;
  name: string;
  entityType: EntityType;
  ticker: string | null;
  cnpj: string | null;
  mentions: number;
  articleIds: string[];
  state: CandidateState;
  /** The catalogue entity it became (accepted) or joined as an alias (aliased). */
  entityId: string | null;
  firstSeenAt: Date;
  lastSeenAt: Date;
  decidedAt: Date | null;
  decidedBy: string | null;
}

export function createEntityCandidateRepo(conn: Connection) {
  const candidates = () => collectionOf<EntityCandidateDoc>(conn, 'news_entity_candidates');
  const ensureIndexes = () => (indexesOnce(conn, 'news_entity_candidates', () => candidates().createIndexes([{ key: { state: 1, mentions: -1, _id: 1 }, name: 'state_mentions' }])));
  return {
    ensureIndexes,
    /** Counts a mention (creating the candidate when new); an accepted or dismissed one keeps its state. */
    async mention(key: string, c: Pick<EntityCandidateDoc, 'name' | 'entityType' | 'ticker' | 'cnpj'>, articleId: string, now: Date): Promise<void> {
      await ensureIndexes();
      await candidates().updateOne(
        { _id: key },
        {
          $setOnInsert: { name: c.name, entityType: c.entityType, ticker: c.ticker, cnpj: c.cnpj, state: 'open', entityId: null, firstSeenAt: now, decidedAt: null, decidedBy: null },
          $inc: { mentions: 1 },
          $set: { lastSeenAt: now },
        },
        { upsert: true },
      );
      // Remembered separately: a bounded $addToSet needs the array's length in the filter.
      await candidates().updateOne({ _id: key, articleIds: { $ne: articleId }, [`articleIds.${CANDIDATE_ARTICLES_KEPT - 1}`]: { $exists: false } }, { $push: { articleIds: articleId } });
    },
    get: (key: string) => candidates().findOne({ _id: key }),
    list: (state: CandidateState, limit: number) => candidates().find({ state }, { sort: { mentions: -1, _id: 1 }, limit, singleBatch: true }).toArray(),
    /** Decides an open candidate; null when it was not open (decided already, or unknown). */
    decide: (key: string, state: 'accepted' | 'dismissed', by: string, entityId: string | null, now: Date) =>
      candidates().findOneAndUpdate({ _id: key, state: 'open' }, { $set: { state, entityId, decidedAt: now, decidedBy: by } }, { returnDocument: 'after' }),
    /** Decides an open candidate as an alias of an existing entity; null when it was not open. */
    markAliased: (key: string, by: string, entityId: string, now: Date) =>
      candidates().findOneAndUpdate({ _id: key, state: 'open' }, { $set: { state: 'aliased', entityId, decidedAt: now, decidedBy: by } }, { returnDocument: 'after' }),
  };
}
export type EntityCandidateRepo = ReturnType<typeof createEntityCandidateRepo>;
