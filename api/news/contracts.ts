/**
 * The News API's contracts: the views its routes answer with and the requests they take (bodies,
 * query strings, path parameters), each registered with an id so that the OpenAPI documents name
 * it once (`components.schemas`) and refer to it everywhere. Routes import them from here; another
 * service (the dashboard, api/web) imports them from here too, never from a route file.
 */
import { z } from 'zod';
import { SUBSCRIPTION_STATUSES } from '../../models/billing/subscription.rules';
import type { ApiKeyDoc } from '../../models/news/api-key.model';
import { KEY_MODES, KEY_SCOPES, keyStatus } from '../../models/news/api-key.rules';
import { CONTENT_TYPES, ENRICHMENT_STATES, ENTITY_TYPES, LANGUAGES, MODULE_FIELDS, MODULE_SCHEMAS, modulePlans, ORDERINGS, SECTORS, SentimentLabel, TOPICS, URGENCY_LEVELS } from '../../models/news/article.rules';
import { CORRECTION_ENTITIES_MAX, CORRECTION_NOTE_MAX, CorrectionInput } from '../../models/news/correction.rules';
import { EDITORIAL_OFFSET_MAX, EDITORIAL_STATES } from '../../models/news/editorial.rules';
import { CANDIDATE_STATES } from '../../models/news/entity-candidate.repo';
import { EntityPatch } from '../../models/news/entity.rules';
import { wholeNumber } from '../../models/params.rules';
import { IMPORT_ERROR_MAX, IMPORT_SOURCES, IMPORT_STATES, INVALID_KEPT } from '../../models/news/import.repo';
import { ImportLine } from '../../models/news/ingest.rules';
import { PageQuery } from '../../models/news/pagination.rules';
import { isEmptyFilter, REENRICH_IDS_MAX, REENRICH_STATES } from '../../models/news/reenrich.rules';
import { REENRICH_ERROR_MAX, REENRICH_ERRORS_KEPT } from '../../models/news/reenrichment.repo';
import { POLL_MINUTES, SourceInput, SourcePatch } from '../../models/news/sources/source.rules';
import { keyAlreadyCreated } from '../../operations/news/api-keys';
import { INCLUDE_MODULES, PLANS, type IncludeModule } from '../../models/shared/plan.rules';
import { KEYWORD, NotificationSettings, Preferences, PREFERENCE_LIMITS, RelevanceSettings, SECTOR, TICKER, TOPIC, WEIGHT } from '../../models/news/preferences.rules';
import { WebhookPayload } from '../../models/whatsapp/webhook.rules';
import { DISABLED_REASONS, ENDPOINT_STATES, WEBHOOK_ENDPOINT_ID, type WebhookEndpointDoc } from '../../models/events/webhook-endpoint.repo';
import { EVENT_TYPE, EVENT_TYPES, WEBHOOK_LIMITS, WebhookEndpointInput, WebhookFilters } from '../../models/events/webhook.rules';
import { WEBHOOK_ATTEMPT_ID, type WebhookAttemptDoc } from '../../models/events/webhook-attempt.repo';
import type { WebhookMessageDoc } from '../../models/events/webhook-message.repo';
import { MESSAGE_STATES, WEBHOOK_MESSAGE_ID } from '../../models/events/webhook-message.rules';
import { RESPONSE_BODY_LIMIT } from '../../models/infra/webhook-sender';
import { DELIVERIES_PAGE_MAX } from '../../operations/events/webhook-delivery';
import { Count, IsoDateTime, Text, Uuid } from '../shared/views';

// ---- Path parameters ----------------------------------------------------------------------------

/** A path's `id` that is a UUID: an article, an entity, an import, a source, a re-enrichment, a key. */
const uuidId = () => z.object({ id: z.uuid() });
export const ArticleIdParams = uuidId().meta({ id: 'ArticleIdParams' });
export const EntityIdParams = uuidId().meta({ id: 'EntityIdParams' });
export const ImportIdParams = uuidId().meta({ id: 'ImportIdParams' });
export const SourceIdParams = uuidId().meta({ id: 'SourceIdParams' });
export const ReenrichmentIdParams = uuidId().meta({ id: 'ReenrichmentIdParams' });
export const KeyIdParams = uuidId().meta({ id: 'ApiKeyIdParams' });

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
}).meta({ id: 'CreateApiKeyRequest' });

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
/** Sectors or topics followed: the codes themselves (an enum for clients), and their weights by code. */
const codes = <T extends readonly [string, ...string[]]>(all: T) => z.array(z.enum(all)).max(all.length);
const weightsOf = <T extends readonly [string, ...string[]]>(all: T) => z.partialRecord(z.enum(all), z.number().min(0).max(5));
const weightsBy = (keyLength: number) => z.record(z.string().max(keyLength), z.number().min(0).max(5));
const Watchlist = { watchlistCompanies: z.array(z.string().max(36)).max(PREFERENCE_LIMITS.watchlist), watchlistTickers: z.array(z.string().max(8)).max(PREFERENCE_LIMITS.watchlist) };
const Keywords = { keywords: z.array(z.string().max(PREFERENCE_LIMITS.keywordLength)).max(PREFERENCE_LIMITS.keywords), keywordWeights: weightsBy(PREFERENCE_LIMITS.keywordLength) };

export const NotificationSettingsView = NotificationSettings.meta({ id: 'NotificationSettings' });
export const RelevanceSettingsView = RelevanceSettings.meta({ id: 'RelevanceSettings' });

export const PreferencesView = z
  .object({
    sectors: codes(SECTORS),
    sectorWeights: weightsOf(SECTORS),
    topics: codes(TOPICS),
    topicWeights: weightsOf(TOPICS),
    ...Watchlist,
    ...Keywords,
    notificationSettings: NotificationSettingsView,
    relevanceSettings: RelevanceSettingsView,
  })
  .meta({ id: 'Preferences' });

