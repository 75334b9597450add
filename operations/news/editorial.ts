/**
 * The news editors' use cases (issue 38): articles by pipeline state (models/news/editorial.rules:
 * feed items waiting for or failed at enrichment, published articles by their enrichment's state,
 * hidden articles), one of them, and hiding or unhiding an article.
 *
 * Hiding moves the article, whole, from `articles` to `news_hidden_articles` (copied first, then
 * removed: a crash between the two leaves it visible, and hiding again finishes); unhiding moves it
 * back (put back first, then the hidden copy removed). Every reader reads `articles`, so a hidden
 * article is in no list, search, feed or alert, and its id is a 404, without a filter in any of
 * them (models/news/hidden-article.repo.ts).
 */
import { AppError, notFound } from '../../models/errors';
import type { ArticleRepo } from '../../models/news/article.repo';
import type { ArticleDoc } from '../../models/news/article.rules';
import { EDITORIAL_OFFSET_MAX, editorialQueries, mergeNewest, type EditorialFilter, type ListedRow, type RowSource } from '../../models/news/editorial.rules';
import type { HiddenArticleDoc, HiddenArticleRepo } from '../../models/news/hidden-article.repo';
import type { FeedItemDoc, FeedItemRepo } from '../../models/news/sources/feed-item.repo';
import type { SourceRepo } from '../../models/news/sources/source.repo';

export interface EditorialDeps {
  articles: Pick<ArticleRepo, 'findById' | 'findByIds' | 'newestRows' | 'countWhere' | 'remove' | 'restore'>;
  hiddenArticles: Pick<HiddenArticleRepo, 'get' | 'findByIds' | 'newestRows' | 'count' | 'put' | 'remove'>;
  feedItems: Pick<FeedItemRepo, 'byArticle' | 'byArticleIds' | 'newestRows' | 'countWhere'>;
  sources: Pick<SourceRepo, 'get'>;
  now: () => Date;
}

/** One entry of the editors' list: a published article, a hidden one, or an item not yet published. */
export type EditorialEntry =
  | { kind: 'article'; doc: ArticleDoc }
  | { kind: 'hidden'; doc: HiddenArticleDoc }
  | { kind: 'item'; item: FeedItemDoc; sourceName: string | null };

export interface EditorialPage {
  entries: EditorialEntry[];
  total: number;
  hasMore: boolean;
}

/** Item states the list shows: waiting for enrichment, or failed at it. */
const LISTED_ITEM_STATES: readonly string[] = ['extracted', 'failed'];

/** The editors' list: a page of the three collections' parts, merged newest first. */
export async function listEditorial(deps: EditorialDeps, filter: EditorialFilter, page: { limit: number; offset: number }): Promise<EditorialPage> {
  if (page.offset > EDITORIAL_OFFSET_MAX) throw new AppError('VALIDATION_FAILED', `offset must be at most ${EDITORIAL_OFFSET_MAX}: narrow the list with state or sourceId`);
  const q = editorialQueries(filter);
  const n = page.offset + page.limit + 1;
  const parts: { source: RowSource; query: Record<string, unknown>; read: (query: Record<string, unknown>, n: number) => Promise<ListedRow[]>; count: (query: Record<string, unknown>) => Promise<number> }[] = [
    ...(q.articles ? [{ source: 'article' as const, query: q.articles, read: deps.articles.newestRows, count: deps.articles.countWhere }] : []),
    ...(q.hidden ? [{ source: 'hidden' as const, query: q.hidden, read: deps.hiddenArticles.newestRows, count: deps.hiddenArticles.count }] : []),
    ...q.items.map((query) => ({ source: 'item' as const, query, read: deps.feedItems.newestRows, count: deps.feedItems.countWhere })),
  ];
  const read = await Promise.all(parts.map(async (p) => ({ source: p.source, rows: await p.read(p.query, n) })));
  const { rows, more, merged } = mergeNewest(read, page.offset, page.limit);
  // Every part ended within what was read: the total is what was merged (exact, no count).
  const complete = read.every((r) => r.rows.length < n);
  const counted = complete ? merged : (await Promise.all(parts.map((p) => p.count(p.query)))).reduce((s, c) => s + c, 0);
  // Never less than the page proves (a count may miss what was written since).
  const proven = rows.length > 0 ? page.offset + rows.length + (more ? 1 : 0) : 0;
  return { entries: await entriesOf(deps, rows), total: Math.max(counted, proven), hasMore: more };
}

