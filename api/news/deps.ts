/** What the news service's routes use, built once per process. */
import { createApiKeyRepo, type ApiKeyRepo } from '../../models/news/api-key.repo';
import { PLANS, type Plan } from '../../models/news/plan.rules';
import { createArticleQueries, type ArticleQueries } from '../../models/news/article-query';
import { createArticleRepo, type ArticleRepo } from '../../models/news/article.repo';
import { createEntityRepo, type EntityRepo } from '../../models/news/entity.repo';
import { createImportRepo, type ImportRepo } from '../../models/news/import.repo';
import { createReenrichmentRepo, type ReenrichmentRepo } from '../../models/news/reenrichment.repo';
import { createPreferencesRepo, type PreferencesRepo } from '../../models/news/preferences.repo';
import { createUsageRepo, type UsageRepo } from '../../models/news/usage.repo';
import { createUserRepo, type UserRepo } from '../../models/users/user.repo';
import type Stripe from 'stripe';
import { createBillingRepo, type BillingRepo } from '../../models/billing/billing.repo';
import { createEventRelay, type EventRelay } from '../../models/billing/operations/relay-events';
import { createHandOver, type HandOver } from '../../models/infra/hand-over';
import { createListTotals } from '../../models/infra/list-totals';
import type { BillingEvent } from '../../models/billing/subscription.rules';
import { createStripe } from '../../models/infra/stripe';
import { createWhatsAppRepo, type WhatsAppRepo } from '../../models/whatsapp/whatsapp.repo';
import { createInboundRelay, type InboundRef, type InboundRelay } from '../../models/whatsapp/operations/relay-messages';
import type { Infra } from '../shared/infra';
import { createMongoLimiter, type Limiter } from '../shared/rate-limit';

export interface NewsDeps extends Infra {
  apiKeys: ApiKeyRepo;
  users: UserRepo;
  usage: UsageRepo;
  preferences: PreferencesRepo;
  entities: EntityRepo;
  articles: ArticleRepo;
  /** Lists, search and the feed. */
  queries: ArticleQueries;
  imports: ImportRepo;
  /** Re-enrichments of the articles a filter matched. */
  reenrichments: ReenrichmentRepo;
  /** Requests per minute per account (all its keys together), by the account's plan. */
  accountLimiters: Record<Plan, Limiter>;
  billing: BillingRepo;
  /** Hands verified Stripe events to their subscription workflows. */
  relay: EventRelay;
  /** The webhook's hand-over queue (a few Temporal calls at a time). */
  handOver: HandOver<BillingEvent>;
  /** Undefined when no Stripe key is configured (billing answers 503). */
  stripe: Stripe | undefined;
  whatsapp: WhatsAppRepo;
  /** Hands stored WhatsApp messages to their phone's conversation workflow. */
  whatsappRelay: InboundRelay;
  /** The WhatsApp webhook's hand-over queue. */
  whatsappHandOver: HandOver<InboundRef>;
  /** The clock (tests set it). */
  now: () => Date;
}

/** Temporal calls the webhook's hand-over makes at once, per API process (docs/benchmarks.md). */
const HAND_OVER_CONCURRENCY = 8;

export function makeNewsDeps(infra: Infra): NewsDeps {
  const { conn, ready } = infra.mongo;
  const accountLimiters = Object.fromEntries(
    PLANS.map((plan) => [
      plan,
      createMongoLimiter(ready, infra.config.mongo.db, {
        name: `news-account-${plan}`,
        points: infra.config.news.perMinute[plan],
        durationSec: 60,
        syncMs: infra.config.rateLimit.syncMs,
        message: `Rate limit exceeded: ${infra.config.news.perMinute[plan]} requests per minute per account on this plan, all its keys together`,
      }),
    ]),
  ) as Record<Plan, Limiter>;
  const billing = createBillingRepo(conn);
  const whatsapp = createWhatsAppRepo(conn);
  const whatsappRelay = createInboundRelay({ client: infra.temporal.client, config: infra.config, whatsapp });
  const handOverOptions = { concurrency: HAND_OVER_CONCURRENCY, deadlineMs: 5_000, withDeadline: <R>(deadline: number, fn: () => Promise<R>) => infra.temporal.connection.withDeadline(deadline, fn) };
  const relay = createEventRelay({ client: infra.temporal.client, config: infra.config, billing });
  return {
    ...infra,
    apiKeys: createApiKeyRepo(conn, { cacheMs: infra.config.news.keyCacheMs }), users: createUserRepo(conn), usage: createUsageRepo(conn), preferences: createPreferencesRepo(conn), entities: createEntityRepo(conn),
    articles: createArticleRepo(conn),
    queries: createArticleQueries(conn, createListTotals({ maxAgeMs: infra.config.lists.totalMaxAgeMs })),
    imports: createImportRepo(conn),
    reenrichments: createReenrichmentRepo(conn),
    accountLimiters,
    billing,
    relay,
    handOver: createHandOver<BillingEvent>((event) => relay.forward(event), {
      ...handOverOptions,
      onError: (event, err) => infra.logger.warn({ eventId: event.id, err: (err as Error).message }, 'stripe event not handed to its workflow yet; the relay will'),
    }),
    stripe: createStripe(infra.config),
    whatsapp,
    whatsappRelay,
    whatsappHandOver: createHandOver<InboundRef>((m) => whatsappRelay.forward(m), {
      ...handOverOptions,
      onError: (m, err) => infra.logger.warn({ messageId: m.id, err: (err as Error).message }, 'whatsapp message not handed to its conversation yet; the relay will'),
    }),
    now: () => new Date(),
  };
}
