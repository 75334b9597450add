/**
 * The account's webhook endpoints (issue 40, part 5): register, list, read, change (enable,
 * disable), remove, and rotate the signing secret. Authenticated by an API key of the account
 * with the scope read:articles (or *): the endpoints deliver articles, so a key that may read
 * them may say where they go; the account's minute limit and quota count these requests as any
 * other. A signing secret is in two answers only, the creation's and the rotation's, and is
 * stored sealed (models/events/secret-box.ts), never logged.
 *
 * Errors: 400 for a body or URL refused (the URL's scheme, credentials, or a host on a private,
 * loopback, link-local or metadata address, or that does not resolve), nothing changed; 404 for an
 * unknown endpoint or another account's; 409 when the account already holds its plan's number of
 * endpoints.
 */
import { z } from 'zod';
import { ENDPOINTS_LISTED } from '../../models/events/webhook-endpoint.repo';
import { changeWebhookEndpoint, createWebhookEndpoint, getWebhookEndpoint, listWebhookEndpoints, removeWebhookEndpoint, rotateWebhookSecret } from '../../operations/events/webhook-endpoints';
import { PLAN_LIMITS } from '../../models/shared/plan.rules';
import { WEBHOOK_SENDS_PER_MINUTE, webhookDeliveryDeps as deliveryDeps, webhookEndpointDeps as endpointDeps } from '../shared/bundles';
import { reply, routeFactory } from '../shared/route';
import type { Context } from 'koa';
import { apiKey, type KeyPrincipal } from './auth';
import { listDeliveries, replayMessage, sendTestEvent } from '../../operations/events/webhook-delivery';
import {
  presentWebhookDelivery,
  presentWebhookTestAccepted,
  presentWebhookEndpoint,
  presentWebhookEndpointWithSecret,
  WEBHOOK_SECRET_SHOWN_ONCE,
  WebhookDeliveriesPage,
  WebhookDeliveriesQuery,
  WebhookMessageParams,
  WebhookReplayAccepted,
  WebhookTestAccepted,
  WebhookEndpointBody,
  WebhookEndpointDeleted,
  WebhookEndpointIdParams,
  WebhookEndpointPatchBody,
  WebhookEndpointView,
  WebhookEndpointWithSecretView,
} from './contracts';
import type { NewsDeps } from './deps';
import { ARCHIVE_ENDPOINT_ID, BREAKING_MESSAGE_ID, replayAcceptedExample, testAcceptedExample, tradingDeliveriesExample, archiveEndpointExample, newTradingEndpointExample, rotatedTradingEndpointExample, TRADING_ENDPOINT_ID, tradingEndpointExample } from './examples/webhooks';

const route = routeFactory<NewsDeps>();
const owner = apiKey('read:articles');
const tags = ['webhooks'];
const base = '/api/webhooks/endpoints';

/** Replays and test events make requests to the customer's endpoint: a few a minute per account. */
const sendLimit = async ({ ctx, auth, deps }: { ctx: Context; auth: KeyPrincipal; deps: NewsDeps }) => deps.webhookSendLimiter.consume(ctx, `account:${auth.sub}`);

/** What can be done with the endpoint an answer names (OpenAPI links: the fuzzer's stateful phase follows them too). */
const links = [
  { name: 'read', method: 'get' as const, path: `${base}/:id`, parameters: { id: '$response.body#/data/id' } },
  { name: 'change', method: 'patch' as const, path: `${base}/:id`, parameters: { id: '$response.body#/data/id' } },
  { name: 'rotateSecret', method: 'post' as const, path: `${base}/:id/secret/rotate`, parameters: { id: '$response.body#/data/id' } },
  { name: 'remove', method: 'delete' as const, path: `${base}/:id`, parameters: { id: '$response.body#/data/id' } },
];

const caps = `Starter ${PLAN_LIMITS.starter.webhookEndpoints}, Pro ${PLAN_LIMITS.pro.webhookEndpoints}, Business ${PLAN_LIMITS.business.webhookEndpoints}`;

