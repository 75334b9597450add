/**
 * The capabilities the API services are composed of, each defined once here and built by the
 * services that serve it, once per process. A service's deps (api/<service>/deps.ts) are the
 * infrastructure, the bundles its routes use and what it alone has, so no process builds what it
 * never serves:
 *
 *   news     keys, reader, billing, billing webhook, WhatsApp, WhatsApp webhook, webhooks (+ its newsroom)
 *   web      keys, reader, billing, WhatsApp, quiz, webhooks (+ its accounts and sign-in)
 *   quiz     quiz (+ its AI services)
 *   support  (its tickets and reports)
 *
 * Bundles are flat: their members sit side by side in the deps, under the names the use cases
 * (operations/<domain>) take them by.
 */
import type Stripe from 'stripe';
import { createBillingRepo, type BillingRepo } from '../../models/billing/billing.repo';
import { createEventRelay, type EventRelay } from '../../operations/billing/relay-events';
import type { BillingEvent } from '../../models/billing/subscription.rules';
import { createHandOver, type HandOver } from '../../models/infra/hand-over';
import { createStripe } from '../../models/infra/stripe';
import { createApiKeyRepo, type ApiKeyRepo } from '../../models/news/api-key.repo';
import { createSecretBox, WEBHOOK_SECRETS_INFO } from '../../models/events/secret-box';
import { createWebhookEndpointRepo, type WebhookEndpointRepo } from '../../models/events/webhook-endpoint.repo';
import { createWebhookAttemptRepo, type WebhookAttemptRepo } from '../../models/events/webhook-attempt.repo';
import { createWebhookMessageRepo, type WebhookMessageRepo } from '../../models/events/webhook-message.repo';
import type { Lookup } from '../../models/infra/safe-connect';
import type { WebhookEndpointDeps } from '../../operations/events/webhook-endpoints';
import type { WebhookDeliveryDeps } from '../../operations/events/webhook-delivery';
import { temporalWebhookStarts } from '../../operations/events/webhook-fanout';
import { createEntityRepo, type EntityRepo } from '../../models/news/entity.repo';
import { PLANS, type Plan } from '../../models/shared/plan.rules';
import { createPreferencesRepo, type PreferencesRepo } from '../../models/news/preferences.repo';
import { createUsageRepo, type UsageRepo } from '../../models/news/usage.repo';
import { createAttemptRepo } from '../../models/quiz/attempt.repo';
import { createEditionRepo } from '../../models/quiz/edition.repo';
import type { QuizStore } from '../../operations/quiz/reader-days';
import { createQuizRepo } from '../../models/quiz/quiz.repo';
import { createReadDaysRepo } from '../../models/quiz/read-days.repo';
import { createReadingRepo } from '../../models/quiz/reading.repo';
import { createUserRepo, type UserRepo } from '../../models/users/user.repo';
import { createInboundRelay, type InboundRef, type InboundRelay } from '../../operations/whatsapp/relay-messages';
import { createWhatsAppRepo, type WhatsAppRepo } from '../../models/whatsapp/whatsapp.repo';
import type { Infra } from './infra';
import { createMongoLimiter, type Limiter } from './rate-limit';

/** A limiter of `points` per window of `durationSec`, kept in MongoDB (shared by the service's processes). */
export function windowLimiter(infra: Pick<Infra, 'config' | 'mongo'>, options: { name: string; points: number; durationSec: number; message: string }): Limiter {
  return createMongoLimiter(infra.mongo.ready, infra.config.mongo.db, { ...options, syncMs: infra.config.rateLimit.syncMs });
}

/** API keys and what limits them: the keys, their accounts, their counted use, and each plan's per-minute limiter. */
export interface KeysBundle {
  apiKeys: ApiKeyRepo;
  users: UserRepo;
  usage: UsageRepo;
  /** Requests per minute per account (all its keys together), by the account's plan. */
  accountLimiters: Record<Plan, Limiter>;
}

export function keysBundle(infra: Infra): KeysBundle {
  const { conn } = infra.mongo;
  const perMinute = infra.config.news.perMinute;
  return {
    apiKeys: createApiKeyRepo(conn, { cacheMs: infra.config.news.keyCacheMs }),
    users: createUserRepo(conn),
    usage: createUsageRepo(conn),
    accountLimiters: Object.fromEntries(
      PLANS.map((plan) => [
        plan,
        windowLimiter(infra, {
          name: `news-account-${plan}`,
          points: perMinute[plan],
          durationSec: 60,
          message: `Rate limit exceeded: ${perMinute[plan]} requests per minute per account on this plan, all its keys together`,
        }),
      ]),
    ) as Record<Plan, Limiter>,
  };
}

/** A reader's preferences, and the entity catalogue they follow companies from. */
export interface ReaderBundle {
  preferences: PreferencesRepo;
  entities: EntityRepo;
}

export function readerBundle(infra: Infra): ReaderBundle {
  return { preferences: createPreferencesRepo(infra.mongo.conn), entities: createEntityRepo(infra.mongo.conn) };
}

/** Subscriptions: the accounts' billing records and Stripe. */
export interface BillingBundle {
  billing: BillingRepo;
  /** Undefined when no Stripe key is configured (billing answers 503). */
  stripe: Stripe | undefined;
}

