/**
 * Worked examples of the webhook endpoints' routes: Mariana's desk (examples/account.ts) has its
 * trading tool hear of breaking news about Petrobras and Vale, and its archive of every article
 * published on energy. Ids and secrets are in the formats the code makes; the secrets are
 * examples, never used anywhere.
 */
import type { z } from 'zod';
import type { WebhookDeliveriesPage, WebhookEndpointView, WebhookEndpointWithSecretView, WebhookReplayAccepted, WebhookTestAccepted } from '../contracts';
import { PETROBRAS_ENTITY_ID, VALE_ENTITY_ID } from './account';

export const TRADING_ENDPOINT_ID = 'we_WEuR0mng-dY0ZvR61i0E-g';
export const ARCHIVE_ENDPOINT_ID = 'we_KZPHMt1y7wWBB3HD95vO4w';

export const tradingEndpointExample = {
  id: TRADING_ENDPOINT_ID,
  url: 'https://hooks.mesa-exemplo.com.br/newsletter/breaking',
  description: 'Mesa de operações: urgentes de Petrobras e Vale',
  eventTypes: ['article.breaking'],
  filters: { entityIds: [PETROBRAS_ENTITY_ID, VALE_ENTITY_ID] },
  state: 'enabled',
  disabledReason: null,
  failingSince: null,
  secretCreatedAt: '2026-11-24T14:02:11.000Z',
  previousSecretExpiresAt: null,
  createdAt: '2026-11-24T14:02:11.000Z',
  updatedAt: '2026-11-24T14:02:11.000Z',
} satisfies z.input<typeof WebhookEndpointView>;

export const newTradingEndpointExample = {
  ...tradingEndpointExample,
  secret: 'whsec_KmOQ+ynR+vWKsMPN7v+xT2223XCD7jac08Jh71l/Jug=',
} satisfies z.input<typeof WebhookEndpointWithSecretView>;

export const archiveEndpointExample = {
  id: ARCHIVE_ENDPOINT_ID,
  url: 'https://arquivo.mesa-exemplo.com.br/webhooks/artigos',
  description: null,
  eventTypes: ['article.published', 'article.breaking'],
  filters: { sectors: ['ENE'] },
  state: 'disabled',
  disabledReason: 'owner',
  failingSince: null,
  secretCreatedAt: '2026-11-20T09:30:00.000Z',
  previousSecretExpiresAt: null,
  createdAt: '2026-11-20T09:30:00.000Z',
  updatedAt: '2026-11-25T18:45:20.000Z',
} satisfies z.input<typeof WebhookEndpointView>;

/** The trading endpoint's secret rotated a day after it was made: the first secret signs for 24 more hours. */
export const rotatedTradingEndpointExample = {
  ...tradingEndpointExample,
  secretCreatedAt: '2026-11-25T10:15:00.000Z',
  previousSecretExpiresAt: '2026-11-26T10:15:00.000Z',
  updatedAt: '2026-11-25T10:15:00.000Z',
  secret: 'whsec_o2lBgWbqUL1ei3nR4uDNtBINt3CcTD8VBgk/U11szgc=',
} satisfies z.input<typeof WebhookEndpointWithSecretView>;

/** A breaking article delivered to the trading endpoint: the receiver was busy at first (503 with Retry-After), then took it. */
export const BREAKING_MESSAGE_ID = 'msg_2Yq0cVbGZ0u2n1mHk5sQ8w';
const deliveryHeaders = {
  'webhook-id': BREAKING_MESSAGE_ID,
  'content-type': 'application/json',
  'user-agent': 'NewsletterPlatform-Webhooks/1.0',
  'webhook-signature': '(1 signature)',
};

export const tradingDeliveriesExample = {
  deliveries: [
    {
      id: 'wa_bX1r9qk0Zf3mVt2pL8sN4A',
      msgId: BREAKING_MESSAGE_ID,
      attempt: 2,
      replay: false,
      url: tradingEndpointExample.url,
      requestHeaders: { ...deliveryHeaders, 'webhook-timestamp': '1764166392' },
      status: 204,
      error: null,
      durationMs: 84,
      responseBody: '',
      at: '2026-11-26T14:13:12.000Z',
    },
    {
      id: 'wa_Qm7Tz2cV9bN1xK4pR6sW0g',
      msgId: BREAKING_MESSAGE_ID,
      attempt: 1,
      replay: false,
      url: tradingEndpointExample.url,
      requestHeaders: { ...deliveryHeaders, 'webhook-timestamp': '1764166332' },
      status: 503,
      error: null,
      durationMs: 212,
      responseBody: '{"error":"maintenance, retry in a minute"}',
      at: '2026-11-26T14:12:12.000Z',
    },
  ],
  next: null,
} satisfies z.input<typeof WebhookDeliveriesPage>;

export const replayAcceptedExample = { msgId: BREAKING_MESSAGE_ID, endpointId: TRADING_ENDPOINT_ID, replayId: 'k3PzQ0aV7mWc' } satisfies z.input<typeof WebhookReplayAccepted>;

export const testAcceptedExample = { msgId: 'msg_Hc4m0Q1tVb8rZ2kX7pN9yA', endpointId: TRADING_ENDPOINT_ID, type: 'webhook.test', state: 'pending', createdAt: '2026-11-26T15:00:00.000Z' } satisfies z.input<typeof WebhookTestAccepted>;
