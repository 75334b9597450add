/**
 * WhatsApp (issue 15; spec §4.10–4.12, docs/decisions.md "WhatsApp"): Meta's webhook verification
 * and deliveries, the channel's status, and the confirmation of a log-in code by the account.
 *
 * A delivery's X-Hub-Signature-256 (HMAC-SHA256 of the exact body with the app secret) is checked
 * before the body is read; each message is stored once by its id and answered at once; the phone's
 * conversation workflow does the work (handed over after the answer; the relay hands over what is
 * left). Delivery statuses are stored on the messages they are about.
 */
import { AppError } from '../../models/errors';
import { linkPhone, maskPhone, receiveDelivery } from '../../operations/whatsapp/messages';
import { validSignature, verificationChallenge } from '../../models/whatsapp/webhook.rules';
import { bearer, publicRoute, type AuthPolicy } from '../shared/auth';
import { RAW, routeFactory } from '../shared/route';
import { PhoneLinkCode, PhoneLinkedView, WhatsAppChallenge, WhatsAppDeliveryAnswer, WhatsAppStatusView, WhatsAppVerificationQuery, WhatsAppWebhookBody } from './contracts';
import type { NewsDeps } from './deps';
import { phoneLinkedExample, whatsappDeliveryExample, whatsappStatusExample } from './examples/account';

const route = routeFactory<NewsDeps>();
const tags = ['whatsapp'];

/** The body's signature with the app secret: the webhook's only credential. */
const metaSignature: AuthPolicy<true> = {
  scheme: 'metaSignature',
  failures: [401],
  signed: true,
  describe: 'X-Hub-Signature-256 header (HMAC-SHA256 of the body with the Meta app secret)',
  providerCredential: {
    in: 'header',
    name: 'X-Hub-Signature-256',
    description: "Meta's HMAC-SHA256 of the exact body with the app secret (WHATSAPP_APP_SECRET); a missing or wrong one is a 401.",
    example: 'sha256=0f6b3a8a3d2f8f9ad0e1c5b77b1e2a4c9d6e0f1a2b3c4d5e6f708192a3b4c5d6',
  },
  async authenticate(ctx, _services, rawDeps) {
    const deps = rawDeps as NewsDeps;
    const secret = deps.config.whatsapp.appSecret;
    if (!secret) throw new AppError('DEPENDENCY_UNAVAILABLE', 'WhatsApp webhooks are not configured on this deployment (no app secret)', { details: { dependency: 'whatsapp' } });
    const raw = (ctx.request as { rawBody?: unknown }).rawBody;
    if (!validSignature(typeof raw === 'string' ? raw : '', ctx.get('x-hub-signature-256') || undefined, secret)) {
      throw new AppError('UNAUTHENTICATED', 'Missing or invalid X-Hub-Signature-256: the body must be signed with the app secret');
    }
    return true;
  },
};

/** Meta's verify token, in the query as Meta's webhook protocol sends it; the handler checks it (403). */
const metaVerifyToken: AuthPolicy<undefined> = {
  ...publicRoute,
  scheme: 'metaVerifyToken',
  failures: [403],
  describe: 'hub.verify_token query parameter (the configured WHATSAPP_VERIFY_TOKEN)',
  providerCredential: {
    in: 'query',
    name: 'hub.verify_token',
    description: "The verify token of Meta's webhook set-up call (WHATSAPP_VERIFY_TOKEN), in the query as Meta's protocol sends it; a wrong one is a 403.",
    example: 'token-de-verificacao',
  },
};

export const whatsappRoutes = [
  route({
    method: 'get',
    path: '/api/whatsapp/webhook',
    summary: "Meta's webhook verification (spec §4.10)",
    description:
      'Meta calls this when the webhook is set up in the app dashboard. With hub.mode=subscribe and the configured verify token, the answer is hub.challenge as plain text; otherwise 403 (the token is never logged).',
    tags,
    auth: metaVerifyToken,
    query: WhatsAppVerificationQuery,
    produces: 'text/plain',
    response: WhatsAppChallenge,
    errors: [403],
    example: {
      query: { 'hub.mode': 'subscribe', 'hub.verify_token': 'exemplo-token-de-verificacao', 'hub.challenge': '1158201444' },
      response: '1158201444',
    },
    handler: ({ query, ctx, deps }) => {
      const token = deps.config.whatsapp.verifyToken;
      const challenge = token ? verificationChallenge(query, token) : undefined;
      if (challenge === undefined) {
        deps.logger.warn({ mode: query['hub.mode'] ?? null, tokenSent: typeof query['hub.verify_token'] === 'string', configured: token !== undefined }, 'whatsapp webhook verification refused');
        throw new AppError('FORBIDDEN', 'Webhook verification failed: hub.mode must be subscribe and hub.verify_token must match');
      }
      ctx.status = 200;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = challenge;
      return RAW;
    },
  }),

  route({
    method: 'post',
    path: '/api/whatsapp/webhook',
    summary: "Meta's WhatsApp deliveries: readers' messages and delivery statuses (spec §4.11)",
    description:
      "The WhatsApp Cloud API's `messages` webhook. X-Hub-Signature-256 must be the HMAC-SHA256 of the exact body with the app secret (401 otherwise; nothing is stored). Each message is stored once by its id and answered at once; the phone's conversation workflow (`whatsapp-<phone>`) answers it. Statuses (sent, delivered, read, failed) are stored on the messages they are about.",
    tags,
    auth: metaSignature,
    rawBody: true,
    body: WhatsAppWebhookBody,
    response: WhatsAppDeliveryAnswer,
    errors: [401, 503],
    example: { body: whatsappDeliveryExample, response: { received: true, messages: 1, duplicates: 0, statuses: 0 } },
    handler: async ({ body, deps }) => {
      // The answer waits for the stored messages only; the hand-over to the conversations follows it.
      const received = await receiveDelivery(deps, body, (m) => deps.background.run(deps.whatsappHandOver.push(m)));
      return { received: true as const, ...received };
    },
  }),

  route({
    method: 'get',
    path: '/api/whatsapp/status',
    summary: 'Whether the WhatsApp channel is configured (spec §4.12)',
    description:
      'Public, like /health: it says whether readers can use WhatsApp here. `phoneNumberId` is the WhatsApp phone number id (an identifier, not a credential; empty when not configured); `flowConfigured`: a WhatsApp Flow for preferences is set up.',
    tags,
    auth: publicRoute,
    response: WhatsAppStatusView,
    example: { response: whatsappStatusExample },
    handler: ({ deps }) => {
      const w = deps.config.whatsapp;
      const configured = w.api !== undefined && w.appSecret !== undefined && w.verifyToken !== undefined;
      return { configured, phoneNumberId: w.api?.phoneNumberId ?? '', flowConfigured: configured && w.flowId !== undefined };
    },
  }),

  route({
    method: 'post',
    path: '/api/whatsapp/link',
    summary: 'Link the phone a log-in code was sent to, to this account',
    description:
      'A reader who sends *entrar* and the e-mail of this account on WhatsApp gets a 6-digit code in that conversation; entered here (signed in as the account), it links that phone to the account, so both are proven. A code works once, for 10 minutes, with 5 tries.',
    tags,
    auth: bearer(),
    body: PhoneLinkCode,
    response: PhoneLinkedView,
    errors: [404, 429],
    example: { body: { code: '482913' }, response: phoneLinkedExample },
    handler: async ({ body, auth, deps }) => {
      const { phone } = await linkPhone(deps, { userId: auth.sub, email: auth.email, code: body.code });
      return { linked: true as const, phone: maskPhone(phone) };
    },
  }),
];