export function billingBundle(infra: Infra): BillingBundle {
  return { billing: createBillingRepo(infra.mongo.conn), stripe: createStripe(infra.config) };
}

/** Temporal calls a webhook's hand-over makes at once, per API process (docs/benchmarks.md). */
const HAND_OVER_CONCURRENCY = 8;

const handOverOptions = (infra: Infra) => ({
  concurrency: HAND_OVER_CONCURRENCY,
  deadlineMs: 5_000,
  withDeadline: <R>(deadline: number, fn: () => Promise<R>) => infra.temporal.connection.withDeadline(deadline, fn),
});

/** Stripe's webhook: what hands its verified events to their subscription workflows. */
export interface BillingWebhookBundle {
  /** Hands verified Stripe events to their subscription workflows. */
  relay: EventRelay;
  /** The webhook's hand-over queue (a few Temporal calls at a time). */
  handOver: HandOver<BillingEvent>;
}

export function billingWebhookBundle(infra: Infra, billing: BillingRepo): BillingWebhookBundle {
  const relay = createEventRelay({ client: infra.temporal.client, config: infra.config, billing });
  return {
    relay,
    handOver: createHandOver<BillingEvent>((event) => relay.forward(event), {
      ...handOverOptions(infra),
      onError: (event, err) => infra.logger.warn({ eventId: event.id, err: (err as Error).message }, 'stripe event not handed to its workflow yet; the relay will'),
    }),
  };
}

/** WhatsApp: phones, their accounts and messages. */
export interface WhatsAppBundle {
  whatsapp: WhatsAppRepo;
}

export function whatsappBundle(infra: Infra): WhatsAppBundle {
  return { whatsapp: createWhatsAppRepo(infra.mongo.conn) };
}

/** WhatsApp's webhook: what hands stored messages to their phone's conversation workflow. */
export interface WhatsAppWebhookBundle {
  /** Hands stored WhatsApp messages to their phone's conversation workflow. */
  whatsappRelay: InboundRelay;
  /** The WhatsApp webhook's hand-over queue. */
  whatsappHandOver: HandOver<InboundRef>;
}

export function whatsappWebhookBundle(infra: Infra, whatsapp: WhatsAppRepo): WhatsAppWebhookBundle {
  const whatsappRelay = createInboundRelay({ client: infra.temporal.client, config: infra.config, whatsapp });
  return {
    whatsappRelay,
    whatsappHandOver: createHandOver<InboundRef>((m) => whatsappRelay.forward(m), {
      ...handOverOptions(infra),
      onError: (m, err) => infra.logger.warn({ messageId: m.id, err: (err as Error).message }, 'whatsapp message not handed to its conversation yet; the relay will'),
    }),
  };
}

/** Editions, readings, quizzes and reading streaks. */
export interface QuizBundle {
  quiz: QuizStore;
}

export function quizBundle(infra: Infra): QuizBundle {
  const { conn } = infra.mongo;
  return {
    quiz: {
      editions: createEditionRepo(conn),
      readings: createReadingRepo(conn),
      quizzes: createQuizRepo(conn),
      attempts: createAttemptRepo(conn),
      readDays: createReadDaysRepo(conn),
      now: () => new Date(),
    },
  };
}

/**
 * Customers' webhook endpoints (issue 40), their secrets sealed under a key derived from
 * WEB_SECRET: managed by the news API (API keys) and by the dashboard (the session), through the
 * same use cases (operations/events/webhook-endpoints.ts).
 */
export interface WebhooksBundle {
  webhookEndpoints: WebhookEndpointRepo;
  /** Resolves endpoints' hosts at registration (tests set a fake; the system's resolver otherwise). */
  webhookLookup?: Lookup;
  /** Messages (replayed, test events made) and the delivery log. */
  webhookMessages: WebhookMessageRepo;
  webhookAttempts: WebhookAttemptRepo;
  /** Replays and test events per account (each sends a request to the customer's endpoint), whichever door they come through. */
  webhookSendLimiter: Limiter;
}

/** Replays and test events an account may ask for per minute. */
export const WEBHOOK_SENDS_PER_MINUTE = 30;

export function webhooksBundle(infra: Infra): WebhooksBundle {
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

/** The ports of the endpoints' use cases, from a service's deps: the fetcher's allow-list decides which development hosts are allowed. */
export const webhookEndpointDeps = (deps: WebhooksBundle & Pick<Infra, 'config'> & { now: () => Date }): WebhookEndpointDeps => ({
  webhookEndpoints: deps.webhookEndpoints,
  allowHosts: deps.config.news.fetch.allowHosts,
  lookup: deps.webhookLookup,
  now: deps.now,
});

/** The ports of the delivery log's, replay's and test event's use cases, from a service's deps (the news API's and the dashboard's). */
export const webhookDeliveryDeps = (deps: WebhooksBundle & Pick<Infra, 'config' | 'temporal'> & { now: () => Date }): WebhookDeliveryDeps => ({
  webhookEndpoints: deps.webhookEndpoints,
  webhookMessages: deps.webhookMessages,
  webhookAttempts: deps.webhookAttempts,
  starts: temporalWebhookStarts(deps.temporal.client, deps.config.temporal.taskQueuePrefix),
  now: deps.now,
});
