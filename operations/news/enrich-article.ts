/**
 * Enriching one article (a use case; the enrichment workflow's activity calls it, one workflow per
 * article, `news-enrich-<articleId>`). The target is either an item waiting to become its article
 * (it is published here, once enriched: readers never see an article without its enrichment) or
 * an article already listed (re-enrichment after a prompt or model change, or an imported line
 * that asked for it).
 *
 * Around the model call: the day's token budget is reserved first (a spent budget answers
 * `waiting` with when it renews; the workflow sleeps until then), at most NEWS_ENRICH_CONCURRENCY
 * calls run at once across every worker (a lease), and tokens, cost and prompt version are
 * recorded on the article and on the day.
 *
 * Its cost besides the model call is database round trips, so independent steps share one: the
 * catalogue is read while the model answers, the lease is freed while the day is settled, and the
 * curation queue is written while the article is.
 */
import type { Config } from '../../models/config';
import type { Leases } from '../../models/infra/leases';
import { LlmError, type LlmClient } from '../../models/infra/llm';
import type { ArticleRepo } from '../../models/news/article.repo';
import { urgencyRank, relevanceOf, type ArticleDoc, type EnrichmentRecord } from '../../models/news/article.rules';
import type { EntityCandidateRepo } from '../../models/news/entity-candidate.repo';
import type { EntityCatalogue } from '../../models/news/entity-catalogue';
import { linkMentions, type ModelMention } from '../../models/news/entity-link.rules';
import { EnrichmentInvalid, requestEnrichment } from './enrichment';
import { buildEnrichmentPrompt, costUsd, PROMPT_VERSION, toModules, type EnrichmentInput, type EnrichOutcome } from '../../models/news/enrichment.rules';
import { nextUtcMidnight, utcDay, type EnrichmentUsageRepo } from '../../models/news/enrichment-usage.repo';
import { derivedKeys, nameKey } from '../../models/news/ingest.rules';
import { keepCorrection } from '../../models/news/correction.rules';
import { WAITING_NOTE } from '../../models/news/editorial.rules';
import type { FeedItemDoc, FeedItemRepo } from '../../models/news/sources/feed-item.repo';
import { itemText } from './pipeline';
import type { SourceRepo } from '../../models/news/sources/source.repo';
import type { SourceDoc } from '../../models/news/sources/source.rules';
import { publishEvents, type PublishDeps } from '../events/publish';

/** Where an article to enrich is found, and where a failed enrichment is recorded. */
export interface EnrichTargetDeps {
  articles: Pick<ArticleRepo, 'findById' | 'markEnrichment'>;
  feedItems: Pick<FeedItemRepo, 'byArticle' | 'set'>;
  sources: Pick<SourceRepo, 'get'>;
}

export interface EnrichDeps extends EnrichTargetDeps {
  articles: Pick<ArticleRepo, 'findById' | 'markEnrichment' | 'applyEnrichment' | 'insertNew' | 'bySourceKey' | 'addReport'>;
  feedItems: Pick<FeedItemRepo, 'byArticle' | 'set' | 'get'>;
  sources: Pick<SourceRepo, 'get' | 'countArticle'>;
  /** The day's token budget. */
  enrichmentUsage: Pick<EnrichmentUsageRepo, 'reserve' | 'settle'>;
  /** The curation queue of names the catalogue lacks. */
  entityCandidates: Pick<EntityCandidateRepo, 'mention'>;
  llm: LlmClient;
  leases: Leases;
  config: Pick<Config, 'news'>;
  now?: () => Date;
  /**
   * The entity catalogue mentions are linked to. A worker passes one it keeps for a minute
   * (entity-catalogue.ts cachedEntityCatalogue).
   */
  catalogue: () => Promise<EntityCatalogue>;
  /** The news event log: a published article's event is appended there (operations/events/publish.ts). */
  events: PublishDeps['events'];
  /**
   * The activity attempt's end (activities/attempt.ts): stops the wait for a concurrency slot and
   * the model call when the attempt is cancelled or abandoned.
   */
  signal?: AbortSignal;
}


/**
 * The `user` an article's model calls are sent as: the article, so the provider's logs (and the
 * OpenAI double's scripts, which tests key by it) tell one article's calls from the others'.
 */