export const FollowedSectorsView = z.object({ sectors: codes(SECTORS), sectorWeights: weightsOf(SECTORS) }).meta({ id: 'FollowedSectors' });
export const FollowedTopicsView = z.object({ topics: codes(TOPICS), topicWeights: weightsOf(TOPICS) }).meta({ id: 'FollowedTopics' });
export const WatchlistView = z.object(Watchlist).meta({ id: 'Watchlist' });
export const KeywordsView = z.object(Keywords).meta({ id: 'Keywords' });

/** The whole document, replaced (PUT): absent fields take their defaults. */
export const PreferencesBody = Preferences.meta({ id: 'PreferencesRequest' });
export const FollowSectorBody = z.strictObject({ sector: SECTOR, weight: WEIGHT.default(1) }).meta({ id: 'FollowSectorRequest' });
export const FollowedSectorParams = z.object({ sector: SECTOR }).meta({ id: 'FollowedSectorParams' });
export const FollowTopicBody = z.strictObject({ topic: TOPIC, weight: WEIGHT.default(1) }).meta({ id: 'FollowTopicRequest' });
export const FollowedTopicParams = z.object({ topic: TOPIC }).meta({ id: 'FollowedTopicParams' });
export const WatchCompanyBody = z.strictObject({ entityId: z.uuid() }).meta({ id: 'WatchCompanyRequest' });
export const WatchedCompanyParams = z.object({ entityId: z.uuid() }).meta({ id: 'WatchedCompanyParams' });
export const WatchTickerBody = z.strictObject({ ticker: TICKER }).meta({ id: 'WatchTickerRequest' });
export const WatchedTickerParams = z.object({ ticker: TICKER }).meta({ id: 'WatchedTickerParams' });
export const AddKeywordBody = z.strictObject({ keyword: KEYWORD, weight: WEIGHT.default(1) }).meta({ id: 'AddKeywordRequest' });
export const KeywordParams = z.object({ keyword: KEYWORD }).meta({ id: 'KeywordParams' });
export const NotificationSettingsPatch = NotificationSettings.partial()
  .refine((b) => Object.keys(b).length > 0, 'send at least one setting')
  .meta({ id: 'NotificationSettingsPatch' });
export const RelevanceSettingsPatch = RelevanceSettings.partial()
  .refine((b) => Object.keys(b).length > 0, 'send at least one setting')
  .meta({ id: 'RelevanceSettingsPatch' });

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

export const CheckoutBody = z.strictObject({ plan: z.enum(['pro', 'business']) }).meta({ id: 'CheckoutRequest' });

/** What the webhook reads of an event (Stripe's signature is checked on the exact body first). */
export const StripeEvent = z
  .looseObject({ id: z.string().max(255), type: z.string().max(255), created: z.number(), data: z.looseObject({ object: z.looseObject({}) }) })
  .describe('a Stripe event')
  .meta({ id: 'StripeEvent' });

export const StripeWebhookAnswer = z
  .object({
    received: z.literal(true),
    eventId: StripeId,
    duplicate: z.boolean().describe('the event was delivered before'),
    handled: z.boolean().describe('the event was handed to the subscription workflow (false: a type or object billing does not use)'),
  })
  .meta({ id: 'StripeWebhookAnswer' });

// ---- WhatsApp -----------------------------------------------------------------------------------

/**
 * Meta's webhook verification. Bounded so that the longest URL fits the server's request-header
 * limit (tests/integration/platform.test.ts): Meta's challenge is a short number, the verify token
 * at most 256 (config).
 */
export const WhatsAppVerificationQuery = z
  .looseObject({
    'hub.mode': z.string().max(32).optional(),
    'hub.verify_token': z.string().max(256).optional(),
    'hub.challenge': z.string().max(256).optional(),
  })
  .meta({ id: 'WhatsAppVerificationQuery' });
/** The verification's answer, as text/plain (no JSON envelope, so no component). */
export const WhatsAppChallenge = z.string().max(256).describe('hub.challenge, as sent');
export const WhatsAppWebhookBody = WebhookPayload.meta({ id: 'WhatsAppWebhookPayload' });
export const WhatsAppDeliveryAnswer = z
  .object({
    received: z.literal(true),
    messages: Count.describe('messages in the delivery'),
    duplicates: Count.describe('of them, delivered before'),
    statuses: Count.describe('delivery statuses stored'),
  })
  .meta({ id: 'WhatsAppDeliveryAnswer' });

export const WhatsAppStatusView = z.object({ configured: z.boolean(), phoneNumberId: z.string().max(64), flowConfigured: z.boolean() }).meta({ id: 'WhatsAppStatus' });

export const PhoneLinkCode = z.strictObject({ code: z.string().length(6).regex(/^\d{6}$/, 'the 6-digit code') }).meta({ id: 'PhoneLinkRequest' });
export const PhoneLinkedView = z.object({ linked: z.literal(true), phone: z.string().max(32).describe('the phone, masked') }).meta({ id: 'PhoneLinked' });

// ---- Articles -----------------------------------------------------------------------------------

const isoDate = (name: string) =>
  z.iso
    .datetime({ offset: true, message: `${name} must be an ISO 8601 date-time such as 2026-11-21T09:00:00Z` })
    .max(64)
    .transform((s) => new Date(s))
    .optional();
const bool = z.enum(['true', 'false']).transform((v) => v === 'true');

/**
 * `include=sentiment,entities`: the include modules, comma-separated (the parameter repeated works
 * too), each taken once; a name that is no module is a 400 naming it, and so is a list longer than
 * the modules (the document's maxItems: found by the fuzzer). A list in a query string is
 * documented as such (api/shared/openapi.ts: an array, style form, explode false).
 */
