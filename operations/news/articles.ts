/**
 * Reading articles, the use cases (spec §4.1–4.3, §4.5): lists, search, breaking news, one
 * article, an entity's articles and the reader's feed, each with the include modules the request
 * asks for and the key's plan allows (400 unknown, 403 above the plan). Each is one indexed query
 * (models/news/article-query.ts); the feed adds the articles it ranked.
 */
import { AppError, notFound } from '../../models/errors';
import type { ArticleFilters } from '../../models/news/article-query.rules';
import type { ArticlePage, ArticleQueries, Page } from '../../models/news/article-query';
import type { ArticleRepo } from '../../models/news/article.repo';
import { parseInclude, type ArticleDoc, type Ordering } from '../../models/news/article.rules';
import type { EntityRepo } from '../../models/news/entity.repo';
import { planName, type IncludeModule, type Plan } from '../../models/shared/plan.rules';
import type { PreferencesRepo } from '../../models/news/preferences.repo';

export interface ArticleDeps {
  queries: ArticleQueries;
  articles: Pick<ArticleRepo, 'findById' | 'findByIds'>;
  entities: Pick<EntityRepo, 'findById'>;
  preferences: Pick<PreferencesRepo, 'get'>;
  now: () => Date;
}

/** The include modules of a request, or 400 (unknown) / 403 (above the key's plan). */
export function modulesFor(raw: string | undefined, plan: Plan): IncludeModule[] {
  const parsed = parseInclude(raw, plan);
  if ('modules' in parsed) return parsed.modules;
  const p = parsed.problem;
  if (p.kind === 'unknown') {
    throw new AppError('VALIDATION_FAILED', `Unknown include module${p.modules.length > 1 ? 's' : ''}: ${p.modules.join(', ')}`, { details: [{ path: 'include', message: `unknown: ${p.modules.join(', ')}` }] });
  }
  throw new AppError('FORBIDDEN', `The include module ${p.module} is not part of the ${planName(p.plan)} plan; it comes with the ${planName(p.requiredPlan)} plan`);
}

/** What a reader asks for: a page, the include modules, the key's plan. */
export interface Reading {
  plan: Plan;
  include?: string | undefined;
  page: Page;
}

export type ArticlesRead = ArticlePage & { modules: IncludeModule[] };

export async function listArticles(deps: ArticleDeps, r: Reading, filters: ArticleFilters, ordering: Ordering): Promise<ArticlesRead> {
  const modules = modulesFor(r.include, r.plan);
  return { ...(await deps.queries.list(filters, ordering, r.page, modules)), modules };
}

export async function searchArticles(deps: ArticleDeps, r: Reading, q: string, filters: ArticleFilters): Promise<ArticlesRead> {
  const modules = modulesFor(r.include, r.plan);
  return { ...(await deps.queries.search(q, filters, r.page, modules)), modules };
}

export async function breakingArticles(deps: ArticleDeps, r: Reading, since: Date | undefined): Promise<ArticlesRead> {
  return await listArticles(deps, r, { isBreaking: true, since }, 'publishedAt');
}

export async function entityArticles(deps: ArticleDeps, r: Reading, entityId: string): Promise<ArticlesRead> {
  const modules = modulesFor(r.include, r.plan);
  if (!(await deps.entities.findById(entityId))) notFound('Entity');
  return { ...(await deps.queries.list({ entity: entityId }, 'publishedAt', r.page, modules)), modules };
}

export async function oneArticle(deps: ArticleDeps, plan: Plan, include: string | undefined, id: string): Promise<{ doc: ArticleDoc; modules: IncludeModule[] }> {
  const modules = modulesFor(include, plan);
  return { doc: (await deps.articles.findById(id)) ?? notFound('Article'), modules };
}

/** The reader's feed: articles ranked by their preferences, with each one's score and why. */
export async function personalFeed(deps: ArticleDeps, userId: string, r: Reading) {
  const modules = modulesFor(r.include, r.plan);
  const prefs = await deps.preferences.get(userId);
  const { items, total } = await deps.queries.feed(prefs, r.page, deps.now());
  const shown = new Map((await deps.articles.findByIds(items.map((i) => i.article._id))).map((d) => [d._id, d]));
  const ranked = items.flatMap((i) => {
    const doc = shown.get(i.article._id);
    return doc ? [{ doc, score: i.score, reasons: i.reasons }] : [];
  });
  return { items: ranked, total, modules };
}
