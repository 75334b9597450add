/**
 * Activities of the news workflows: imports (apply one, heartbeating per batch; mark one failed),
 * sources (poll a feed, read an item's page), enrichment (one article's model call) and
 * re-enrichment (a chunk of an operation's articles, one model call each; mark the operation ended).
 * The use cases are the news operations (operations/news: the pipeline, the import runner,
 * enrichment); an activity gives them the worker's repositories, built once here, and
 * keeps what is Temporal's: heartbeats, the attempt's end, and errors as ApplicationFailures.
 *
 * The import, an enrichment and a re-enrichment chunk run with their attempt's signal
 * (activities/attempt.ts): an attempt cancelled, or abandoned by the server after a timeout,
 * stops its database work and model calls instead of running on beside the next attempt.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Connection } from 'mongoose';
import type { Config } from '../models/config';
import type { Leases } from '../models/infra/leases';
import { LlmError, type LlmClient } from '../models/infra/llm';
import type { PoliteFetcher } from '../models/infra/polite-fetch';
import type { Storage } from '../models/infra/storage';
import { createArticleRepo } from '../models/news/article.repo';
import { createEventLogRepo } from '../models/events/event-log.repo';
import { temporalWebhookStarts } from '../operations/events/webhook-fanout';
import { createEnrichmentUsageRepo } from '../models/news/enrichment-usage.repo';
import { createEntityCandidateRepo } from '../models/news/entity-candidate.repo';
import { cachedEntityCatalogue, loadDictionary } from '../models/news/entity-catalogue';
import { createImportRepo } from '../models/news/import.repo';
import { runImport } from '../operations/news/ingest';
import type { EnrichOutcome } from '../models/news/enrichment.rules';
import { enrichArticle, failEnrichment, finalEnrichmentError, type EnrichDeps } from '../operations/news/enrich-article';
import { reenrichChunk } from '../operations/news/reenrich-chunk';
import { createReenrichmentRepo } from '../models/news/reenrichment.repo';
import type { ReenrichChunkInput, ReenrichChunkResult } from '../models/news/reenrich.rules';
import { createFeedItemRepo } from '../models/news/sources/feed-item.repo';
import { ingestItem, pollSource } from '../operations/news/pipeline';
import type { IngestOutcome, PollOutcome } from '../models/news/sources/source.rules';
import { createSourceRepo } from '../models/news/sources/source.repo';
import { withAttempt } from './attempt';
import type { EnrichActivityOutcome, NewsActivities } from '../workflows/news/activities';

export interface NewsActivityDeps {
  conn: Connection;
  storage: Storage;
  whatsappEnabled?: boolean;
  /** Sources and enrichment (absent in the import-only tests). */
  fetcher?: PoliteFetcher;
  llm?: LlmClient;
  leases?: Leases;
  config?: Pick<Config, 'news'>;
  /** The deployment's task queue prefix: published articles' webhook fan-outs start on its news-webhooks queue (absent: none start; the relay's). */
  taskQueuePrefix?: string;
}

const need = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw ApplicationFailure.create({ type: 'WorkerMisconfigured', message: `this worker has no ${what}`, nonRetryable: true });
  return value;
};

/**
 * An enrichment's error as Temporal should see it: answers that never validated and refused
 * requests are final (not retried); the provider's 429, 5xx and timeouts are retried, after its
 * Retry-After when it gave one; anything else (the database away) is retried as it is.
 */
function enrichmentFailure(err: unknown): unknown {
  const final = finalEnrichmentError(err);
  if (final) return ApplicationFailure.create({ type: final.type, message: final.message, nonRetryable: true });
  if (err instanceof LlmError) {
    return ApplicationFailure.create({
      type: 'ProviderUnavailable',
      message: `the AI provider is unavailable (${err.kind})`,
      ...(err.options.retryAfterMs ? { nextRetryDelay: err.options.retryAfterMs } : {}),
    });
  }
  return err;
}


/** While the article is being enriched, the chunk heartbeats this often (its position, unchanged). */
const HEARTBEAT_MS = 5_000;

/** The worker's repositories, built once per worker from its connection. */
function newsRepos(conn: Connection) {
  return {
    imports: createImportRepo(conn),
    reenrichments: createReenrichmentRepo(conn),
    sources: createSourceRepo(conn),
    feedItems: createFeedItemRepo(conn),
    articles: createArticleRepo(conn),
    events: createEventLogRepo(conn),
    enrichmentUsage: createEnrichmentUsageRepo(conn),
    entityCandidates: createEntityCandidateRepo(conn),
    // One copy of the entity catalogue per worker, read again after a minute (entity-catalogue.ts).
    catalogue: cachedEntityCatalogue(conn),
    dictionary: (signal?: AbortSignal) => loadDictionary(conn, signal),
  };
}