const IncludeList = z.preprocess(
  (raw, ctx) => {
    const parts = typeof raw === 'string' ? [raw] : Array.isArray(raw) && raw.every((p) => typeof p === 'string') ? (raw as string[]) : undefined;
    if (!parts) return raw; // not text: the array schema says what is wrong
    // An empty name (`include=`, `a,,b`, a trailing comma) is no module, and neither is a name with
    // spaces: the document's enum (found by the fuzzer). No module at all is no include parameter.
    const listed = parts.flatMap((p) => p.split(','));
    if (listed.includes('')) ctx.issues.push({ code: 'custom', message: 'An empty include module name (two commas, or one at an end)', input: raw });
    // As documented (maxItems): more names than there are modules is refused, repeats or not.
    if (listed.length > INCLUDE_MODULES.length) ctx.issues.push({ code: 'custom', message: `At most ${INCLUDE_MODULES.length} include modules`, input: raw });
    const names = [...new Set(listed.filter(Boolean))];
    const unknown = names.filter((n) => !(INCLUDE_MODULES as readonly string[]).includes(n));
    if (unknown.length) ctx.issues.push({ code: 'custom', message: `Unknown include module${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, input: raw });
    return names;
  },
  z.array(z.enum(INCLUDE_MODULES)).max(INCLUDE_MODULES.length),
);

const moduleSummary = (m: IncludeModule) => `${m} (${modulePlans(m)}) adds ${MODULE_FIELDS[m].fields.join(', ')}: ${MODULE_FIELDS[m].holds}`;
const INCLUDE_DESCRIPTION =
  'Include modules, comma-separated (include=sentiment,entities): each adds its fields to every article answered, when the API key\'s plan includes it. ' +
  'A module the plan does not include is a 403 naming the plan that has it; an unknown name is a 400. ' +
  `The modules: ${INCLUDE_MODULES.map(moduleSummary).join('; ')}. ` +
  'A module the article has no data for is null (entities: an empty list).';

const Include = z.object({ include: IncludeList.optional().describe(INCLUDE_DESCRIPTION) });
/** Filters every list takes (spec §4.1, named as users expect: issue 5). */
const Filters = z.object({
  sector: z.enum(SECTORS).optional(),
  topic: z.enum(TOPICS).optional(),
  from: isoDate('from'),
  to: isoDate('to'),
  language: z.enum(LANGUAGES).optional(),
  urgencyLevel: z.enum(URGENCY_LEVELS).optional(),
  contentType: z.enum(CONTENT_TYPES).optional(),
  isBreaking: bool.optional(),
  entity: z.uuid().optional(),
  ticker: TICKER.optional(),
});
const Sort = z.object({ sort: z.enum(ORDERINGS).default('publishedAt') });

export const ArticleListQuery = PageQuery.extend(Include.shape).extend(Sort.shape).extend(Filters.shape).meta({ id: 'ArticleListQuery' });
export const SectorParams = z.object({ sector: z.enum(SECTORS) }).meta({ id: 'ArticleSectorParams' });
export const SectorArticlesQuery = PageQuery.extend(Include.shape)
  .extend(Sort.shape)
  .extend(Filters.omit({ sector: true }).shape)
  .meta({ id: 'SectorArticlesQuery' });
export const ArticleSearchQuery = PageQuery.extend(Include.shape)
  .extend(Filters.shape)
  .extend({ q: z.string().max(200).trim().min(2, 'q must have at least 2 characters') })
  .meta({ id: 'ArticleSearchQuery' });
export const BreakingArticlesQuery = PageQuery.extend(Include.shape).extend({ since: isoDate('since') }).meta({ id: 'BreakingArticlesQuery' });
/** One article: the include modules only. */
export const ArticleQuery = Include.meta({ id: 'ArticleQuery' });
/** A page of articles with include modules (an entity's articles, the feed). */
export const ArticlePageQuery = PageQuery.extend(Include.shape).meta({ id: 'ArticlePageQuery' });

/** What an article's module field says of when it is there (each module component says more). */
const whenIncluded = (m: IncludeModule) =>
  `Include module ${m} (plans ${modulePlans(m)}): present only when the request asks for it with include=${m} and the API key's plan includes it; ${m === 'entities' ? 'an empty list' : 'null'} when the article has no data for it.`;

/**
 * The fields of the include modules (models/news/article.rules.ts presentArticle), each typed by
 * its module's component: sentiment's are flat (sentimentScore, sentimentLabel,
 * sentimentConfidence), the others one field holding the module.
 */
const ModuleFields = {
  sentimentScore: MODULE_SCHEMAS.sentiment.shape.score.nullable().optional().describe(`From -1 (very negative for investors) to 1 (very positive). ${whenIncluded('sentiment')}`),
  sentimentLabel: SentimentLabel.nullable().optional().describe(`The label of sentimentScore. ${whenIncluded('sentiment')}`),
  sentimentConfidence: MODULE_SCHEMAS.sentiment.shape.confidence.nullable().optional().describe(`From 0 to 1. ${whenIncluded('sentiment')}`),
  marketImpact: MODULE_SCHEMAS.market_impact.nullable().optional().describe(whenIncluded('market_impact')),
  entities: MODULE_SCHEMAS.entities.optional().describe(whenIncluded('entities')),
  translations: MODULE_SCHEMAS.translations.nullable().optional().describe(whenIncluded('translations')),
  scoring: MODULE_SCHEMAS.scoring.nullable().optional().describe(whenIncluded('scoring')),
  classification: MODULE_SCHEMAS.classification.nullable().optional().describe(whenIncluded('classification')),
  meta: MODULE_SCHEMAS.meta.nullable().optional().describe(whenIncluded('meta')),
};

/**
 * Bounds: those of an imported line (models/news/ingest.rules.ts ImportLine), which every article
 * passed. Closed: the base fields and the module fields are all an article has.
 */
export const ArticleView = z
  .strictObject({
    id: Uuid,
    sourceName: Text(200),
    title: Text(500),
    subtitle: Text(1_000).nullable(),
    summary: Text(5_000).nullable(),
    publishedAt: IsoDateTime,
    primarySector: z.enum(SECTORS),
    primaryTopic: z.enum(TOPICS),
    contentType: z.enum(CONTENT_TYPES),
    urgencyLevel: z.enum(URGENCY_LEVELS),
    isBreaking: z.boolean(),
    language: Text(8).describe('ISO 639-1 code (pt, en, es)'),
    alsoReportedBy: z
      .array(z.object({ sourceName: Text(200), url: Text(2_048) }))
      .max(50)
      .describe('Other sources that published the same story (a syndicated copy, or the same page)'),
    ...ModuleFields,
  })
  .meta({
    id: 'ArticleView',
    description: 'An article: the base fields always, and the fields of each include module the request asks for (the include parameter) that the API key\'s plan includes.',
  });

/** Why an article is in the feed (models/news/article-query.rules.ts feedScore), one reason per match. */
const points = { multiplier: z.number().min(0).max(10), points: z.number().min(0) };
const FeedReason = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('sector'), value: z.enum(SECTORS), weight: WEIGHT, ...points }),
    z.object({ type: z.literal('topic'), value: z.enum(TOPICS), weight: WEIGHT, ...points }),
    z.object({ type: z.literal('keyword'), value: Text(PREFERENCE_LIMITS.keywordLength), weight: WEIGHT, ...points }),
    z.object({ type: z.literal('watchlist_company'), value: Text(36).describe('the entity id'), ...points }),
    z.object({ type: z.literal('watchlist_ticker'), value: Text(16), ...points }),
    z.object({ type: z.literal('quality'), value: z.number().min(0).max(100).describe('baseScore'), points: z.number().min(0).max(1) }),
    z.object({ type: z.literal('breaking'), multiplier: points.multiplier }),
    z.object({ type: z.literal('exclusive'), multiplier: points.multiplier }),
    z.object({ type: z.literal('recency'), ageHours: z.number().min(0), halfLifeHours: z.number().min(1).max(720), factor: z.number().min(0).max(1) }),
  ])
  .meta({ id: 'FeedReason', description: 'What raised (or, recency, lowered) the feed score: a followed sector, topic or keyword, a watchlist item, the quality, breaking or exclusive news, the age' });