export const enrichmentUser = (articleId: string): string => `news-enrichment-${articleId}`;

/** Breaking news older than this when enriched is archive: nobody is alerted (as for imports). */
export const ALERT_MAX_AGE_MS = 24 * 3_600_000;

interface Target {
  article: ArticleDoc | null;
  item: FeedItemDoc | null;
  source: SourceDoc | null;
}

async function targetOf(deps: EnrichTargetDeps, articleId: string): Promise<Target | null> {
  const [article, item] = await Promise.all([deps.articles.findById(articleId), deps.feedItems.byArticle(articleId)]);
  if (!article && item?.state !== 'extracted' && item?.state !== 'failed') return null;
  const sourceId = article?.sourceId ?? item?.sourceId;
  const source = sourceId ? await deps.sources.get(sourceId) : null;
  return { article, item, source };
}

function inputOf(t: Target): EnrichmentInput {
  const { article, item, source } = t;
  return {
    title: article?.title ?? item!.title,
    subtitle: article?.subtitle ?? item?.page?.subtitle ?? null,
    summary: article?.summary ?? item?.summary ?? null,
    text: item ? itemText(item) : null,
    language: (article?.language ?? source?.language ?? 'pt') as EnrichmentInput['language'],
    sourceName: article?.sourceName ?? source?.name ?? 'unknown',
    sourceTier: (article?.modules.meta?.sourceTier ?? source?.tier ?? 2) as 1 | 2 | 3,
    defaultSector: source?.defaultSector ?? null,
  };
}

/** Enriches one article; see the file's comment. Throws the provider's errors (LlmError) and EnrichmentInvalid. */
export async function enrichArticle(deps: EnrichDeps, articleId: string): Promise<EnrichOutcome> {
  const now = (deps.now ?? (() => new Date()))();
  const target = await targetOf(deps, articleId);
  if (!target) return { state: 'gone' };
  const settings = deps.config.news.enrichment;
  const input = inputOf(target);
  // Built and counted once: its tokens are reserved, then the same messages are sent.
  const prompt = buildEnrichmentPrompt(input, { maxInputTokens: settings.maxInputTokens });
  const estimate = prompt.tokens + settings.maxOutputTokens;
  const usage = deps.enrichmentUsage;
  const day = utcDay(now);
  if (!(await usage.reserve(day, estimate, settings.dailyTokens, now))) {
    const resumeAt = nextUtcMidnight(now);
    await markWaiting(deps, articleId, target, now);
    return { state: 'waiting', resumeAt: resumeAt.toISOString() };
  }
  let lease;
  try {
    lease = await deps.leases.acquire('news-enrichment', settings.concurrency, { ttlMs: 10 * 60_000, waitMs: 60_000, ...(deps.signal ? { signal: deps.signal } : {}) });
  } catch (err) {
    await usage.settle(day, estimate, null, now);
    throw err;
  }
  // Read (or taken from the worker's copy) while the model answers; awaited once it has.
  const catalogue = deps.catalogue();
  catalogue.catch(() => undefined);
  let answer;
  try {
    answer = await requestEnrichment(deps.llm, input, { model: settings.model, maxInputTokens: settings.maxInputTokens, maxOutputTokens: settings.maxOutputTokens, user: enrichmentUser(articleId), messages: prompt.messages, ...(deps.signal ? { signal: deps.signal } : {}) });
  } catch (err) {
    const spent = (err as { usage?: { promptTokens: number; completionTokens: number } }).usage;
    await together(lease.release(), usage.settle(day, estimate, spent ? { ...spent, costUsd: costUsd(spent, settings.model).usd, promptVersion: PROMPT_VERSION } : null, now));
    throw err;
  }
  const cost = costUsd(answer.usage, answer.model).usd;
  await together(
    lease.release(),
    usage.settle(day, estimate, { promptTokens: answer.usage.promptTokens, completionTokens: answer.usage.completionTokens, costUsd: cost, promptVersion: answer.promptVersion }, now),
  );

  const meta = {
    sourceTier: input.sourceTier,
    wordCount: target.item?.page?.wordCount || target.article?.modules.meta?.wordCount || itemText({ title: input.title, summary: input.summary, page: null }).split(/\s+/).filter(Boolean).length,
    readingTimeMinutes: target.item?.page?.readingTimeMinutes || target.article?.modules.meta?.readingTimeMinutes || 1,
    paywall: target.item?.page?.paywalled ?? target.article?.modules.meta?.paywall ?? false,
  };
  const computed = toModules(answer.result, meta);
  const { dictionary, byCnpj } = await catalogue;
  const { entities, unknown } = linkMentions(answer.result.entities, dictionary, byCnpj);

  const record: EnrichmentRecord = {
    state: 'enriched',
    promptVersion: answer.promptVersion,
    model: answer.model,
    promptTokens: answer.usage.promptTokens,
    completionTokens: answer.usage.completionTokens,
    costUsd: cost,
    attempts: answer.attempts,
    at: now,
    error: null,
  };
  const fields = {
    primarySector: computed.base.primarySector,
    primaryTopic: computed.base.primaryTopic,
    contentType: computed.base.contentType,
    urgencyLevel: computed.base.urgencyLevel,
    isBreaking: computed.base.isBreaking,
    baseScore: computed.base.baseScore,
    modules: { ...computed.modules, entities },
    entityIds: entities.map((e) => e.entityId),
    tickers: [...new Set(entities.flatMap((e) => (e.ticker ? [e.ticker] : [])))],
    enrichment: record,
  } satisfies Partial<ArticleDoc>;
  // The curation queue and the article are separate documents: written side by side.
  const queued = queueCandidates(deps, unknown, articleId, now);
  if (target.article) {
    const a = target.article;
    await together(queued, applyKeepingCorrection(deps, a, { ...fields, urgencyRank: urgencyRank(fields.urgencyLevel), relevance: relevanceOf(a.publishedAt, fields.baseScore) }));
    // A retry after the article was inserted but before its item was marked published (the
    // attempt before died in between): its publication may not have reached the event log yet.
    // Appending is idempotent, so it is appended (or found) now; `published` stays false, as
    // the first attempt's answer never came back.
    if (target.item && (target.item.state === 'extracted' || target.item.state === 'failed')) {
      const stored = await deps.articles.findById(a._id);
      if (stored) await publishEvents(deps, [stored]);
    }
    return { state: 'enriched', published: false, isBreaking: fields.isBreaking, publishedAt: a.publishedAt.toISOString() };
  }
  const [, published] = await together(queued, publishItem(deps, target.item!, target.source, fields, now));
  return { state: 'enriched', published, isBreaking: fields.isBreaking, publishedAt: (target.item!.page?.publishedAt ?? target.item!.feedPublishedAt ?? target.item!.seenAt).toISOString() };
}

