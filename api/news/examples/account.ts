/**
 * Worked examples of the account's routes (API keys, usage, preferences, billing, WhatsApp): one
 * reader of the financial newsletter, Mariana, on the Pro plan, who follows energy and finance,
 * watches Petrobras and Vale, and reads the news on WhatsApp too. The routes refer to these
 * fixtures (api/shared/route.ts RouteExample); ids are in the formats the code makes.
 */
import type { z } from 'zod';
import type {
  CheckoutSessionView,
  KeyUsageView,
  KeyView,
  NewKeyView,
  NotificationSettingsView,
  PhoneLinkedView,
  PortalSessionView,
  PreferencesBody,
  RelevanceSettingsView,
  StripeEvent,
  SubscriptionView,
  WhatsAppStatusView,
  WhatsAppWebhookBody,
} from '../contracts';

// ---- Ids ----------------------------------------------------------------------------------------

/** The account's user id (models/accounts/sign-in.rules.ts emailUserId of mariana.souza@exemplo.com.br). */
export const USER_ID = 'usr_em_ba1ee16c1af914a2de1deaba';
/** Entities of the seeded dictionary (ops/news-corpus.ts entityIdFor('company:PETR4'), …). */
export const PETROBRAS_ENTITY_ID = '98734bad-09cd-560f-96b7-3699843fa2fe';
export const VALE_ENTITY_ID = 'ebf3a2f9-a51e-56d9-acbb-5ccc8d6ff7ed';
export const ITAU_ENTITY_ID = 'e2a907a3-2d1a-5547-b962-b2976615ca95';

// ---- API keys -----------------------------------------------------------------------------------

/** A live key made for a quotes dashboard, 90 days, two scopes. */
export const liveKeyExample = {
  id: '99082d26-68e9-44af-b2fb-ba4d1116e4a1',
  name: 'Painel de cotações',
  prefix: 'nws_live_EXAMPL',
  mode: 'live',
  scopes: ['read:articles', 'read:breaking'],
  expiresAt: '2027-02-22T11:32:05.000Z',
  lastUsedAt: null,
  status: 'active',
  createdAt: '2026-11-24T11:32:05.000Z',
} satisfies z.input<typeof KeyView>;

/** The key as created: this once with the key itself (a sample in the real format, nws_live_ and 32 characters). */
export const newKeyExample = {
  ...liveKeyExample,
  key: 'nws_live_EXAMPLE-not-a-real-key-000000000',
} satisfies z.input<typeof NewKeyView>;

/** An older test key of the same account. */
export const testKeyExample = {
  id: '80430b8b-c6bd-4242-a891-cde68342cd62',
  name: 'Testes de integração',
  prefix: 'nws_test_q7Xk2P',
  mode: 'test',
  scopes: ['*'],
  expiresAt: null,
  lastUsedAt: '2026-11-23T18:47:10.000Z',
  status: 'active',
  createdAt: '2026-11-10T09:15:42.000Z',
} satisfies z.input<typeof KeyView>;

/** The account's keys, newest first, the live one used since its creation. */
export const keyListExample = [{ ...liveKeyExample, lastUsedAt: '2026-11-24T11:40:12.000Z' }, testKeyExample] satisfies z.input<typeof KeyView>[];

/** The test key, revoked. */
export const revokedKeyExample = { ...testKeyExample, status: 'revoked' } satisfies z.input<typeof KeyView>;

// ---- Usage --------------------------------------------------------------------------------------

/** GET /api/usage with the live key on the Pro plan (500 a minute, 3,000,000 a month; sandbox 1,000 a day). */
export const usageExample = {
  plan: 'Pro',
  key: { id: liveKeyExample.id, mode: 'live', countedMonthly: true },
  minute: { limit: 500, used: 37, remaining: 463, resetsAt: '2026-11-24T11:41:04.318Z' },
  month: { limit: 3_000_000, used: 1_284_517, remaining: 1_715_483, resetsAt: '2026-12-01T00:00:00.000Z' },
  sandbox: { limit: 1_000, used: 42, remaining: 958, resetsAt: '2026-11-25T00:00:00.000Z' },
} satisfies z.input<typeof KeyUsageView>;

// ---- Preferences --------------------------------------------------------------------------------

export const notificationSettingsExample = {
  email: true,
  push: false,
  whatsapp: true,
  breakingOnly: false,
  minScore: 60,
  digest: true,
  digestHour: 7,
  timeZone: 'America/Sao_Paulo',
  language: 'pt',
  quietHours: { start: '22:00', end: '07:00' },
} satisfies z.input<typeof NotificationSettingsView>;

/** What the reader changed of the relevance defaults (models/news/preferences.rules.ts DEFAULT_RELEVANCE). */
export const relevanceChangesExample = { watchlistMultiplier: 2, recencyDecayHours: 12 } satisfies Partial<z.input<typeof RelevanceSettingsView>>;

/** The defaults with those changes. */
export const relevanceSettingsExample = {
  sectorMultiplier: 1,
  topicMultiplier: 1,
  keywordMultiplier: 1,
  watchlistMultiplier: 2,
  breakingNewsMultiplier: 1.5,
  exclusiveMultiplier: 1.2,
  recencyDecayEnabled: true,
  recencyDecayHours: 12,
} satisfies z.input<typeof RelevanceSettingsView>;

/**
 * The reader's preferences (GET), as every edit example leaves them: finance and energy, interest
 * rates and dividends, Petrobras and Vale, the Selic and the Copom.
 */