export type FeedReasonView = z.input<typeof FeedReason>;
/** Sector, topic, each keyword and watchlist item followed, quality, breaking, exclusive, recency. */
const FEED_REASONS_MAX = 2 + PREFERENCE_LIMITS.keywords + 2 * PREFERENCE_LIMITS.watchlist + 4;

/** An item of the feed: an article with its feed score and why. */
export const FeedArticleView = ArticleView.extend({
  feedScore: z.number().min(0).describe('The score the feed is ranked by (highest first)'),
  feedReasons: z.array(FeedReason).max(FEED_REASONS_MAX),
}).meta({ id: 'FeedArticle', description: 'An article of the feed: the article (as ArticleView) with its feed score and the reasons for it' });

// ---- Entities -----------------------------------------------------------------------------------

export const EntityListQuery = PageQuery.extend({ type: z.enum(ENTITY_TYPES).optional(), ticker: TICKER.optional() }).meta({ id: 'EntityListQuery' });

/** Entities come from the curated dictionary (ops/seed.ts): names and aliases are short. */
export const EntityView = z
  .object({
    id: Uuid,
    entityType: z.enum(ENTITY_TYPES),
    canonicalName: Text(200),
    aliases: z.array(Text(200)).max(100),
    ticker: Text(16).nullable(),
    cnpj: Text(18).nullable().describe('formatted 00.000.000/0000-00'),
    createdAt: IsoDateTime,
  })
  .meta({ id: 'Entity' });

// ---- Imports (administrators) -------------------------------------------------------------------

/** The body of an import: JSON lines, each one article. */
export const ImportBody = ImportLine.describe('One article per line (JSON lines)').meta({ id: 'ImportLine' });

export const ImportView = z
  .object({
    id: Uuid,
    state: z.enum(IMPORT_STATES),
    source: z.enum(IMPORT_SOURCES),
    bytes: Count,
    linesDone: Count,
    inserted: Count,
    duplicates: Count,
    invalid: Count,
    unlinkedMentions: Count,
    errors: z
      .array(z.object({ line: Count, error: Text(IMPORT_ERROR_MAX) }))
      .max(INVALID_KEPT)
      .describe(`The first ${INVALID_KEPT} invalid lines`),
    error: Text(IMPORT_ERROR_MAX).nullable(),
    createdAt: IsoDateTime,
    startedAt: IsoDateTime.nullable(),
    finishedAt: IsoDateTime.nullable(),
    statusUrl: Text(64),
  })
  .meta({ id: 'Import' });

// ---- Re-enrichment (administrators) -------------------------------------------------------------

/** Prompt versions are short names (`enrich-2026-11-25.1`). */
const PROMPT_VERSION_MAX = 100;

const dateTime = (name: string) =>
  z.iso
    .datetime({ offset: true, message: `${name} must be an ISO 8601 date-time such as 2026-11-21T09:00:00Z` })
    .max(64)
    .transform((s) => new Date(s));