/** Writes of an enrichment attempted before it gives up (a correction landing between each read and write). */
const CORRECTION_RACES = 3;

/**
 * Writes an enrichment over an article an editor may have corrected: the editor's labels win
 * (correction.rules keepCorrection), and the write holds only while the correction is the one read,
 * so one made meanwhile is read again and kept. An article gone meanwhile (hidden) is left alone.
 */
async function applyKeepingCorrection(deps: Pick<EnrichDeps, 'articles'>, read: ArticleDoc, fields: Parameters<typeof keepCorrection>[0] & Partial<ArticleDoc>): Promise<void> {
  let article: ArticleDoc | null = read;
  for (let attempt = 1; article; attempt++) {
    if (await deps.articles.applyEnrichment(article._id, keepCorrection(fields, article), article.correction?.at ?? null)) return;
    if (attempt >= CORRECTION_RACES) throw new Error(`article ${article._id} was corrected ${attempt} times while it was being enriched`);
    article = await deps.articles.findById(article._id);
  }
}

/**
 * Counts the names the catalogue lacks in the curation queue. Different names are written side by
 * side; mentions of the same name one after the other (one upsert of a document at a time).
 */
async function queueCandidates(deps: Pick<EnrichDeps, 'entityCandidates'>, unknown: readonly ModelMention[], articleId: string, now: Date): Promise<void> {
  if (unknown.length === 0) return;
  const candidates = deps.entityCandidates;
  const byKey = new Map<string, ModelMention[]>();
  for (const m of unknown) {
    const key = nameKey(m.name);
    byKey.set(key, [...(byKey.get(key) ?? []), m]);
  }
  await Promise.all(
    [...byKey].map(async ([key, mentions]) => {
      for (const m of mentions) await candidates.mention(key, { name: m.name, entityType: m.type, ticker: m.ticker, cnpj: m.cnpj }, articleId, now);
    }),
  );
}

