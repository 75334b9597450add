/**
 * Activities of the news workflows: imports (apply one, heartbeating per batch; mark one failed),
 * sources (poll a feed, read an item's page) and enrichment (one article's model call).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Connection } from 'mongoose';
import type { Config } from '../models/config';
import type { Leases } from '../models/infra/leases';
import { LlmError, type LlmClient } from '../models/infra/llm';
import type { PoliteFetcher } from '../models/infra/polite-fetch';
import type { Storage } from '../models/infra/storage';
import { EnrichmentInvalid } from '../models/news/enrichment';
import { createImportRepo } from '../models/news/import.repo';
import { runImport } from '../models/news/ingest';
import { enrichArticle, failEnrichment, type EnrichOutcome } from '../models/news/operations/enrich-article';
import { ingestItem, pollSource, type IngestOutcome, type PollOutcome } from '../models/news/sources/pipeline';

export interface NewsActivityDeps {
  conn: Connection;
  storage: Storage;
  whatsappEnabled?: boolean;
  /** Sources and enrichment (absent in the import-only tests). */
  fetcher?: PoliteFetcher;
  llm?: LlmClient;
  leases?: Leases;
  config?: Pick<Config, 'news'>;
}

const need = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw ApplicationFailure.create({ type: 'WorkerMisconfigured', message: `this worker has no ${what}`, nonRetryable: true });
  return value;
};

export function createNewsActivities(deps: NewsActivityDeps) {
  const imports = createImportRepo(deps.conn);
  return {
    async applyImport(importId: string): Promise<{ inserted: number; duplicates: number; invalid: number }> {
      const record = await imports.get(importId);
      if (!record) throw ApplicationFailure.create({ type: 'ImportUnusable', message: `import ${importId} does not exist`, nonRetryable: true });
      const counts = await runImport({ ...deps, onBatch: (c) => Context.current().heartbeat(c) }, importId).catch((err: { code?: string }) => {
        if (err.code === 'NoSuchKey') throw ApplicationFailure.create({ type: 'ImportUnusable', message: `the staged file of import ${importId} is gone`, nonRetryable: true });
        throw err;
      });
      return { inserted: counts.inserted, duplicates: counts.duplicates, invalid: counts.invalid };
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
      return await pollSource({ conn: deps.conn, storage: deps.storage, fetcher: need(deps.fetcher, 'fetcher') }, sourceId);
    },
    /** Reads one new item's page (or, with page false, keeps its feed summary) and decides what it is. */
    async ingestItem(itemId: string, opts: { page: boolean }): Promise<IngestOutcome> {
      return await ingestItem({ conn: deps.conn, storage: deps.storage, fetcher: need(deps.fetcher, 'fetcher') }, itemId, opts);
    },
    /**
     * Enriches one article. The provider's 429/5xx and timeouts are retried by Temporal, after the
     * provider's Retry-After when it gave one; a refused request and answers that never validated
     * are not.
     */
    async enrichArticle(articleId: string): Promise<EnrichOutcome> {
      try {
        return await enrichArticle({ conn: deps.conn, llm: need(deps.llm, 'AI provider'), leases: need(deps.leases, 'leases'), config: need(deps.config, 'configuration') }, articleId);
      } catch (err) {
        if (err instanceof EnrichmentInvalid) throw ApplicationFailure.create({ type: 'EnrichmentInvalid', message: err.message, nonRetryable: true });
        if (err instanceof LlmError) {
          if (!err.retryable) throw ApplicationFailure.create({ type: 'ProviderRejected', message: `the AI provider refused the request (${err.kind}): ${err.message}`, nonRetryable: true });
          throw ApplicationFailure.create({
            type: 'ProviderUnavailable',
            message: `the AI provider is unavailable (${err.kind})`,
            ...(err.options.retryAfterMs ? { nextRetryDelay: err.options.retryAfterMs } : {}),
          });
        }
        throw err;
      }
    },
    async failEnrichment(articleId: string, error: string): Promise<void> {
      await failEnrichment(deps.conn, articleId, error);
    },
    /** Whether breaking articles alert WhatsApp readers on this deployment. */
    async alertsEnabled(): Promise<boolean> {
      return deps.whatsappEnabled === true;
    },
  };
}