export const ReenrichmentFilter = z
  .strictObject({
    sourceId: z.uuid().optional().describe('Articles of this news source'),
    sector: z.enum(SECTORS).optional().describe('Articles whose primary sector is this'),
    from: dateTime('from').optional().describe('Published at or after this time'),
    to: dateTime('to').optional().describe('Published at or before this time'),
    promptVersionNot: z.string().trim().min(1).max(PROMPT_VERSION_MAX).optional().describe('Articles whose last enrichment used another prompt version, or that were never enriched'),
    articleIds: z
      .array(z.uuid())
      .min(1)
      .max(REENRICH_IDS_MAX, `at most ${REENRICH_IDS_MAX} article ids`)
      .transform((ids) => [...new Set(ids)])
      .optional()
      .describe('These articles (ids no article has are left out)'),
  })
  .refine((f) => !isEmptyFilter(f), 'give at least one filter field')
  .refine((f) => !f.from || !f.to || f.from <= f.to, { message: 'from must not be after to', path: ['to'] })
  .meta({ id: 'ReenrichmentFilter', description: 'Which articles to enrich again: every field given narrows the match; at least one.' });

export const ReenrichmentView = z
  .object({
    id: Uuid,
    state: z.enum(REENRICH_STATES),
    filter: ReenrichmentFilter.describe('The filter as given (the article ids each once)'),
    promptVersion: Text(PROMPT_VERSION_MAX).describe('The prompt version current when the operation was created'),
    total: Count.describe('Articles the filter matched when the operation was created'),
    done: Count.describe('Enriched again'),
    failed: Count.describe("The model's answers never validated, or the provider refused the article"),
    gone: Count.describe('Deleted before their turn'),
    waiting: Count.describe('Articles left that wait for the daily token budget to renew (0 unless the operation waits)'),
    resumeAt: IsoDateTime.nullable().describe('When a waiting operation goes on'),
    errors: z
      .array(z.object({ articleId: Uuid, error: Text(REENRICH_ERROR_MAX) }))
      .max(REENRICH_ERRORS_KEPT)
      .describe(`The first ${REENRICH_ERRORS_KEPT} failed articles and why`),
    error: Text(REENRICH_ERROR_MAX).nullable().describe('Why a failed operation failed as a whole'),
    workflowId: Text(64).describe('Its workflow in the Temporal UI'),
    createdBy: Text(200),
    createdAt: IsoDateTime,
    finishedAt: IsoDateTime.nullable(),
    statusUrl: Text(64),
  })
  .meta({ id: 'Reenrichment' });

export const ReenrichmentCancelling = z.object({ id: Uuid, state: z.literal('cancelling') }).meta({ id: 'ReenrichmentCancelling' });

// ---- News sources, entity curation, enriching one article (administrators) ----------------------

export const SourceListQuery = z.object({ enabled: z.enum(['true', 'false']).optional() }).meta({ id: 'SourceListQuery' });
export const NewSourceBody = SourceInput.meta({ id: 'NewSourceRequest' });
export const SourcePatchBody = SourcePatch.meta({ id: 'SourcePatchRequest' });

export const SourceView = z
  .object({
    id: Uuid,
    name: Text(200),
    feedUrl: Text(2_048),
    tier: z.number().int().min(1).max(3),
    language: z.enum(LANGUAGES),
    defaultSector: z.enum(SECTORS).nullable(),
    pollIntervalMinutes: z.number().int().min(POLL_MINUTES.min).max(POLL_MINUTES.max),
    enabled: z.boolean(),
    state: z.enum(['disabled', 'new', 'ok', 'backing-off', 'failing']).describe('failing: 5 or more failed polls in a row (still polled, backed off)'),
    health: z.object({
      lastPollAt: IsoDateTime.nullable(),
      lastSuccessAt: IsoDateTime.nullable(),
      lastError: Text(500).nullable(),
      lastErrorAt: IsoDateTime.nullable(),
      consecutiveFailures: Count,
      itemsSeen: Count,
      articlesCreated: Count,
      nextPollAt: IsoDateTime.nullable(),
    }),
    workflowId: Text(64).describe('Its poller in the Temporal UI'),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  })
  .meta({ id: 'NewsSource' });

export const SourceDeleted = z.object({ id: Uuid, deleted: z.literal(true) }).meta({ id: 'SourceDeleted' });

export const CandidateListQuery = z
  .object({ state: z.enum(CANDIDATE_STATES).default('open'), limit: z.coerce.number().int().min(1).max(200).default(50) })
  .meta({ id: 'EntityCandidateListQuery' });
/** A candidate's id is its folded name. */
export const CandidateIdParams = z.object({ id: z.string().min(1).max(300) }).meta({ id: 'EntityCandidateIdParams' });

export const CandidateView = z
  .object({
    id: Text(300).describe('The folded name'),
    name: Text(200),
    entityType: z.enum(ENTITY_TYPES),
    ticker: Text(12).nullable(),
    cnpj: Text(20).nullable(),
    mentions: Count,
    articleIds: z.array(Uuid).max(20),
    state: z.enum(CANDIDATE_STATES),
    entityId: Uuid.nullable(),
    firstSeenAt: IsoDateTime,
    lastSeenAt: IsoDateTime,
  })
  .meta({ id: 'EntityCandidate' });

export const EnrichmentStarted = z.object({ articleId: Uuid, workflowId: Text(64) }).meta({ id: 'EnrichmentStarted' });

// ---- The editors' console: articles by pipeline state, hiding, corrections, the catalogue -------

/** A page of the editors' list: the news lists' limit and offset, the offset bounded (each page reads offset + limit rows of each collection). */
const EditorialPage = PageQuery.extend({
  offset: wholeNumber((n) => n.min(0, 'offset must be 0 or more').max(EDITORIAL_OFFSET_MAX, `offset must be at most ${EDITORIAL_OFFSET_MAX}: narrow the list with state or sourceId`)).default(0),
});

