/**
 * The account's webhook endpoints in the dashboard (issue 40, part 5: "managed in the dashboard
 * and by the news API"), signed in by session (the CSRF token on every change). The same use cases
 * as the news API's /api/webhooks/endpoints (operations/events/webhook-endpoints.ts) over the same
 * endpoints, presented with the same views: the signing secret is in the creation's and the
 * rotation's answers only (never cached), never in a read.
 *
 * Errors as the news API's: 400 for a body or URL refused (nothing stored), 404 for an unknown
 * endpoint or another account's, 409 when the account holds its plan's number of endpoints.
 *
 * Each endpoint's delivery log, a message's replay and a test event: the news API's use cases
 * (operations/events/webhook-delivery.ts) and views, and its limiter (replays and test events per
 * account, whichever door they come through).
 */
import { z } from 'zod';
import { ENDPOINTS_LISTED } from '../../models/events/webhook-endpoint.repo';
import { PLAN_LIMITS } from '../../models/shared/plan.rules';
import type { Context } from 'koa';
import { listDeliveries, replayMessage, sendTestEvent } from '../../operations/events/webhook-delivery';
import { changeWebhookEndpoint, createWebhookEndpoint, getWebhookEndpoint, listWebhookEndpoints, removeWebhookEndpoint, rotateWebhookSecret } from '../../operations/events/webhook-endpoints';
import {
  presentWebhookDelivery,
  presentWebhookTestAccepted,
  WebhookDeliveriesPage,
  WebhookDeliveriesQuery,
  WebhookMessageParams,
  WebhookReplayAccepted,
  WebhookTestAccepted,
  presentWebhookEndpoint,
  presentWebhookEndpointWithSecret,
  WEBHOOK_SECRET_SHOWN_ONCE,
  WebhookEndpointBody,
  WebhookEndpointDeleted,
  WebhookEndpointIdParams,
  WebhookEndpointPatchBody,
  WebhookEndpointView,
  WebhookEndpointWithSecretView,
} from '../news/contracts';
import { WEBHOOK_SENDS_PER_MINUTE, webhookDeliveryDeps, webhookEndpointDeps } from '../shared/bundles';
import { reply, routeFactory } from '../shared/route';
import type { WebDeps } from './deps';
import {
  ARCHIVE_ENDPOINT_ID,
  archiveEndpointExample,
  BREAKING_MESSAGE_ID,
  newTradingEndpointExample,
  replayAcceptedExample,
  rotatedTradingEndpointExample,
  testAcceptedExample,
  TRADING_ENDPOINT_ID,
  tradingDeliveriesExample,
  tradingEndpointExample,
} from './examples';
import { signedIn, type SessionPrincipal } from './session';

const route = routeFactory<WebDeps>();
const auth = signedIn;
const tags = ['webhooks'];
const base = '/api/account/webhooks/endpoints';
/** Replays and test events make requests to the customer's endpoint: the news API's per-account limit, shared with it. */
const sendLimit = async ({ ctx, auth: a, deps }: { ctx: Context; auth: SessionPrincipal; deps: WebDeps }) => deps.webhookSendLimiter.consume(ctx, `account:${a.sub}`);
const caps = `Starter ${PLAN_LIMITS.starter.webhookEndpoints}, Pro ${PLAN_LIMITS.pro.webhookEndpoints}, Business ${PLAN_LIMITS.business.webhookEndpoints}`;

