/**
 * WhatsApp (issue 15; spec §4.10–4.12, docs/decisions.md "WhatsApp"): Meta's webhook verification
 * and deliveries, the channel's status, and the confirmation of a log-in code by the account.
 *
 * A delivery's X-Hub-Signature-256 (HMAC-SHA256 of the exact body with the app secret) is checked
 * before the body is read; each message is stored once by its id and answered at once; the phone's
 * conversation workflow does the work (handed over after the answer; the relay hands over what is
 * left). Delivery statuses are stored on the messages they are about.
 */
import { z } from 'zod';
import { AppError } from '../../models/errors';
import { codeMatches } from '../../models/whatsapp/login-code.rules';
import { readPayload, validSignature, verificationChallenge, WebhookPayload } from '../../models/whatsapp/webhook.rules';
import { bearer, publicRoute, type AuthPolicy } from '../shared/auth';
import { RAW, routeFactory } from '../shared/route';
import type { NewsDeps } from './deps';

const route = routeFactory<NewsDeps>();
const tags = ['whatsapp'];

/** The body's signature with the app secret: the webhook's only credential. */
const metaSignature: AuthPolicy<true> = {
  scheme: 'metaSignature',
  failures: [401],
  signed: true,
  describe: 'X-Hub-Signature-256 header (HMAC-SHA256 of the body with the Meta app secret)',
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
};

const mask = (phone: string) => `${phone.slice(0, 4)}${'•'.repeat(Math.max(0, phone.length - 6))}${phone.slice(-2)}`;

export const whatsappRoutes = [
  route({
    method: 'get',
    path: '/api/whatsapp/webhook',
    summary: "Meta's webhook verification (spec §4.10)",
    description:
      'Meta calls this when the webhook is set up in the app dashboard. With hub.mode=subscribe and the configured verify token, the answer is hub.challenge as plain text; otherwise 403 (the token is never logged).',
    tags,
    auth: metaVerifyToken,
    // Bounded so that the longest URL fits the server's request-header limit (tests/integration/
    // platform.test.ts): Meta's challenge is a short number, the verify token at most 256 (config).
    query: z.looseObject({
      'hub.mode': z.string().max(32).optional(),
      'hub.verify_token': z.string().max(256).optional(),
      'hub.challenge': z.string().max(256).optional(),
    }),
    produces: 'text/plain',
    response: z.string().max(256).describe('hub.challenge, as sent'),
    errors: [403],
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
    body: WebhookPayload,
    response: z.object({
      received: z.literal(true),
      messages: z.number().int().describe('messages in the delivery'),
      duplicates: z.number().int().describe('of them, delivered before'),
      statuses: z.number().int().describe('delivery statuses stored'),
    }),
    errors: [401, 503],
    handler: async ({ body, deps }) => {
      const { messages, statuses } = readPayload(body);
      let duplicates = 0;
      const now = deps.now();
      for (const m of messages) {
        // The answer waits for these records only (the outbox): the hand-over follows.
        const { fresh, stored } = await deps.whatsapp.recordInbound(m, now);
        if (!fresh) duplicates += 1;
        if (!stored.forwardedAt) deps.background.run(deps.whatsappHandOver.push({ id: m.id, phone: m.phone, sentAt: m.sentAt }));
      }
      let stored = 0;
      for (const s of statuses) if (await deps.whatsapp.recordStatus(s)) stored += 1;
      return { received: true as const, messages: messages.length, duplicates, statuses: stored };
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
    response: z.object({ configured: z.boolean(), phoneNumberId: z.string().max(64), flowConfigured: z.boolean() }),
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
    body: z.strictObject({ code: z.string().length(6).regex(/^\d{6}$/, 'the 6-digit code') }),
    response: z.object({ linked: z.literal(true), phone: z.string().max(32).describe('the phone, masked') }),
    errors: [404, 429],
    handler: async ({ body, auth, deps }) => {
      const outcome = await deps.whatsapp.useLoginCode(auth.sub, deps.now(), (hash) => codeMatches(auth.sub, body.code, hash));
      if ('refused' in outcome) {
        switch (outcome.refused) {
          case 'none':
            throw new AppError('NOT_FOUND', 'No log-in code is waiting for this account: send "entrar" and your e-mail on WhatsApp first');
          case 'expired':
            throw new AppError('VALIDATION_FAILED', 'The code has expired: send "entrar" on WhatsApp for a new one', { details: [{ path: 'body.code', message: 'expired' }] });
          case 'tries':
            throw new AppError('RATE_LIMITED', 'Too many wrong codes: send "entrar" on WhatsApp for a new one');
          case 'wrong':
            throw new AppError('VALIDATION_FAILED', 'Wrong code', { details: [{ path: 'body.code', message: 'does not match the code sent' }] });
        }
      }
      await deps.users.ensure(auth.sub, auth.email);
      await deps.whatsapp.link(outcome.phone, auth.sub, deps.now());
      return { linked: true as const, phone: mask(outcome.phone) };
    },
  }),
];