export const EditorialListQuery = EditorialPage.extend({
  state: z
    .enum(EDITORIAL_STATES)
    .optional()
    .describe(
      'pending: waiting for its enrichment (not published yet); waiting-budget: the day’s token budget is spent (an item, or a published article enriched again); failed: the enrichment failed (reason); ' +
        'enriched: published, enriched by the model; imported: published by an import, never enriched by the model; hidden: hidden by an editor. None: all of them',
    ),
  sourceId: z.uuid().optional().describe('Articles of this news source'),
}).meta({ id: 'EditorialArticleListQuery' });

const EditorName = Text(255).describe("the editor (the bearer token's subject)");

export const EnrichmentRecordView = z
  .object({
    state: z.enum(ENRICHMENT_STATES),
    promptVersion: Text(100).nullable(),
    model: Text(100).nullable(),
    attempts: z.number().int().min(0).max(100).describe('answers asked for'),
    promptTokens: z.number().int().min(0).max(100_000_000),
    completionTokens: z.number().int().min(0).max(100_000_000),
    costUsd: z.number().min(0).max(1_000_000),
    at: IsoDateTime,
    error: Text(500).nullable(),
  })
  .meta({ id: 'ArticleEnrichmentRecord', description: "The article's last enrichment by the model: when, with what, at what cost, and how it ended" });

export const EditorialArticleView = z
  .object({
    id: Uuid,
    title: Text(500),
    sourceName: Text(200).nullable(),
    sourceId: Uuid.nullable().describe('The news source whose feed brought it; null for an imported article'),
    url: Text(2_048),
    publishedAt: IsoDateTime,
    state: z.enum(EDITORIAL_STATES),
    visible: z.boolean().describe('Readers find it (lists, search, the feed, by id): false before it is published and while it is hidden'),
    reason: Text(500).nullable().describe('Why it failed or waits (failed, waiting-budget), or why it was hidden (hidden, when the editor said)'),
    primarySector: z.enum(SECTORS).nullable().describe('null before it is enriched'),
    primaryTopic: z.enum(TOPICS).nullable(),
    isBreaking: z.boolean().nullable(),
    enrichment: EnrichmentRecordView.nullable(),
    hidden: z.object({ at: IsoDateTime, by: EditorName, reason: Text(500).nullable() }).nullable(),
    corrected: z.object({ at: IsoDateTime, by: EditorName }).nullable().describe('The last correction by an editor'),
    workflowId: Text(64).describe('Its enrichment workflow in the Temporal UI'),
  })
  .meta({ id: 'EditorialArticle', description: 'An article as editors see it: where it is in the pipeline, and whether readers see it' });

const CorrectedEntityView = z.object({
  entityId: Uuid,
  entityType: z.enum(ENTITY_TYPES),
  canonicalName: Text(200),
  ticker: Text(16).nullable(),
  sentiment: z.number().min(-1).max(1).nullable().describe("null: the model's, else the article's"),
});

export const CorrectionView = z
  .object({
    by: EditorName,
    at: IsoDateTime,
    note: Text(CORRECTION_NOTE_MAX).nullable(),
    labels: z.object({
      primarySector: z.enum(SECTORS),
      primaryTopic: z.enum(TOPICS),
      secondarySectors: z.array(z.enum(SECTORS)).max(SECTORS.length).nullable().describe("null: the model's stand"),
      secondaryTopics: z.array(z.enum(TOPICS)).max(TOPICS.length).nullable().describe("null: the model's stand"),
      sentimentLabel: SentimentLabel,
      sentimentScore: z.number().min(-1).max(1),
      entities: z.array(CorrectedEntityView).max(CORRECTION_ENTITIES_MAX),
    }),
    model: z
      .object({
        primarySector: z.enum(SECTORS),
        primaryTopic: z.enum(TOPICS),
        secondarySectors: z.array(z.enum(SECTORS)).max(SECTORS.length),
        secondaryTopics: z.array(z.enum(TOPICS)).max(TOPICS.length),
        sentiment: MODULE_SCHEMAS.sentiment.nullable(),
        entities: MODULE_SCHEMAS.entities,
      })
      .describe("What the model says for these fields: before the correction, and after each enrichment since (the labels stay over it)"),
  })
  .meta({ id: 'ArticleCorrection', description: "An editor's correction of an article's enrichment: the labels the article shows, and the model's output they replace" });

export const EditorialArticleDetailView = EditorialArticleView.extend({
  article: ArticleView.nullable().describe('The article as readers get it, with every include module; null before it is published'),
  correction: CorrectionView.nullable(),
}).meta({ id: 'EditorialArticleDetail', description: 'One article as editors see it: its place in the pipeline, the article with every module, and its correction' });

export const HideArticleBody = z
  .strictObject({ reason: z.string().trim().min(1).max(500).optional().describe('Why, for the other editors') })
  .meta({ id: 'HideArticleRequest' });

export const CorrectionBody = CorrectionInput.meta({
  id: 'ArticleCorrectionRequest',
  description: "The editor's labels for the article: they replace the model's, stay over later enrichments, and are kept as a labelled example for the evaluation",
});

export const CatalogueQuery = PageQuery.extend({
  offset: wholeNumber((n) => n.min(0, 'offset must be 0 or more').max(1_000_000, 'offset must be at most 1000000')).default(0),
  q: z.string().max(100).trim().min(1, 'q must have a letter or a digit').optional().describe('The start of a name, an alias or a ticker (case and accents aside)'),
  type: z.enum(ENTITY_TYPES).optional(),
  ticker: TICKER.optional(),
}).meta({ id: 'CatalogueListQuery' });

