/**
 * The activities the news workflows call (import, source, enrich, re-enrich): their contract,
 * declared here so that the workflows import nothing of the activities' code. The worker's
 * implementation is `createNewsActivities` (activities/news.activities.ts).
 */
import type { DigestPageResult, DueHour } from '../../models/news/digest.rules';
import type { EnrichOutcome } from '../../models/news/enrichment.rules';
import type { ReenrichChunkInput, ReenrichChunkResult } from '../../models/news/reenrich.rules';
import type { IngestOutcome, PollOutcome } from '../../models/news/sources/source.rules';

/**
 * What enriching an article answers the workflow: an enriched article also says whether alerts
 * are on, so that breaking news starts without an activity of their own (runs started before this
 * ask `alertsEnabled`).
 */
export type EnrichActivityOutcome = EnrichOutcome | (Extract<EnrichOutcome, { state: 'enriched' }> & { alertsEnabled: boolean });

export interface NewsActivities {
  applyImport(importId: string): Promise<{ inserted: number; duplicates: number; invalid: number }>;
  breakingOfImport(importId: string): Promise<{ articleIds: string[]; whatsapp: boolean }>;
  enrichmentsOfImport(importId: string): Promise<string[]>;
  failImport(importId: string, message: string): Promise<void>;
  pollSource(sourceId: string): Promise<PollOutcome>;
  ingestItem(itemId: string, opts: { page: boolean }): Promise<IngestOutcome>;
  enrichArticle(articleId: string): Promise<EnrichActivityOutcome>;
  failEnrichment(articleId: string, error: string): Promise<void>;
  reenrichChunk(input: ReenrichChunkInput): Promise<ReenrichChunkResult>;
  finishReenrichment(input: { operationId: string; state: 'completed' | 'cancelled' | 'failed'; error: string | null }): Promise<void>;
  alertsEnabled(): Promise<boolean>;
}

/**
 * The activities of breaking alerts on every channel (newsAlertsWorkflow, queue `news-notify`):
 * who is told on which channel, a page at a time, and each channel's batch. WhatsApp's batch is
 * the WhatsApp alerts' own `sendAlerts` (its hourly cap and templates), served on this queue too.
 */
export interface NewsAlertActivities {
  alertAudience(input: { articleId: string; after: string | null; limit: number }): Promise<{
    title: string | null;
    /** Absent in histories recorded before push alerts. */
    push?: { userId: string; language: 'pt' | 'en' }[];
    whatsapp: { userId: string; phone: string; inWindow: boolean }[];
    email: { userId: string; to: string; language: 'pt' | 'en' }[];
    next: string | null;
  }>;
  sendMailAlerts(input: { articleId: string; recipients: { userId: string; to: string; language: 'pt' | 'en' }[] }): Promise<{ sent: number; failed: number; skipped: number }>;
  sendAlerts(input: { articleId: string; title: string; recipients: { phone: string; inWindow: boolean }[] }): Promise<{ sent: number; capped: number; refused: number }>;
  sendPushAlerts(input: { articleId: string; recipients: { userId: string; language: 'pt' | 'en' }[] }): Promise<{ sent: number; gone: number; refused: number; skipped: number; unsubscribed: number }>;
}

/**
 * The daily digest's activities (newsDigestWorkflow, queue `news-notify`): the hours due at a
 * slot, and a page of due readers mailed. Dates travel as ISO strings.
 */
export interface NewsDigestActivities {
  digestDue(input: { slot: string }): Promise<DueHour[]>;
  sendDigestPage(input: { slot: string; due: DueHour[]; after: string | null; limit: number }): Promise<DigestPageResult>;
}