export const preferencesExample = {
  sectors: ['FIN', 'ENE'],
  sectorWeights: { FIN: 1.5, ENE: 2 },
  topics: ['RATES', 'DIV'],
  topicWeights: { RATES: 2, DIV: 1.5 },
  watchlistCompanies: [PETROBRAS_ENTITY_ID, VALE_ENTITY_ID],
  watchlistTickers: ['PETR4', 'VALE3'],
  keywords: ['Selic', 'Copom'],
  keywordWeights: { Selic: 2, Copom: 1.5 },
  notificationSettings: notificationSettingsExample,
  relevanceSettings: relevanceSettingsExample,
} satisfies z.input<typeof PreferencesBody>;

// ---- Billing ------------------------------------------------------------------------------------

/** Stripe test-mode ids of the account's customer and subscription (Pro, monthly). */
export const STRIPE_CUSTOMER_ID = 'cus_TQxbLm4kVd2sRa';
export const STRIPE_SUBSCRIPTION_ID = 'sub_1SXk4fLkdIwHu7ixQv3bT9rE';
export const STRIPE_EVENT_ID = 'evt_1SXk9wLkdIwHu7ixa2GfP0Nc';

export const checkoutSessionExample = {
  sessionId: 'cs_test_a1Kx9QwT3mZpR7vL2nB8cY4dF6gH0jS5uE1oI9aW3xN7qM2kV8bC4zD6',
  url: 'https://checkout.stripe.com/c/pay/cs_test_a1Kx9QwT3mZpR7vL2nB8cY4dF6gH0jS5uE1oI9aW3xN7qM2kV8bC4zD6',
} satisfies z.input<typeof CheckoutSessionView>;

export const portalSessionExample = {
  url: 'https://billing.stripe.com/p/session/test_YWNjdF8xU1hrNGZMa2RJd0h1N2l4LF9UUXhiTG00a1ZkMnNSYQ',
} satisfies z.input<typeof PortalSessionView>;

/**
 * Stripe's customer.subscription.updated as sent when the customer cancelled in the portal: the
 * subscription stays active until the end of the period it paid for.
 */
export const stripeEventExample = {
  id: STRIPE_EVENT_ID,
  object: 'event',
  api_version: '2026-10-28.endive',
  created: 1795519925,
  type: 'customer.subscription.updated',
  livemode: false,
  pending_webhooks: 1,
  request: { id: null, idempotency_key: null },
  data: {
    object: {
      id: STRIPE_SUBSCRIPTION_ID,
      object: 'subscription',
      customer: STRIPE_CUSTOMER_ID,
      status: 'active',
      cancel_at_period_end: true,
      cancel_at: 1796306842,
      canceled_at: 1795519925,
      cancellation_details: { comment: null, feedback: 'too_expensive', reason: 'cancellation_requested' },
      collection_method: 'charge_automatically',
      currency: 'brl',
      items: {
        object: 'list',
        data: [
          {
            id: 'si_TQxc8VnYb3Kp1L',
            object: 'subscription_item',
            current_period_start: 1793714842,
            current_period_end: 1796306842,
            price: { id: 'price_pro_monthly', object: 'price', currency: 'brl', unit_amount: 39900, recurring: { interval: 'month', interval_count: 1 } },
            quantity: 1,
          },
        ],
      },
      metadata: { userId: USER_ID, plan: 'pro' },
      livemode: false,
    },
    previous_attributes: { cancel_at_period_end: false, cancel_at: null, canceled_at: null },
  },
} satisfies z.input<typeof StripeEvent>;

/** The subscription after that event: still Pro until 2026-12-03, then Starter. */
export const subscriptionExample = {
  customerId: STRIPE_CUSTOMER_ID,
  subscriptionId: STRIPE_SUBSCRIPTION_ID,
  status: 'active',
  plan: 'pro',
  subscribedPlan: 'pro',
  currentPeriodEnd: '2026-12-03T14:07:22.000Z',
  cancelAtPeriodEnd: true,
  graceEndsAt: null,
  lastPaymentFailure: null,
  eventsApplied: 4,
  asOf: '2026-11-24T11:32:05.000Z',
} satisfies z.input<typeof SubscriptionView>;

// ---- WhatsApp -----------------------------------------------------------------------------------

/** The newsletter's WhatsApp phone number id (Meta's identifier, not a credential). */
export const WHATSAPP_PHONE_NUMBER_ID = '106540352242922';
/** The reader's phone, as WhatsApp writes it (wa_id). */
export const READER_PHONE = '5511987654321';

/** Meta's `messages` webhook: the reader asks for the latest news. */
export const whatsappDeliveryExample = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '551130405060', phone_number_id: WHATSAPP_PHONE_NUMBER_ID },
            contacts: [{ profile: { name: 'Mariana Souza' }, wa_id: READER_PHONE }],
            messages: [
              {
                from: READER_PHONE,
                id: 'wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFDNBMDJCNkY1QzE4RjZBNEQ5RTNCAA==',
                timestamp: '1795519925',
                type: 'text',
                text: { body: 'Últimas notícias' },
              },
            ],
          },
        },
      ],
    },
  ],
} satisfies z.input<typeof WhatsAppWebhookBody>;

export const whatsappStatusExample = { configured: true, phoneNumberId: WHATSAPP_PHONE_NUMBER_ID, flowConfigured: true } satisfies z.input<typeof WhatsAppStatusView>;

/** The reader's phone, masked as the link answer shows it (operations/whatsapp/messages.ts maskPhone). */
export const phoneLinkedExample = { linked: true, phone: '5511•••••••21' } satisfies z.input<typeof PhoneLinkedView>;