export const EntityPatchBody = EntityPatch.meta({ id: 'EntityPatchRequest' });

export const CandidateAliasBody = z.strictObject({ entityId: z.uuid().describe('The catalogue entity the name is another name of') }).meta({ id: 'CandidateAliasRequest' });

// ---- The event stream (GET /api/stream, issue 40) ---------------------------------------------------

/** Values a stream filter lists at most, per kind. */
export const STREAM_FILTER_MAX = 50;

/**
 * A comma-separated list of a query string (the parameter repeated works too), each value once;
 * an empty value (two commas, one at an end) is refused. Documented as a list (style form,
 * explode false), as `include` is.
 */
function commaList<T extends z.ZodType>(item: T, max: number, what: string) {
  return z.preprocess(
    (raw, ctx) => {
      const parts = typeof raw === 'string' ? [raw] : Array.isArray(raw) && raw.every((p) => typeof p === 'string') ? (raw as string[]) : undefined;
      if (!parts) return raw;
      const listed = parts.flatMap((p) => p.split(','));
      if (listed.includes('')) ctx.issues.push({ code: 'custom', message: `An empty ${what} (two commas, or one at an end)`, input: raw });
      return [...new Set(listed.filter(Boolean))];
    },
    z.array(item).max(max),
  );
}

export const StreamQuery = z
  .object({
    sector: commaList(SECTOR, SECTORS.length, 'sector')
      .optional()
      .describe('Events of articles of any of these primary sectors (sector=ENE,FIN)'),
    topic: commaList(TOPIC, TOPICS.length, 'topic')
      .optional()
      .describe('Events of articles of any of these primary topics (topic=DIV,EARN)'),
    ticker: commaList(TICKER, STREAM_FILTER_MAX, 'ticker')
      .optional()
      .describe(`Events of articles mentioning any of these B3 tickers (ticker=PETR4,VALE3; at most ${STREAM_FILTER_MAX})`),
    entity: commaList(z.uuid(), STREAM_FILTER_MAX, 'entity id')
      .optional()
      .describe(`Events of articles mentioning any of these catalogue entities (ids of GET /api/entities; at most ${STREAM_FILTER_MAX})`),
    include: IncludeList.optional().describe(INCLUDE_DESCRIPTION),
    lastEventId: z
      .string()
      .max(15)
      .regex(/^\d{1,15}$/, 'lastEventId must be an id this stream sent')
      .optional()
      .describe('Resume after this id (as the Last-Event-ID header, which EventSource sends by itself when it reconnects; the header wins)'),
  })
  .meta({ id: 'NewsStreamQuery' });

/** An event's data, JSON text, at most this long (an article with every module is well under it). */
const STREAM_DATA_MAX = 256 * 1024;

/** One Server-Sent Event of GET /api/stream: its name, its id and its data (JSON text). */
export const NewsStreamEvent = z
  .object({
    event: z.enum(['article.published', 'article.breaking', 'reset']),
    id: z
      .string()
      .regex(/^\d{1,15}$/)
      .max(15)
      .describe('The cursor a reconnecting client sends back as Last-Event-ID (keep-alive comments carry it too)'),
    data: z
      .string()
      .max(STREAM_DATA_MAX)
      .describe(
        'JSON. article.published and article.breaking: {seq, type, timestamp, article} where article is as GET /api/articles/{id} shows it (ArticleView) with the include modules asked for; ' +
          'seq numbers events (a resumed stream may send one again: deduplicate by seq). reset: {reason} (history_window_passed, too_many_events, stream_overflow): reload what you show from the lists, then read on',
      ),
  })
  .meta({ id: 'NewsStreamEvent' });

// ---- Webhook endpoints (issue 40) ------------------------------------------------------------------

export const WebhookEndpointIdParams = z
  .object({ id: z.string().max(25).regex(WEBHOOK_ENDPOINT_ID, 'a webhook endpoint id (we_ and 22 characters)') })
  .meta({ id: 'WebhookEndpointIdParams' });

export const WebhookFiltersView = WebhookFilters.meta({
  id: 'WebhookFilters',
  description: 'Which articles the endpoint hears about: an article passes when it matches a value of every list given; no list, every article of the event types',
});

export const WebhookEndpointView = z
  .object({
    id: Text(25),
    url: Text(WEBHOOK_LIMITS.urlLength),
    description: Text(WEBHOOK_LIMITS.descriptionLength).nullable(),
    eventTypes: z.array(EVENT_TYPE).max(EVENT_TYPES.length),
    filters: WebhookFiltersView,
    state: z.enum(ENDPOINT_STATES),
    disabledReason: z.enum(DISABLED_REASONS).nullable().describe('gone: the receiver answered 410; failing: every delivery failed for five days; owner: disabled through this API'),
    failingSince: IsoDateTime.nullable().describe('Since when every delivery has failed; null while deliveries succeed'),
    secretCreatedAt: IsoDateTime.describe('When the current signing secret was made'),
    previousSecretExpiresAt: IsoDateTime.nullable().describe('Until when the secret a rotation replaced still signs deliveries too; null when there is none'),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  })
  .meta({ id: 'WebhookEndpoint', description: 'An endpoint that receives signed webhooks (Standard Webhooks). Its signing secret is never shown here' });

/** An endpoint just made, or whose secret was just rotated: its record and, this once, the secret. */
export const WebhookEndpointWithSecretView = WebhookEndpointView.extend({
  secret: Text(64).describe('The signing secret (whsec_…): shown in this answer only, store it now'),
}).meta({ id: 'WebhookEndpointWithSecret' });

export const WebhookEndpointBody = WebhookEndpointInput.extend({ filters: WebhookFiltersView.optional() }).meta({ id: 'WebhookEndpointRequest' });