/** The documents of the merged rows, in their order (one gone meanwhile is left out). */
async function entriesOf(deps: EditorialDeps, rows: readonly { id: string; source: RowSource }[]): Promise<EditorialEntry[]> {
  const ids = (source: RowSource) => rows.filter((r) => r.source === source).map((r) => r.id);
  const [articles, hidden, items] = await Promise.all([deps.articles.findByIds(ids('article')), deps.hiddenArticles.findByIds(ids('hidden')), deps.feedItems.byArticleIds(ids('item'))]);
  const names = await sourceNames(deps, items);
  const byId = new Map<string, EditorialEntry>([
    ...articles.map((doc) => [`article:${doc._id}`, { kind: 'article', doc }] as const),
    ...hidden.map((doc) => [`hidden:${doc._id}`, { kind: 'hidden', doc }] as const),
    ...items.map((item) => [`item:${item.articleId}`, { kind: 'item', item, sourceName: names.get(item.sourceId) ?? null }] as const),
  ]);
  return rows.flatMap((r) => byId.get(`${r.source}:${r.id}`) ?? []);
}

async function sourceNames(deps: Pick<EditorialDeps, 'sources'>, items: readonly FeedItemDoc[]): Promise<Map<string, string>> {
  const ids = [...new Set(items.map((i) => i.sourceId))];
  const found = await Promise.all(ids.map((id) => deps.sources.get(id)));
  return new Map(found.flatMap((s) => (s ? [[s._id, s.name] as const] : [])));
}

/** Where an id is: published, hidden, or an item not yet published; null when none of these. */
async function locate(deps: EditorialDeps, id: string): Promise<EditorialEntry | null> {
  const [doc, hidden, item] = await Promise.all([deps.articles.findById(id), deps.hiddenArticles.get(id), deps.feedItems.byArticle(id)]);
  if (doc) return { kind: 'article', doc };
  if (hidden) return { kind: 'hidden', doc: hidden };
  if (item && LISTED_ITEM_STATES.includes(item.state)) return { kind: 'item', item, sourceName: (await sourceNames(deps, [item])).get(item.sourceId) ?? null };
  return null;
}

/** One article of the editors' list, whatever its state. */
export async function editorialArticle(deps: EditorialDeps, id: string): Promise<EditorialEntry> {
  return (await locate(deps, id)) ?? notFound('Article');
}

const notPublished = (): never => {
  throw new AppError('CONFLICT', 'The article is not published yet (its enrichment is pending or failed): only a published article can be hidden');
};

/** Hides a published article: no reader sees it any more. Hiding a hidden article changes nothing. */
export async function hideArticle(deps: EditorialDeps, id: string, input: { by: string; reason?: string | undefined }): Promise<EditorialEntry> {
  const found = (await locate(deps, id)) ?? notFound('Article');
  if (found.kind === 'hidden') return found;
  if (found.kind === 'item') return notPublished();
  const doc: HiddenArticleDoc = { ...found.doc, hidden: { at: deps.now(), by: input.by, reason: input.reason ?? null } };
  // Copied first: a crash before the removal leaves the article visible (and hiding again finishes).
  await deps.hiddenArticles.put(doc);
  await deps.articles.remove(id);
  return { kind: 'hidden', doc };
}

/** Shows a hidden article to readers again. Unhiding a visible article changes nothing. */
export async function unhideArticle(deps: EditorialDeps, id: string): Promise<EditorialEntry> {
  const found = (await locate(deps, id)) ?? notFound('Article');
  if (found.kind === 'article') return found;
  if (found.kind === 'item') throw new AppError('CONFLICT', 'The article is not published yet: there is nothing to unhide');
  const { hidden: _mark, ...doc } = found.doc;
  // Put back first: a crash before the hidden copy's removal leaves it visible (and unhiding again finishes).
  const restored = await deps.articles.restore(doc);
  if (restored === 'conflict') throw new AppError('CONFLICT', `Another article holds its URL now (${doc.sourceUrl}): it stays hidden`);
  await deps.hiddenArticles.remove(id);
  return { kind: 'article', doc: restored === 'present' ? ((await deps.articles.findById(id)) ?? doc) : doc };
}
