/**
 * From a source's feed to articles waiting for enrichment (issue 25), as the source's workflow's
 * activities run it:
 *
 * - `pollSource` reads the feed (conditional GET, politely: models/infra/polite-fetch.ts), stores
 *   the items not seen before, records the source's health and says when to poll next;
 * - `ingestItem` reads one item's page (robots.txt respected; the raw page kept in MinIO), extracts
 *   its main text and metadata, and decides what the item is: a new story (its article is
 *   published by enrichment), the same page as an article already known (same canonical URL), or
 *   a syndicated copy of one (similar text): those add "also reported by" to the first article.
 *
 * Both are safe to repeat: items are keyed by source and guid, and an item already decided is
 * answered from what was stored.
 */
import type { Storage } from '../../models/infra/storage';
import { FetchError, retryable, type PoliteFetcher } from '../../models/infra/polite-fetch';
import type { ArticleRepo } from '../../models/news/article.repo';
import { normaliseUrl } from '../../models/news/ingest.rules';
import { ITEM_TEXT_MAX, SYNDICATION_WINDOW_MS, type FeedItemDoc, type FeedItemRepo, type ItemPage, type ItemState, type ReportedBy } from '../../models/news/sources/feed-item.repo';
import { FeedParseError, parseFeedDocument } from '../../models/news/sources/feed.rules';
import { extractPage } from '../../models/news/sources/page.rules';
import { isSyndicated, signatureOf, type TextSignature } from '../../models/news/sources/similarity.rules';
import type { SourceRepo } from '../../models/news/sources/source.repo';
import { FLAG_AFTER_FAILURES, pollDelayMs, type IngestOutcome, type PollOutcome, type SourceDoc } from '../../models/news/sources/source.rules';

/** What polling a source uses: the source, the items seen, the feed's site. */
export interface PollDeps {
  sources: Pick<SourceRepo, 'get' | 'recordPoll'>;
  feedItems: Pick<FeedItemRepo, 'addNew'>;
  fetcher: PoliteFetcher;
  now?: () => Date;
}

/** What deciding an item uses: the item, its source, the articles it may be a copy of, its page (kept in MinIO). */
export interface IngestItemDeps {
  sources: Pick<SourceRepo, 'get'>;
  feedItems: Pick<FeedItemRepo, 'get' | 'set' | 'sameUrl' | 'candidates' | 'byArticle' | 'addReport'>;
  articles: Pick<ArticleRepo, 'bySourceKey' | 'addReport'>;
  storage: Storage;
  fetcher: PoliteFetcher;
  now?: () => Date;
}

/** Items taken from one poll at most (a feed listing more gets the rest on the next poll). */
export const ITEMS_PER_POLL = 100;
/** Feed errors kept this long in a source's health. */
const ERROR_MAX = 500;


const short = (text: string) => (text.length > ERROR_MAX ? `${text.slice(0, ERROR_MAX - 1)}…` : text);

/** Polls one source once. Feed faults are recorded as the source's health, not thrown; only infrastructure faults throw. */
export async function pollSource(deps: PollDeps, sourceId: string, random: () => number = Math.random): Promise<PollOutcome> {
  const now = (deps.now ?? (() => new Date()))();
  const { sources } = deps;
  const source = await sources.get(sourceId);
  if (!source) return { state: 'stopped', reason: 'deleted' };
  if (!source.enabled) return { state: 'stopped', reason: 'disabled' };
  const intervalMs = source.pollIntervalMinutes * 60_000;
  let newItemIds: string[] = [];
  let failure: { message: string; retryAfterMs?: number | undefined } | null = null;
  let http: SourceDoc['http'] | undefined;
  let result: 'ok' | 'not-modified' | 'failed' = 'ok';
  try {
    const answer = await deps.fetcher.fetch(source.feedUrl, {
      etag: source.http.etag,
      lastModified: source.http.lastModified,
      accept: 'application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, application/xml;q=0.8, text/xml;q=0.8, */*;q=0.1',
    });
    if (answer.kind === 'not-modified') result = 'not-modified';
    else {
      const feed = parseFeedDocument(answer.body.toString('utf8'), answer.contentType, answer.finalUrl, { maxItems: ITEMS_PER_POLL });
      newItemIds = await deps.feedItems.addNew(sourceId, feed.items, now);
      http = { etag: answer.etag, lastModified: answer.lastModified };
    }
  } catch (err) {
    if (err instanceof FetchError) failure = { message: err.message, retryAfterMs: err.retryAfterMs };
    else if (err instanceof FeedParseError) failure = { message: `the feed could not be read: ${err.message}` };
    else throw err; // the database or MinIO: the activity retries
    result = 'failed';
  }
  const consecutiveFailures = failure ? source.health.consecutiveFailures + 1 : 0;
  const nextPollInMs = pollDelayMs({ intervalMs, consecutiveFailures, retryAfterMs: failure?.retryAfterMs, random: random() });
  await sources.recordPoll(
    sourceId,
    http,
    {
      lastPollAt: now,
      consecutiveFailures,
      nextPollAt: new Date(now.getTime() + nextPollInMs),
      ...(failure ? { lastError: short(failure.message), lastErrorAt: now } : { lastSuccessAt: now }),
    },
    newItemIds.length,
  );
  return { state: 'polled', result, newItemIds, nextPollInMs, consecutiveFailures, error: failure ? short(failure.message) : null };
}

/** A source is flagged once it failed this often in a row (still polled, backed off). */
export const isFlagged = (consecutiveFailures: number) => consecutiveFailures >= FLAG_AFTER_FAILURES;