export const WebhookEndpointPatchBody = WebhookEndpointInput.partial()
  .extend({
    description: z.string().max(WEBHOOK_LIMITS.descriptionLength).nullable().optional().describe('null or "" clears it'),
    filters: WebhookFiltersView.optional().describe('Replaces the filters whole; {} hears every article'),
    state: z.enum(ENDPOINT_STATES).optional().describe('disabled stops deliveries; enabled starts them again (and clears a failing streak)'),
  })
  .refine((patch) => Object.values(patch).some((v) => v !== undefined), 'change at least one field')
  .meta({ id: 'WebhookEndpointPatch' });

export const WebhookEndpointDeleted = z.object({ id: Text(25), deleted: z.literal(true) }).meta({ id: 'WebhookEndpointDeleted' });

export const presentWebhookEndpoint = (e: WebhookEndpointDoc): z.input<typeof WebhookEndpointView> => {
  const previous = e.secrets.slice(1).find((s) => s.expiresAt !== null);
  return {
    id: e._id,
    url: e.url,
    description: e.description,
    eventTypes: e.eventTypes,
    filters: e.filters,
    state: e.state,
    disabledReason: e.disabledReason,
    failingSince: e.failingSince?.toISOString() ?? null,
    secretCreatedAt: (e.secrets[0]?.createdAt ?? e.createdAt).toISOString(),
    previousSecretExpiresAt: previous?.expiresAt?.toISOString() ?? null,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
};

/** What the answers that carry a signing secret say beside it. */
export const WEBHOOK_SECRET_SHOWN_ONCE = 'Store this signing secret now: it will not be shown again.';

/** An endpoint with the secret a creation or a rotation made: those two answers only. */
export const presentWebhookEndpointWithSecret = ({ endpoint, secret }: { endpoint: WebhookEndpointDoc; secret: string }): z.input<typeof WebhookEndpointWithSecretView> => ({
  ...presentWebhookEndpoint(endpoint),
  secret,
});

// ---- Webhook deliveries (issue 40) -----------------------------------------------------------------

export const WebhookMessageParams = WebhookEndpointIdParams.extend({
  msgId: z.string().max(26).regex(WEBHOOK_MESSAGE_ID, 'a webhook message id (msg_ and 22 characters), the webhook-id of its deliveries'),
}).meta({ id: 'WebhookMessageParams' });

export const WebhookDeliveriesQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(DELIVERIES_PAGE_MAX).default(20),
    before: z.string().max(25).regex(WEBHOOK_ATTEMPT_ID, 'a delivery id (wa_ and 22 characters) from the previous page').optional().describe("The previous page's `next`: the deliveries older than that one"),
  })
  .meta({ id: 'WebhookDeliveriesQuery' });

const HEADER_VALUE_MAX = 1_000;

export const WebhookDeliveryView = z
  .object({
    id: Text(25),
    msgId: Text(26).describe('The message delivered: the webhook-id header the receiver saw'),
    attempt: z.number().int().min(1).describe('Which attempt of the message this was (replays count on)'),
    replay: z.boolean().describe('Whether a replay asked for it'),
    url: Text(WEBHOOK_LIMITS.urlLength),
    requestHeaders: z.record(z.string().max(100), z.string().max(HEADER_VALUE_MAX)).describe('The headers sent; the signature itself is not kept, only how many were sent'),
    status: z.number().int().min(100).max(599).nullable().describe("The answer's HTTP status; null when there was none (see error)"),
    error: Text(500).nullable().describe('Why there was no answer (network-error, timeout, refused-address) or what went wrong'),
    durationMs: z.number().int().min(0),
    responseBody: z.string().max(RESPONSE_BODY_LIMIT * 4).describe("The first 4 KiB of the answer's body"),
    at: IsoDateTime,
  })
  .meta({ id: 'WebhookDelivery', description: 'One attempt to deliver a message to the endpoint (kept 30 days)' });

export const WebhookDeliveriesPage = z
  .object({
    deliveries: z.array(WebhookDeliveryView).max(DELIVERIES_PAGE_MAX),
    next: Text(25).nullable().describe('Pass as before for the next (older) page; null on the last'),
  })
  .meta({ id: 'WebhookDeliveriesPage' });

export const WebhookReplayAccepted = z
  .object({ msgId: Text(26), endpointId: Text(25), replayId: Text(16).describe('Names this replay (its attempt appears in the delivery log)') })
  .meta({ id: 'WebhookReplayAccepted' });

export const WebhookTestAccepted = z
  .object({ msgId: Text(26).describe('The test message: the webhook-id of its delivery'), endpointId: Text(25), type: z.literal('webhook.test'), state: z.enum(MESSAGE_STATES), createdAt: IsoDateTime })
  .meta({ id: 'WebhookTestAccepted' });

export const presentWebhookDelivery = (a: WebhookAttemptDoc): z.input<typeof WebhookDeliveryView> => ({
  id: a._id,
  msgId: a.msgId,
  attempt: a.attempt,
  replay: a.replay,
  url: a.url,
  requestHeaders: a.requestHeaders,
  status: typeof a.status === 'number' ? a.status : null,
  error: a.error ?? (typeof a.status === 'number' ? null : a.status),
  durationMs: a.durationMs,
  responseBody: a.responseBody,
  at: a.at.toISOString(),
});

/** A test event's message as POST …/test answers it (the news API's and the dashboard's). */
export const presentWebhookTestAccepted = (m: Pick<WebhookMessageDoc, '_id' | 'endpointId' | 'state' | 'createdAt'>): z.input<typeof WebhookTestAccepted> => ({
  msgId: m._id,
  endpointId: m.endpointId,
  type: 'webhook.test',
  state: m.state,
  createdAt: m.createdAt.toISOString(),
});
