/**
 * An editor corrects an article's enrichment (issue 38, PUT /api/admin/articles/{id}/correction):
 * its classification, sentiment and entities. The article shows the editor's labels at once (every
 * reader reads the stored fields); the correction stays on the article, so enriching it again keeps
 * the labels (models/news/correction.rules.ts keepCorrection); and it is kept as a labelled example
 * (`news_enrichment_examples`: the article as the model read it, the model's output, the labels,
 * who and when) for the evaluation (ops/eval-enrichment.ts --corrections).
 *
 * The write is conditional on the article's last enrichment and correction being those read, so a
 * correction never overwrites an enrichment it did not see (nor the reverse: enrich-article.ts);
 * when one came in between, the correction is made again from the article as it is now.
 */
import { AppError, notFound } from '../../models/errors';
import type { ArticleRepo } from '../../models/news/article.repo';
import type { ArticleDoc } from '../../models/news/article.rules';
import { correctedFields, labelledFieldsOf, resolveLabels, type CatalogueEntity, type CorrectionInput, type ExampleInput } from '../../models/news/correction.rules';
import type { EnrichmentExampleRepo } from '../../models/news/enrichment-example.repo';
import type { EntityRepo } from '../../models/news/entity.repo';
import type { HiddenArticleRepo } from '../../models/news/hidden-article.repo';
import type { FeedItemRepo } from '../../models/news/sources/feed-item.repo';
import { itemText } from './pipeline';

export interface CorrectionDeps {
  articles: Pick<ArticleRepo, 'findById' | 'applyCorrection'>;
  hiddenArticles: Pick<HiddenArticleRepo, 'get'>;
  feedItems: Pick<FeedItemRepo, 'byArticle'>;
  entities: Pick<EntityRepo, 'findByIds'>;
  enrichmentExamples: Pick<EnrichmentExampleRepo, 'save'>;
  now: () => Date;
}

/** Attempts at the conditional write before the editor is asked to try again (an enrichment landing each time). */
const ATTEMPTS = 3;

/** The entities of a correction from the catalogue, or a 400 naming those it lacks. */
async function catalogueOf(deps: Pick<CorrectionDeps, 'entities'>, input: CorrectionInput): Promise<Map<string, CatalogueEntity>> {
  const ids = input.entities.map((e) => e.entityId);
  const found = new Map((ids.length ? await deps.entities.findByIds(ids) : []).map((e) => [e._id, e]));
  const missing = input.entities.flatMap((e, i) => (found.has(e.entityId) ? [] : [{ path: `body.entities.${i}.entityId`, message: `no entity of the catalogue has the id ${e.entityId}` }]));
  if (missing.length) throw new AppError('VALIDATION_FAILED', `Invalid request: ${missing[0]!.path}: ${missing[0]!.message}`, { details: missing });
  return found;
}

/** Refuses an article that is not published: hidden, or an item still in the pipeline (404 when none of these). */
async function unpublished(deps: Pick<CorrectionDeps, 'hiddenArticles' | 'feedItems'>, id: string): Promise<never> {
  const [hidden, item] = await Promise.all([deps.hiddenArticles.get(id), deps.feedItems.byArticle(id)]);
  if (hidden) throw new AppError('CONFLICT', 'The article is hidden: unhide it to correct it');
  if (item && (item.state === 'extracted' || item.state === 'failed')) throw new AppError('CONFLICT', 'The article is not published yet (its enrichment is pending or failed): correct it once it is enriched');
  return notFound('Article');
}

/** The article as the model read it (enrich-article.ts inputOf): its item's page text when it came from a source. */
async function exampleInput(deps: Pick<CorrectionDeps, 'feedItems'>, a: ArticleDoc): Promise<ExampleInput> {
  const item = a.sourceId ? await deps.feedItems.byArticle(a._id) : null;
  const text = item ? itemText(item) : [a.title, a.subtitle, a.summary].filter(Boolean).join('\n\n');
  return { title: a.title, subtitle: a.subtitle, summary: a.summary, text, language: a.language, sourceName: a.sourceName };
}

/** Corrects an article; answers it as stored. */
export async function correctArticle(deps: CorrectionDeps, id: string, input: CorrectionInput, by: string): Promise<ArticleDoc> {
  const catalogue = await catalogueOf(deps, input);
  for (let attempt = 1; ; attempt++) {
    const article = (await deps.articles.findById(id)) ?? (await unpublished(deps, id));
    const at = deps.now();
    // The model's output: kept on an earlier correction, else what the article shows.
    const model = article.correction?.model ?? labelledFieldsOf(article);
    const labels = resolveLabels(input, catalogue, model);
    const correction = { labels, model, by, at, note: input.note ?? null };
    const fields = { ...correctedFields(article, labels), correction };
    const read = { enrichmentAt: article.enrichment?.at ?? null, correctionAt: article.correction?.at ?? null };
    if (await deps.articles.applyCorrection(id, fields, read)) {
      const enrichment = article.enrichment ? { promptVersion: article.enrichment.promptVersion ?? null, model: article.enrichment.model ?? null } : null;
      await deps.enrichmentExamples.save({ _id: id, input: await exampleInput(deps, article), labels, model, enrichment, by, at, note: correction.note });
      return { ...article, ...fields };
    }
    if (attempt >= ATTEMPTS) throw new AppError('CONFLICT', 'The article was enriched again while it was being corrected: send the correction again');
  }
}
