/**
 * The News API's contracts: the views its routes answer with and the bodies they take that another
 * service reuses (the dashboard, api/web), each registered with an id so that the OpenAPI
 * documents name it once (`components.schemas`) and refer to it everywhere. Routes import their
 * views from here; other services import them from here too, never from a route file.
 */
import { z } from 'zod';
import { SUBSCRIPTION_STATUSES } from '../../models/billing/subscription.rules';
import type { ApiKeyDoc } from '../../models/news/api-key.model';
import { KEY_MODES, KEY_SCOPES, keyStatus } from '../../models/news/api-key.rules';
import { SECTORS, TOPICS } from '../../models/news/article.rules';
import { keyAlreadyCreated } from '../../operations/news/api-keys';
import { PLANS } from '../../models/shared/plan.rules';
import { NotificationSettings, PREFERENCE_LIMITS, RelevanceSettings } from '../../models/news/preferences.rules';
import { Count, IsoDateTime, Text, Uuid } from '../shared/views';

// ---- API keys ----------------------------------------------------------------------------------

export const KeyView = z
  .object({
    id: Uuid,
    name: Text(100),
    prefix: Text(32).describe('the first characters of the key, enough to recognise it, never to use it'),
    mode: z.enum(KEY_MODES),
    scopes: z.array(z.enum(KEY_SCOPES)).max(KEY_SCOPES.length),
    expiresAt: IsoDateTime.nullable(),
    lastUsedAt: IsoDateTime.nullable(),
    status: z.enum(['active', 'expired', 'revoked']),
    createdAt: IsoDateTime,
  })
  .meta({ id: 'ApiKey' });

/** A key just made: its record and, this once, the key itself. */
export const NewKeyView = KeyView.extend({ key: Text(128) }).meta({ id: 'NewApiKey' });

export const presentKey = (k: ApiKeyDoc): z.input<typeof KeyView> => ({
  id: k.keyId,
  name: k.name,
  prefix: k.displayPrefix,
  mode: k.mode,
  scopes: k.scopes,
  expiresAt: k.expiresAt?.toISOString() ?? null,
  lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  status: keyStatus(k),
  createdAt: k.createdAt.toISOString(),
});

export const CreateKey = z.strictObject({
  name: z.string().max(100).trim().min(1),
  expiry: z
    .string()
    .max(10)
    .default('none')
    .describe('none, 30d, 90d, 1y, or a date YYYY-MM-DD (the key expires at the end of that day, UTC)'),
  scopes: z.array(z.enum(KEY_SCOPES)).max(KEY_SCOPES.length).optional().describe('read:articles, read:entities, read:breaking or *; none given means *'),
  mode: z.enum(KEY_MODES).default('live').describe('live keys count against the monthly quota; test keys do not'),
});

/** A key's creation under an Idempotency-Key: its answer holds the secret, so a repeat gets 409 naming the key instead. */
export const keyCreationOnce = { secretAnswer: (data: { id: string; name: string; prefix: string }) => keyAlreadyCreated({ keyId: data.id, name: data.name, displayPrefix: data.prefix }) };

// ---- Usage --------------------------------------------------------------------------------------

const Window = z.object({ limit: Count.nullable(), used: Count, remaining: Count.nullable(), resetsAt: IsoDateTime });

export const KeyUsageView = z
  .object({
    plan: Text(32).describe('the plan name (Starter, Pro, Business)'),
    key: z.object({ id: Uuid, mode: z.enum(KEY_MODES), countedMonthly: z.boolean() }),
    minute: Window.describe('the account, all keys together'),
    month: Window.describe('live keys'),
    sandbox: Window.describe('test keys, today (UTC)'),
  })
  .meta({ id: 'KeyUsage' });

// ---- Preferences --------------------------------------------------------------------------------

/** What a user follows: the bounds are those every edit is validated with (models/news/preferences.rules.ts). */
const codes = (all: readonly string[]) => z.array(z.string().max(8)).max(all.length);
const weightsBy = (keyLength: number) => z.record(z.string().max(keyLength), z.number().min(0).max(5));
const Watchlist = { watchlistCompanies: z.array(z.string().max(36)).max(PREFERENCE_LIMITS.watchlist), watchlistTickers: z.array(z.string().max(8)).max(PREFERENCE_LIMITS.watchlist) };
const Keywords = { keywords: z.array(z.string().max(PREFERENCE_LIMITS.keywordLength)).max(PREFERENCE_LIMITS.keywords), keywordWeights: weightsBy(PREFERENCE_LIMITS.keywordLength) };

