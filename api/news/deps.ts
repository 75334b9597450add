/**
 * What the news service's routes use, built once per process: the shared bundles it serves
 * (api/shared/bundles.ts: keys, reader, billing and its webhook, WhatsApp and its webhook) and its
 * newsroom (the articles, and the imports, sources and enrichment that feed them).
 */
import { createArticleQueries, type ArticleQueries } from '../../models/news/article-query';
import { createArticleRepo, type ArticleRepo } from '../../models/news/article.repo';
import { createEntityCandidateRepo, type EntityCandidateRepo } from '../../models/news/entity-candidate.repo';
import { createEnrichmentExampleRepo, type EnrichmentExampleRepo } from '../../models/news/enrichment-example.repo';
import { createHiddenArticleRepo, type HiddenArticleRepo } from '../../models/news/hidden-article.repo';
import { createFeedItemRepo, type FeedItemRepo } from '../../models/news/sources/feed-item.repo';
import { createImportRepo, type ImportRepo } from '../../models/news/import.repo';
import { createReenrichmentRepo, type ReenrichmentRepo } from '../../models/news/reenrichment.repo';
import { createSourceRepo, type SourceRepo } from '../../models/news/sources/source.repo';
import { createListTotals } from '../../models/infra/list-totals';
import { createSecretBox, WEBHOOK_SECRETS_INFO } from '../../models/events/secret-box';
import { createWebhookEndpointRepo, type WebhookEndpointRepo } from '../../models/events/webhook-endpoint.repo';
import { createWebhookAttemptRepo, type WebhookAttemptRepo } from '../../models/events/webhook-attempt.repo';
import { createWebhookMessageRepo, type WebhookMessageRepo } from '../../models/events/webhook-message.repo';
import type { Limiter } from '../shared/rate-limit';
import type { Lookup } from '../../models/infra/safe-connect';
import {
  billingBundle,
  billingWebhookBundle,
  keysBundle,
  readerBundle,
  whatsappBundle,
  whatsappWebhookBundle,
  windowLimiter,
  type BillingBundle,
  type BillingWebhookBundle,
  type KeysBundle,
  type ReaderBundle,
  type WhatsAppBundle,
  type WhatsAppWebhookBundle,
} from '../shared/bundles';
import type { Infra } from '../shared/infra';
import { makeNewsStreamDeps, type NewsStreamDeps } from './stream.deps';

/** The articles, and the imports, sources and enrichment that feed them (the news service's own). */
export interface NewsroomBundle {
  articles: ArticleRepo;
  /** Lists, search and the feed. */
  queries: ArticleQueries;
  imports: ImportRepo;
  /** Re-enrichments of the articles a filter matched. */
  reenrichments: ReenrichmentRepo;
  sources: SourceRepo;
  /** The curation queue of names the catalogue lacks. */
  entityCandidates: EntityCandidateRepo;
  /** Articles an editor hid (out of every reader's sight). */
  hiddenArticles: HiddenArticleRepo;
  /** Items of the sources' feeds, before and after they became articles (the editors' list). */
  feedItems: FeedItemRepo;
  /** Editors' corrections kept as labelled examples. */
  enrichmentExamples: EnrichmentExampleRepo;
}

function newsroomBundle(infra: Infra): NewsroomBundle {
  const { conn } = infra.mongo;
  return {
    articles: createArticleRepo(conn),
    queries: createArticleQueries(conn, createListTotals({ maxAgeMs: infra.config.lists.totalMaxAgeMs })),
    imports: createImportRepo(conn),
    reenrichments: createReenrichmentRepo(conn),
    sources: createSourceRepo(conn),
    entityCandidates: createEntityCandidateRepo(conn),
    hiddenArticles: createHiddenArticleRepo(conn),
    feedItems: createFeedItemRepo(conn),
    enrichmentExamples: createEnrichmentExampleRepo(conn),
  };
}

/** Customers' webhook endpoints (issue 40), their secrets sealed under a key derived from WEB_SECRET. */
export interface WebhooksBundle {
  webhookEndpoints: WebhookEndpointRepo;
  /** Resolves endpoints' hosts at registration (tests set a fake; the system's resolver otherwise). */
  webhookLookup?: Lookup;
  /** Messages (replayed, test events made) and the delivery log. */
  webhookMessages: WebhookMessageRepo;
  webhookAttempts: WebhookAttemptRepo;
  /** Replays and test events per account (each sends a request to the customer's endpoint). */
  webhookSendLimiter: Limiter;
}

/** Replays and test events an account may ask for per minute. */
export const WEBHOOK_SENDS_PER_MINUTE = 30;

function webhooksBundle(infra: Infra): WebhooksBundle {
  const { conn } = infra.mongo;
  return {
    webhookEndpoints: createWebhookEndpointRepo(conn, createSecretBox(infra.config.web.secret, WEBHOOK_SECRETS_INFO)),
    webhookMessages: createWebhookMessageRepo(conn),
    webhookAttempts: createWebhookAttemptRepo(conn),
    webhookSendLimiter: windowLimiter(infra, {
      name: 'webhook-sends',
      points: WEBHOOK_SENDS_PER_MINUTE,
      durationSec: 60,
      message: `At most ${WEBHOOK_SENDS_PER_MINUTE} replays and test events per minute per account`,
    }),
  };
}

export interface NewsDeps extends Infra, KeysBundle, ReaderBundle, BillingBundle, BillingWebhookBundle, WhatsAppBundle, WhatsAppWebhookBundle, NewsroomBundle, WebhooksBundle {
  /** The event stream (GET /api/stream): the event log, this process's hub, the per-key stream leases. */
  stream: NewsStreamDeps;
  /** The clock (tests set it). */
  now: () => Date;
}

export function makeNewsDeps(infra: Infra): NewsDeps {
  const billing = billingBundle(infra);
  const whatsapp = whatsappBundle(infra);
  return {
    ...infra,
    ...keysBundle(infra),
    ...readerBundle(infra),
    ...billing,
    ...billingWebhookBundle(infra, billing.billing),
    ...whatsapp,
    ...whatsappWebhookBundle(infra, whatsapp.whatsapp),
    ...newsroomBundle(infra),
    stream: makeNewsStreamDeps(infra),
    ...webhooksBundle(infra),
    now: () => new Date(),
  };
}
