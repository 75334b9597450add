/**
 * Labelled examples (`news_enrichment_examples`): each editor's correction of an article's
 * enrichment, kept with the article as the model read it, the model's output the editor corrected
 * and the editor's labels, who and when. One per article (its id): a later correction of the same
 * article replaces the labels and counts a revision. The evaluation reads them
 * (ops/eval-enrichment.ts --corrections); nothing else does.
 */
import type { Connection } from 'mongoose';
import { collectionOf, indexesOnce } from '../infra/mongo';
import type { CorrectionLabels, LabelledFields } from './article.rules';
import type { ExampleInput } from './correction.rules';

export const ENRICHMENT_EXAMPLES = 'news_enrichment_examples';

export interface EnrichmentExampleDoc {
  /** The article's id. */
  _id: string;
  input: ExampleInput;
  labels: CorrectionLabels;
  /** The model's output the labels correct (an import's values for an article no model enriched). */
  model: LabelledFields;
  /** The enrichment that produced `model` (null: an imported article). */
  enrichment: { promptVersion: string | null; model: string | null } | null;
  by: string;
  at: Date;
  note: string | null;
  firstBy: string;
  firstAt: Date;
  /** Corrections of this article so far. */
  revisions: number;
}

export type NewExample = Omit<EnrichmentExampleDoc, 'firstBy' | 'firstAt' | 'revisions'>;

/** Examples one evaluation reads at most (newest first). */
export const EXAMPLES_READ_MAX = 10_000;

export function createEnrichmentExampleRepo(conn: Connection) {
  const examples = () => collectionOf<EnrichmentExampleDoc>(conn, ENRICHMENT_EXAMPLES);
  const ensureIndexes = () => indexesOnce(conn, ENRICHMENT_EXAMPLES, () => examples().createIndexes([{ key: { at: -1, _id: -1 }, name: 'newest' }]));
  return {
    ensureIndexes,
    /** Saves the example of a correction (the first, or a later one of the same article). */
    async save(e: NewExample): Promise<void> {
      await ensureIndexes();
      const { _id, ...rest } = e;
      await examples().updateOne({ _id }, { $set: rest, $setOnInsert: { firstBy: e.by, firstAt: e.at }, $inc: { revisions: 1 } }, { upsert: true });
    },
    get: (articleId: string) => examples().findOne({ _id: articleId }),
    /** The newest `limit` examples. */
    list: async (limit = EXAMPLES_READ_MAX): Promise<EnrichmentExampleDoc[]> => {
      await ensureIndexes();
      return await examples().find({}, { sort: { at: -1, _id: -1 }, limit }).toArray();
    },
  };
}

export type EnrichmentExampleRepo = ReturnType<typeof createEnrichmentExampleRepo>;