export const PreferencesView = z
  .object({
    sectors: codes(SECTORS),
    sectorWeights: weightsBy(8),
    topics: codes(TOPICS),
    topicWeights: weightsBy(8),
    ...Watchlist,
    ...Keywords,
    notificationSettings: NotificationSettings,
    relevanceSettings: RelevanceSettings,
  })
  .meta({ id: 'Preferences' });

export const FollowedSectorsView = z.object({ sectors: codes(SECTORS), sectorWeights: weightsBy(8) }).meta({ id: 'FollowedSectors' });
export const FollowedTopicsView = z.object({ topics: codes(TOPICS), topicWeights: weightsBy(8) }).meta({ id: 'FollowedTopics' });
export const WatchlistView = z.object(Watchlist).meta({ id: 'Watchlist' });
export const KeywordsView = z.object(Keywords).meta({ id: 'Keywords' });
export const NotificationSettingsView = NotificationSettings.meta({ id: 'NotificationSettings' });
export const RelevanceSettingsView = RelevanceSettings.meta({ id: 'RelevanceSettings' });

// ---- Billing ------------------------------------------------------------------------------------

/** Stripe ids are at most 255 characters, its other strings at most 5,000 (Stripe's API reference). */
export const StripeId = Text(255);

export const SubscriptionView = z
  .object({
    customerId: StripeId.nullable(),
    subscriptionId: StripeId.nullable(),
    status: z.enum([...SUBSCRIPTION_STATUSES, 'none']).describe("Stripe's status of the subscription; none before the first one"),
    plan: z.enum(PLANS).describe('the plan the account has now'),
    subscribedPlan: z.enum(PLANS).nullable().describe('the plan paid for'),
    currentPeriodEnd: IsoDateTime.nullable(),
    cancelAtPeriodEnd: z.boolean(),
    graceEndsAt: IsoDateTime.nullable().describe('while past_due: when the account drops to Starter unless a payment succeeds'),
    lastPaymentFailure: z
      .object({ at: IsoDateTime, invoiceId: StripeId, attemptCount: Count, nextAttemptAt: IsoDateTime.nullable(), message: Text(5_000).nullable() })
      .nullable(),
    eventsApplied: Count,
    asOf: IsoDateTime.nullable().describe("Stripe's time of the newest event applied"),
  })
  .meta({ id: 'Subscription' });

export const CheckoutSessionView = z.object({ sessionId: StripeId, url: Text(5_000) }).meta({ id: 'CheckoutSession' });
export const PortalSessionView = z.object({ url: Text(5_000) }).meta({ id: 'PortalSession' });

export const StripeWebhookAnswer = z
  .object({
    received: z.literal(true),
    eventId: StripeId,
    duplicate: z.boolean().describe('the event was delivered before'),
    handled: z.boolean().describe('the event was handed to the subscription workflow (false: a type or object billing does not use)'),
  })
  .meta({ id: 'StripeWebhookAnswer' });

// ---- WhatsApp -----------------------------------------------------------------------------------

export const WhatsAppDeliveryAnswer = z
  .object({
    received: z.literal(true),
    messages: z.number().int().describe('messages in the delivery'),
    duplicates: z.number().int().describe('of them, delivered before'),
    statuses: z.number().int().describe('delivery statuses stored'),
  })
  .meta({ id: 'WhatsAppDeliveryAnswer' });

export const WhatsAppStatusView = z.object({ configured: z.boolean(), phoneNumberId: z.string().max(64), flowConfigured: z.boolean() }).meta({ id: 'WhatsAppStatus' });

export const PhoneLinkCode = z.strictObject({ code: z.string().length(6).regex(/^\d{6}$/, 'the 6-digit code') });
export const PhoneLinkedView = z.object({ linked: z.literal(true), phone: z.string().max(32).describe('the phone, masked') }).meta({ id: 'PhoneLinked' });