/** The object key of an item's raw page (a lifecycle rule expires the prefix: ensurePageRetention). */
export const rawPageKey = (item: Pick<FeedItemDoc, 'sourceId' | '_id'>) => `news-pages/${item.sourceId}/${item._id}.html`;

/** Reads the item's page; a page we may not or cannot read leaves the feed's summary. Throws what a retry may cure. */
async function readPage(deps: Pick<IngestItemDeps, 'fetcher' | 'storage'>, item: FeedItemDoc): Promise<ItemPage> {
  const none = (note: string): ItemPage => ({ fetched: false, canonicalUrl: null, subtitle: null, text: null, wordCount: 0, readingTimeMinutes: 0, paywalled: false, publishedAt: null, rawObjectKey: null, note });
  let answer;
  try {
    answer = await deps.fetcher.fetch(item.url, { checkRobots: true, accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1' });
  } catch (err) {
    if (err instanceof FetchError && !retryable(err)) return none(err.message);
    throw err;
  }
  if (answer.kind !== 'ok') return none('the page answered 304 to an unconditional request');
  const html = answer.body.toString('utf8');
  const key = rawPageKey(item);
  await deps.storage.client.putObject(deps.storage.bucket, key, answer.body, answer.body.length, { 'Content-Type': answer.contentType ?? 'text/html' });
  const page = extractPage(html, answer.finalUrl);
  return {
    fetched: true,
    canonicalUrl: page.canonicalUrl,
    subtitle: page.subtitle,
    text: page.paywalled ? null : page.text.slice(0, ITEM_TEXT_MAX),
    wordCount: page.wordCount,
    readingTimeMinutes: page.readingTimeMinutes,
    paywalled: page.paywalled,
    publishedAt: page.publishedAt,
    rawObjectKey: key,
    note: page.paywalled ? 'paywalled or too short: the feed summary is used' : null,
  };
}

/** The text an item is compared and enriched by: the page's main text, else the feed's summary. */
export const itemText = (item: Pick<FeedItemDoc, 'title' | 'summary' | 'page'>): string => [item.title, item.page?.text ?? item.summary ?? ''].join('\n\n');

/**
 * Decides what one new item is. `page: false` skips the page (its fetch kept failing): the feed's
 * summary stands in, so the item is not lost.
 */
export async function ingestItem(deps: IngestItemDeps, itemId: string, opts: { page: boolean }): Promise<IngestOutcome> {
  const now = (deps.now ?? (() => new Date()))();
  const { feedItems: items, articles } = deps;
  const item = await items.get(itemId);
  if (!item) throw new Error(`feed item ${itemId} does not exist`);
  if (item.state !== 'new') return { state: item.state, articleId: item.sameAs ?? item.articleId, enrich: item.state === 'extracted' };
  const source = await deps.sources.get(item.sourceId);
  const page = opts.page ? await readPage(deps, item) : null;
  const withPage = { ...item, page };
  const urlKey = normaliseUrl(page?.canonicalUrl ?? item.url);
  const signature: TextSignature | null = signatureOf(itemText(withPage));
  const report: ReportedBy = { sourceId: item.sourceId, sourceName: source?.name ?? 'unknown', url: page?.canonicalUrl ?? item.url, at: now };

  // The same page as an article (or an item becoming one): one more report of it.
  const sameArticle = await articles.bySourceKey(urlKey);
  const sameItem = sameArticle ? null : await items.sameUrl(urlKey, itemId);
  const first = sameArticle?._id ?? sameItem?.articleId ?? (signature ? await syndicatedOf(deps, itemId, signature, now) : null);
  if (first) {
    const state: ItemState = sameArticle || sameItem ? 'duplicate' : 'syndicated';
    await reportAgain(deps, first, report);
    await items.set(itemId, { state, page, urlKey, simBands: signature?.bands ?? [], signature, sameAs: first }, now);
    return { state, articleId: first, enrich: false };
  }
  // The publication time its article will have (enrich-article.ts publishItem): the editors' list sorts by it.
  const publishedAt = page?.publishedAt ?? item.feedPublishedAt ?? item.seenAt;
  await items.set(itemId, { state: 'extracted', page, urlKey, simBands: signature?.bands ?? [], signature, publishedAt }, now);
  return { state: 'extracted', articleId: item.articleId, enrich: true };
}

/** The article an earlier item of similar text is (the earliest seen), if any. */
async function syndicatedOf(deps: Pick<IngestItemDeps, 'feedItems'>, itemId: string, signature: TextSignature, now: Date): Promise<string | null> {
  const candidates = await deps.feedItems.candidates(signature.bands, itemId, new Date(now.getTime() - SYNDICATION_WINDOW_MS));
  const match = candidates
    .filter((c) => c.signature && isSyndicated(signature, c.signature as TextSignature))
    .sort((a, b) => a.seenAt.getTime() - b.seenAt.getTime() || a._id.localeCompare(b._id))[0];
  return match?.articleId ?? null;
}

/** Adds a report to the first article, or to the item that will become it (copied when it is published). */
async function reportAgain(deps: Pick<IngestItemDeps, 'feedItems' | 'articles'>, articleId: string, report: ReportedBy): Promise<void> {
  const firstItem = await deps.feedItems.byArticle(articleId);
  if (firstItem) await deps.feedItems.addReport(firstItem._id, report);
  await deps.articles.addReport(articleId, report);
}

/** MinIO keeps raw pages NEWS_RAW_PAGE_RETENTION_DAYS days (a lifecycle rule on their prefix). */
export async function ensurePageRetention(storage: Storage, days: number): Promise<void> {
  await storage.client.setBucketLifecycle(storage.bucket, {
    Rule: [{ ID: 'news-raw-pages', Status: 'Enabled', Filter: { Prefix: 'news-pages/' }, Expiration: { Days: days } }],
  });
}