export const webhookRoutes = [
  route({
    method: 'get',
    path: base,
    summary: "The account's webhook endpoints",
    description: 'Newest first, the same list as GET /api/webhooks/endpoints of the News API. Never their signing secrets.',
    tags,
    auth,
    response: z.array(WebhookEndpointView).max(ENDPOINTS_LISTED),
    example: { response: [tradingEndpointExample, archiveEndpointExample] },
    handler: async ({ auth: a, deps }) => (await listWebhookEndpoints(webhookEndpointDeps(deps), a.sub)).map(presentWebhookEndpoint),
  }),

  route({
    method: 'post',
    path: base,
    summary: 'Register a webhook endpoint (its secret shown once)',
    description:
      'As POST /api/webhooks/endpoints of the News API: the URL must be https, with no credentials, its host resolving to public addresses only (400 otherwise, nothing stored). ' +
      `The signing secret is in this answer only. An account holds at most its plan's number of endpoints (${caps}); past it, 409.`,
    tags,
    auth,
    body: WebhookEndpointBody,
    status: 201,
    response: WebhookEndpointWithSecretView,
    errors: [409],
    example: {
      body: { url: tradingEndpointExample.url, eventTypes: ['article.breaking'], filters: tradingEndpointExample.filters, description: tradingEndpointExample.description },
      response: newTradingEndpointExample,
      message: WEBHOOK_SECRET_SHOWN_ONCE,
    },
    handler: async ({ body, auth: a, ctx, deps }) => {
      ctx.set('Cache-Control', 'no-store');
      const { plan } = await deps.users.ensure(a.sub, a.email);
      const made = await createWebhookEndpoint(webhookEndpointDeps(deps), a.sub, plan, body);
      return reply({ status: 201, message: WEBHOOK_SECRET_SHOWN_ONCE, data: presentWebhookEndpointWithSecret(made), headers: { Location: `${base}/${made.endpoint._id}` } });
    },
  }),

  route({
    method: 'get',
    path: `${base}/:id`,
    summary: 'One webhook endpoint',
    description: "Never its signing secret. Another account's endpoint is 404, as an unknown one.",
    tags,
    auth,
    params: WebhookEndpointIdParams,
    response: WebhookEndpointView,
    errors: [404],
    example: { params: { id: TRADING_ENDPOINT_ID }, response: tradingEndpointExample },
    handler: async ({ params, auth: a, deps }) => presentWebhookEndpoint(await getWebhookEndpoint(webhookEndpointDeps(deps), a.sub, params.id)),
  }),

  route({
    method: 'patch',
    path: `${base}/:id`,
    summary: 'Change, enable or disable a webhook endpoint',
    description: 'Only the fields sent change; filters are replaced whole; a new URL is checked as at registration. state disabled stops deliveries; enabled starts them again (also for an endpoint disabled because it failed).',
    tags,
    auth,
    params: WebhookEndpointIdParams,
    body: WebhookEndpointPatchBody,
    response: WebhookEndpointView,
    errors: [404],
    example: { params: { id: ARCHIVE_ENDPOINT_ID }, body: { state: 'disabled' }, response: archiveEndpointExample },
    handler: async ({ params, body, auth: a, deps }) => presentWebhookEndpoint(await changeWebhookEndpoint(webhookEndpointDeps(deps), a.sub, params.id, body)),
  }),

  route({
    method: 'delete',
    path: `${base}/:id`,
    summary: 'Remove a webhook endpoint',
    description: 'Nothing more is delivered to it; its place counts no more against the plan.',
    tags,
    auth,
    params: WebhookEndpointIdParams,
    response: WebhookEndpointDeleted,
    errors: [404],
    example: { params: { id: ARCHIVE_ENDPOINT_ID }, response: { id: ARCHIVE_ENDPOINT_ID, deleted: true } },
    handler: async ({ params, auth: a, deps }) => {
      await removeWebhookEndpoint(webhookEndpointDeps(deps), a.sub, params.id);
      return { id: params.id, deleted: true as const };
    },
  }),

  route({
    method: 'post',
    path: `${base}/:id/secret/rotate`,
    summary: "Rotate a webhook endpoint's signing secret (the new one shown once)",
    description: 'Deliveries are signed with the new secret at once, and for 24 hours with the old one too, so the receiver can switch without losing one. The new secret is in this answer only.',
    tags,
    auth,
    params: WebhookEndpointIdParams,
    response: WebhookEndpointWithSecretView,
    errors: [404],
    example: { params: { id: TRADING_ENDPOINT_ID }, response: rotatedTradingEndpointExample, message: WEBHOOK_SECRET_SHOWN_ONCE },
    handler: async ({ params, auth: a, ctx, deps }) => {
      ctx.set('Cache-Control', 'no-store');
      return reply({ message: WEBHOOK_SECRET_SHOWN_ONCE, data: presentWebhookEndpointWithSecret(await rotateWebhookSecret(webhookEndpointDeps(deps), a.sub, params.id)) });
    },
  }),

  route({
    method: 'get',
    path: `${base}/:id/deliveries`,
    summary: "A webhook endpoint's delivery log",
    description:
      'As GET /api/webhooks/endpoints/{id}/deliveries of the News API: every attempt (replays and test events included), newest first, kept 30 days; the headers sent (not the signature), the status or why there was none, the duration and the first 4 KiB of the answer. ' +
      "A page holds `limit` attempts (at most 100); pass the answer's `next` as `before` for the older ones.",
    tags,
    auth,
    params: WebhookEndpointIdParams,
    query: WebhookDeliveriesQuery,
    response: WebhookDeliveriesPage,
    errors: [404],
    example: { params: { id: TRADING_ENDPOINT_ID }, query: { limit: 20 }, response: tradingDeliveriesExample },
    handler: async ({ params, query, auth: a, deps }) => {
      const page = await listDeliveries(webhookDeliveryDeps(deps), a.sub, params.id, { limit: query.limit, before: query.before });
      return { deliveries: page.attempts.map(presentWebhookDelivery), next: page.next };
    },
  }),

  route({
    method: 'post',
    path: `${base}/:id/messages/:msgId/replay`,
    summary: 'Replay one message to a webhook endpoint',
    description:
      'As the News API: one more delivery of the message (the same webhook-id and body, signed anew, one attempt, in the delivery log). ' +
      `Another account's endpoint or message is 404; a disabled endpoint, 409. At most ${WEBHOOK_SENDS_PER_MINUTE} replays and test events per minute per account (the News API's count too).`,
    tags,
    auth,
    params: WebhookMessageParams,
    status: 202,
    response: WebhookReplayAccepted,
    errors: [404, 409],
    rateLimit: sendLimit,
    example: { params: { id: TRADING_ENDPOINT_ID, msgId: BREAKING_MESSAGE_ID }, response: replayAcceptedExample },
    handler: async ({ params, auth: a, deps }) => reply({ status: 202, data: await replayMessage(webhookDeliveryDeps(deps), a.sub, params.id, params.msgId) }),
  }),

  route({
    method: 'post',
    path: `${base}/:id/test`,
    summary: 'Send a test event to a webhook endpoint',
    description:
      'As the News API: a webhook.test message delivered as any other, whatever event types the endpoint subscribes to; its attempts are in the delivery log. ' +
      `A disabled endpoint is 409. At most ${WEBHOOK_SENDS_PER_MINUTE} replays and test events per minute per account (the News API's count too).`,
    tags,
    auth,
    params: WebhookEndpointIdParams,
    status: 202,
    response: WebhookTestAccepted,
    errors: [404, 409],
    rateLimit: sendLimit,
    example: { params: { id: TRADING_ENDPOINT_ID }, response: testAcceptedExample },
    handler: async ({ params, auth: a, deps }) => reply({ status: 202, data: presentWebhookTestAccepted(await sendTestEvent(webhookDeliveryDeps(deps), a.sub, params.id)) }),
  }),
];