/** Awaits both, whatever either does, then throws the first failure: no write is left running unawaited. */
async function together<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [ra, rb] = await Promise.allSettled([a, b]);
  if (ra.status === 'rejected') throw ra.reason;
  if (rb.status === 'rejected') throw rb.reason;
  return [ra.value, rb.value];
}

/** Stores an enriched item as its article; false when another article holds its URL (it is reported there). */
async function publishItem(deps: Pick<EnrichDeps, 'articles' | 'feedItems' | 'sources' | 'events'>, item: FeedItemDoc, source: SourceDoc | null, fields: Omit<ArticleDoc, keyof ArticleDoc & ('_id' | 'sourceName' | 'sourceUrl' | 'title' | 'subtitle' | 'summary' | 'publishedAt' | 'isExclusive' | 'language' | 'createdAt' | 'sourceKey' | 'urgencyRank' | 'relevance' | 'search' | 'terms')>, now: Date): Promise<boolean> {
  const { feedItems: items, articles } = deps;
  const url = item.page?.canonicalUrl ?? item.url;
  const base = {
    _id: item.articleId,
    sourceName: source?.name ?? 'unknown',
    sourceUrl: url,
    title: item.title,
    subtitle: item.page?.subtitle ?? null,
    summary: item.summary ?? null,
    publishedAt: item.page?.publishedAt ?? item.feedPublishedAt ?? item.seenAt,
    isExclusive: false,
    language: source?.language ?? 'pt',
    createdAt: now,
    sourceId: item.sourceId,
    alsoReportedBy: item.alsoReportedBy,
    ...fields,
  };
  const doc: ArticleDoc = { ...base, ...derivedKeys(base) };
  const { insertedIds } = await articles.insertNew([doc]);
  if (!insertedIds.includes(doc._id)) {
    const holder = await articles.bySourceKey(doc.sourceKey);
    if (holder) await articles.addReport(holder._id, { sourceId: item.sourceId, sourceName: base.sourceName, url, at: now });
    await items.set(item._id, { state: 'duplicate', sameAs: holder?._id ?? null }, now);
    return false;
  }
  // Before the item is marked published: a retry from here on finds the article (the resumed
  // path of enrichArticle), and appends again idempotently.
  await publishEvents(deps, [doc]);
  // Reports that reached the item while it was being published.
  const latest = await items.get(item._id);
  for (const r of latest?.alsoReportedBy ?? []) await articles.addReport(doc._id, r);
  await together(items.set(item._id, { state: 'published' }, now), source ? deps.sources.countArticle(source._id) : Promise.resolve());
  return true;
}

async function markWaiting(deps: EnrichTargetDeps, articleId: string, target: Target, now: Date): Promise<void> {
  if (target.article) await deps.articles.markEnrichment(articleId, { state: 'waiting-budget', at: now });
  if (target.item) await deps.feedItems.set(target.item._id, { error: WAITING_NOTE }, now);
}

/** Records a failed enrichment (the model's answers never validated, or it refused the request). */
export async function failEnrichment(deps: EnrichTargetDeps, articleId: string, error: string, now = new Date()): Promise<void> {
  const target = await targetOf(deps, articleId);
  if (target?.article) await deps.articles.markEnrichment(articleId, { state: 'failed', error: error.slice(0, 500), at: now });
  if (target?.item && !target.article) await deps.feedItems.set(target.item._id, { state: 'failed', error: error.slice(0, 500) }, now);
}

/**
 * An enrichment error that asking again will not cure, as it is reported: the model's answers
 * never validated, or the provider refused the request. Null for the others (the provider's 429,
 * 5xx and timeouts, the database away), which a retry may get past.
 */
export function finalEnrichmentError(err: unknown): { type: 'EnrichmentInvalid' | 'ProviderRejected'; message: string } | null {
  if (err instanceof EnrichmentInvalid) return { type: 'EnrichmentInvalid', message: err.message };
  if (err instanceof LlmError && !err.retryable) return { type: 'ProviderRejected', message: `the AI provider refused the request (${err.kind}): ${err.message}` };
  return null;
}