export function createNewsActivities(deps: NewsActivityDeps): NewsActivities {
  const repos = {
    ...newsRepos(deps.conn),
    // A published article's webhooks fan out at once (issue 40), with this activity's Temporal client.
    webhookFanOut: deps.taskQueuePrefix === undefined ? undefined : async (keys: readonly string[]) => await temporalWebhookStarts(Context.current().client, deps.taskQueuePrefix!).fanOut(keys),
  };
  const { imports, reenrichments } = repos;
  const enrichDeps = (): EnrichDeps => ({ ...repos, llm: need(deps.llm, 'AI provider'), leases: need(deps.leases, 'leases'), config: need(deps.config, 'configuration') });
  const pipelineDeps = () => ({ ...repos, storage: deps.storage, fetcher: need(deps.fetcher, 'fetcher') });
  return {
    /** Applies an import batch by batch (heartbeating each), stopping between batches once the attempt is over. */
    async applyImport(importId: string): Promise<{ inserted: number; duplicates: number; invalid: number }> {
      return await withAttempt(async (attempt) => {
        const record = await imports.get(importId);
        if (!record) throw ApplicationFailure.create({ type: 'ImportUnusable', message: `import ${importId} does not exist`, nonRetryable: true });
        const counts = await runImport({ ...repos, storage: deps.storage, onBatch: (c) => attempt.heartbeat(c), signal: attempt.signal }, importId).catch((err: { code?: string }) => {
          if (err.code === 'NoSuchKey') throw ApplicationFailure.create({ type: 'ImportUnusable', message: `the staged file of import ${importId} is gone`, nonRetryable: true });
          throw err;
        });
        return { inserted: counts.inserted, duplicates: counts.duplicates, invalid: counts.invalid };
      });
    },
    /** The breaking articles the import inserted, and whether WhatsApp alerts are sent on this deployment. */
    async breakingOfImport(importId: string): Promise<{ articleIds: string[]; whatsapp: boolean }> {
      const record = await imports.get(importId);
      return { articleIds: record?.breakingIds ?? [], whatsapp: deps.whatsappEnabled === true };
    },
    /** The articles the import inserted whose lines asked to be enriched. */
    async enrichmentsOfImport(importId: string): Promise<string[]> {
      return (await imports.get(importId))?.enrichIds ?? [];
    },
    async failImport(importId: string, message: string): Promise<void> {
      await imports.finish(importId, 'failed', new Date(), message);
    },

    /** Polls one source's feed once; feed faults are the source's health, not failures. */
    async pollSource(sourceId: string): Promise<PollOutcome> {
      return await pollSource(pipelineDeps(), sourceId);
    },
    /** Reads one new item's page (or, with page false, keeps its feed summary) and decides what it is. */
    async ingestItem(itemId: string, opts: { page: boolean }): Promise<IngestOutcome> {
      return await ingestItem(pipelineDeps(), itemId, opts);
    },
    /**
     * Enriches one article. The provider's 429/5xx and timeouts are retried by Temporal, after the
     * provider's Retry-After when it gave one; a refused request and answers that never validated
     * are not.
     */
    async enrichArticle(articleId: string): Promise<EnrichActivityOutcome> {
      return await withAttempt(async ({ signal }) => {
        let outcome: EnrichOutcome;
        try {
          outcome = await enrichArticle({ ...enrichDeps(), signal }, articleId);
        } catch (err) {
          signal.throwIfAborted(); // cut short by the attempt's end, not a provider's answer
          throw enrichmentFailure(err);
        }
        return outcome.state === 'enriched' ? { ...outcome, alertsEnabled: deps.whatsappEnabled === true } : outcome;
      });
    },
    async failEnrichment(articleId: string, error: string): Promise<void> {
      await failEnrichment(repos, articleId, error);
    },

    /**
     * Enriches again a chunk of a re-enrichment's articles (operations/news/reenrich-chunk.ts),
     * from where an earlier attempt stopped (its heartbeat). A provider outage fails the call,
     * which Temporal retries (after the provider's Retry-After when it gave one).
     */
    async reenrichChunk(input: ReenrichChunkInput): Promise<ReenrichChunkResult> {
      return await withAttempt(async (attempt) => {
        const { signal } = attempt;
        const resumeAt = Context.current().info.heartbeatDetails as number | undefined;
        const chunk = { reenrichments, enrich: (articleId: string) => enrichArticle({ ...enrichDeps(), signal }, articleId) };
        // While an article is being enriched, the chunk heartbeats every HEARTBEAT_MS (its position, unchanged).
        const beating = { signal, heartbeat: (at: number) => attempt.heartbeat(at), keepBeating: () => attempt.keepBeating(HEARTBEAT_MS) };
        return await reenrichChunk(chunk, { ...input, resumeAt }, beating).catch((err: unknown) => {
          throw enrichmentFailure(err);
        });
      });
    },
    async finishReenrichment(input: { operationId: string; state: 'completed' | 'cancelled' | 'failed'; error: string | null }): Promise<void> {
      await reenrichments.finish(input.operationId, input.state, new Date(), input.error);
    },

    /**
     * Whether breaking articles alert WhatsApp readers on this deployment. Enrichment runs now read
     * it from enrichArticle's answer; kept for the runs that started before (their histories ask).
     */
    async alertsEnabled(): Promise<boolean> {
      return deps.whatsappEnabled === true;
    },
  };
}