export const webhookRoutes = [
  route({
    method: 'get',
    path: base,
    summary: "The account's webhook endpoints",
    description: 'Newest first. Never their signing secrets.',
    tags,
    auth: owner,
    response: z.array(WebhookEndpointView).max(ENDPOINTS_LISTED),
    example: { response: [tradingEndpointExample, archiveEndpointExample] },
    handler: async ({ auth, deps }) => (await listWebhookEndpoints(endpointDeps(deps), auth.sub)).map(presentWebhookEndpoint),
  }),

  route({
    method: 'post',
    path: base,
    summary: 'Register a webhook endpoint (its secret shown once)',
    description:
      'Deliveries are signed as Standard Webhooks say (webhook-id, webhook-timestamp, webhook-signature): verify them with the secret in this answer, which is never shown again (rotate it to get a new one). ' +
      'The URL must be https, with no credentials, and its host must resolve to public addresses only (private, loopback, link-local and metadata addresses are refused with 400). ' +
      `An account holds at most its plan's number of endpoints (${caps}); past it, 409.`,
    tags,
    auth: owner,
    body: WebhookEndpointBody,
    status: 201,
    response: WebhookEndpointWithSecretView,
    links,
    errors: [409],
    example: {
      body: { url: tradingEndpointExample.url, eventTypes: ['article.breaking'], filters: tradingEndpointExample.filters, description: tradingEndpointExample.description },
      response: newTradingEndpointExample,
      message: WEBHOOK_SECRET_SHOWN_ONCE,
    },
    handler: async ({ body, auth, deps }) => {
      const made = await createWebhookEndpoint(endpointDeps(deps), auth.sub, auth.plan, body);
      return reply({ status: 201, message: WEBHOOK_SECRET_SHOWN_ONCE, data: presentWebhookEndpointWithSecret(made), headers: { Location: `${base}/${made.endpoint._id}` } });
    },
  }),

  route({
    method: 'get',
    path: `${base}/:id`,
    summary: 'One webhook endpoint',
    description: 'Never its signing secret. Another account\'s endpoint is 404, as an unknown one.',
    tags,
    auth: owner,
    params: WebhookEndpointIdParams,
    response: WebhookEndpointView,
    errors: [404],
    example: { params: { id: TRADING_ENDPOINT_ID }, response: tradingEndpointExample },
    handler: async ({ params, auth, deps }) => presentWebhookEndpoint(await getWebhookEndpoint(endpointDeps(deps), auth.sub, params.id)),
  }),

  route({
    method: 'patch',
    path: `${base}/:id`,
    summary: 'Change, enable or disable a webhook endpoint',
    description: 'Only the fields sent change; filters are replaced whole. A new URL is checked as at registration. state disabled stops deliveries; enabled starts them again, also for an endpoint disabled because it kept failing.',
    tags,
    auth: owner,
    params: WebhookEndpointIdParams,
    body: WebhookEndpointPatchBody,
    response: WebhookEndpointView,
    errors: [404],
    example: { params: { id: ARCHIVE_ENDPOINT_ID }, body: { state: 'disabled' }, response: archiveEndpointExample },
    handler: async ({ params, body, auth, deps }) => presentWebhookEndpoint(await changeWebhookEndpoint(endpointDeps(deps), auth.sub, params.id, body)),
  }),

  route({
    method: 'delete',
    path: `${base}/:id`,
    summary: 'Remove a webhook endpoint',
    description: 'Nothing more is delivered to it; its place counts no more against the plan.',
    tags,
    auth: owner,
    params: WebhookEndpointIdParams,
    response: WebhookEndpointDeleted,
    errors: [404],
    example: { params: { id: ARCHIVE_ENDPOINT_ID }, response: { id: ARCHIVE_ENDPOINT_ID, deleted: true } },
    handler: async ({ params, auth, deps }) => {
      await removeWebhookEndpoint(endpointDeps(deps), auth.sub, params.id);
      return { id: params.id, deleted: true as const };
    },
  }),

  route({
    method: 'post',
    path: `${base}/:id/secret/rotate`,
    summary: "Rotate a webhook endpoint's signing secret (the new one shown once)",
    description:
      'Deliveries are signed with the new secret at once, and for 24 hours with the old one too (two signatures in webhook-signature), so receivers can switch without losing one. The new secret is in this answer only.',
    tags,
    auth: owner,
    params: WebhookEndpointIdParams,
    response: WebhookEndpointWithSecretView,
    errors: [404],
    example: { params: { id: TRADING_ENDPOINT_ID }, response: rotatedTradingEndpointExample, message: WEBHOOK_SECRET_SHOWN_ONCE },
    handler: async ({ params, auth, deps }) => reply({ message: WEBHOOK_SECRET_SHOWN_ONCE, data: presentWebhookEndpointWithSecret(await rotateWebhookSecret(endpointDeps(deps), auth.sub, params.id)) }),
  }),

  route({
    method: 'get',
    path: `${base}/:id/deliveries`,
    summary: "A webhook endpoint's delivery log",
    description:
      'Every attempt to deliver a message to the endpoint (replays and test events included), newest first, kept 30 days: the headers sent (not the signature), the status answered or why there was none, the duration and the first 4 KiB of the answer. ' +
      "A page holds `limit` attempts (at most 100); pass the answer's `next` as `before` for the older ones.",
    tags,
    auth: owner,
    params: WebhookEndpointIdParams,
    query: WebhookDeliveriesQuery,
    response: WebhookDeliveriesPage,
    errors: [404],
    example: { params: { id: TRADING_ENDPOINT_ID }, query: { limit: 20 }, response: tradingDeliveriesExample },
    handler: async ({ params, query, auth, deps }) => {
      const page = await listDeliveries(deliveryDeps(deps), auth.sub, params.id, { limit: query.limit, before: query.before });
      return { deliveries: page.attempts.map(presentWebhookDelivery), next: page.next };
    },
  }),

  route({
    method: 'post',
    path: `${base}/:id/messages/:msgId/replay`,
    summary: 'Replay one message to a webhook endpoint',
    description:
      'One more delivery of the message (its msg id is the webhook-id of its deliveries), whatever became of it, delivered or failed for good: the same webhook-id and body, signed anew, one attempt, in the delivery log. ' +
      `Another account's endpoint or message is 404; a disabled endpoint, 409 (enable it first). At most ${WEBHOOK_SENDS_PER_MINUTE} replays and test events per minute per account.`,
    tags,
    auth: owner,
    params: WebhookMessageParams,
    status: 202,
    response: WebhookReplayAccepted,
    errors: [404, 409],
    rateLimit: sendLimit,
    example: { params: { id: TRADING_ENDPOINT_ID, msgId: BREAKING_MESSAGE_ID }, response: replayAcceptedExample },
    handler: async ({ params, auth, deps }) => reply({ status: 202, data: await replayMessage(deliveryDeps(deps), auth.sub, params.id, params.msgId) }),
  }),

  route({
    method: 'post',
    path: `${base}/:id/test`,
    summary: 'Send a test event to a webhook endpoint',
    description:
      'A webhook.test message ({type, timestamp, data: {endpointId, message}}) delivered to the endpoint as any other, whatever event types it subscribes to, retried on the same schedule; its attempts are in the delivery log. ' +
      `A disabled endpoint is 409. At most ${WEBHOOK_SENDS_PER_MINUTE} replays and test events per minute per account.`,
    tags,
    auth: owner,
    params: WebhookEndpointIdParams,
    status: 202,
    response: WebhookTestAccepted,
    errors: [404, 409],
    rateLimit: sendLimit,
    example: { params: { id: TRADING_ENDPOINT_ID }, response: testAcceptedExample },
    handler: async ({ params, auth, deps }) => {
      return reply({ status: 202, data: presentWebhookTestAccepted(await sendTestEvent(deliveryDeps(deps), auth.sub, params.id)) });
    },
  }),
];
