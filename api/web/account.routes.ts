/**
 * The dashboard's account pages (issue 26), signed in by session: API keys (shown once), usage,
 * plan and billing, preferences, WhatsApp, reading streak and quizzes. Each route calls the same
 * operation or repository call the news and quiz APIs do, and presents it with the same views.
 */
import { z } from 'zod';
import { currentSubscription, openPortal, startCheckout } from '../../operations/billing/subscriptions';
import { KEYS_LISTED } from '../../models/news/api-key.repo';
import { createApiKey, revokeApiKey } from '../../operations/news/api-keys';
import { accountUsage } from '../../operations/news/usage';
import { PLAN_LIMITS, PLAN_MONTHLY_PRICE_BRL, PLANS, planName } from '../../models/shared/plan.rules';
import { availableQuizzes } from '../../operations/quiz/quizzes';
import { streakToday } from '../../operations/quiz/reader-days';
import { QUIZ_RULES } from '../../models/quiz/quiz.rules';
import { linkPhone, maskPhone, unlinkPhone } from '../../operations/whatsapp/messages';
import { listPushSubscriptions, subscribePush, unsubscribePush } from '../../operations/news/push-subscriptions';
import type { PushSubscriptionDoc } from '../../models/news/push-subscription.repo';
import { PUSH_SUBSCRIPTIONS_PER_READER } from '../../models/news/push-subscription.rules';
import {
  CheckoutBody,
  CheckoutSessionView,
  CreateKey,
  keyCreationOnce,
  KeyIdParams,
  KeyView,
  NewKeyView,
  PhoneLinkCode,
  PhoneLinkedView,
  PortalSessionView,
  PreferencesBody,
  presentKey,
  PreferencesView,
} from '../news/contracts';
import { reply, routeFactory } from '../shared/route';
import { AccountPushView, AccountUsageView, AccountWhatsAppView, BillingOverview, EntityOption, EntityOptionsQuery, PhoneUnlinkedView, PushSubscriptionBody, PushSubscriptionParams, PushSubscriptionView, ReadingOverview } from './contracts';
import type { WebDeps } from './deps';
import {
  accountPushExample,
  pushSubscriptionBodyExample,
  pushSubscriptionExample,
  billingExample,
  checkoutExample,
  keyListExample,
  liveKeyExample,
  MASKED_PHONE,
  newKeyExample,
  petrobrasOption,
  portalExample,
  preferencesBodyExample,
  preferencesExample,
  readingExample,
  revokedKeyExample,
  SAMPLE_CODE,
  usageExample,
  whatsappExample,
} from './examples';
import { signedIn } from './session';

const route = routeFactory<WebDeps>();

const presentPushSubscription = (s: PushSubscriptionDoc) => ({
  id: s._id,
  label: s.label,
  service: new URL(s.endpoint).host,
  endpoint: s.endpoint,
  createdAt: s.createdAt.toISOString(),
  lastSuccessAt: s.lastSuccessAt?.toISOString() ?? null,
});
const auth = signedIn;
/** What a new key's answer says beside it. */
const KEY_SHOWN_ONCE = 'Store this key now: it will not be shown again.';

export const accountRoutes = [
  route({
    method: 'get',
    path: '/api/account/keys',
    summary: "The account's API keys",
    tags: ['api keys'],
    auth,
    response: z.array(KeyView).max(KEYS_LISTED),
    example: { response: keyListExample },
    handler: async ({ auth: a, deps }) => (await deps.apiKeys.listForUser(a.sub)).map(presentKey),
  }),

  route({
    method: 'post',
    path: '/api/account/keys',
    summary: 'Create an API key (shown once)',
    description: 'The answer is the only time the key is shown; only its hash is kept. With an Idempotency-Key a retry creates no second key (409 naming the key made).',
    tags: ['api keys'],
    auth,
    body: CreateKey,
    response: NewKeyView,
    status: 201,
    idempotent: keyCreationOnce,
    example: {
      body: { name: liveKeyExample.name, expiry: '1y', scopes: ['read:articles', 'read:breaking'], mode: 'live' },
      response: newKeyExample,
      message: KEY_SHOWN_ONCE,
    },
    handler: async ({ body, auth: a, ctx, deps, requestKey }) => {
      ctx.set('Cache-Control', 'no-store');
      const { key, record } = await createApiKey(deps, { userId: a.sub, email: a.email, ...body, requestKey });
      return reply({ status: 201, message: KEY_SHOWN_ONCE, data: { ...presentKey(record), key } });
    },
  }),

  route({
    method: 'delete',
    path: '/api/account/keys/:id',
    summary: 'Revoke an API key',
    tags: ['api keys'],
    auth,
    params: KeyIdParams,
    response: KeyView,
    errors: [404],
    example: { params: { id: revokedKeyExample.id }, response: revokedKeyExample },
    handler: async ({ params, auth: a, deps }) => presentKey(await revokeApiKey(deps, a.sub, params.id)),
  }),

  route({
    method: 'get',
    path: '/api/account/usage',
    summary: 'Requests per day and key this month, against the plan',
    tags: ['usage'],
    auth,
    response: AccountUsageView,
    example: { response: usageExample },
    handler: async ({ auth: a, deps }) => {
      const user = await deps.users.ensure(a.sub, a.email);
      return await accountUsage(deps, { userId: a.sub, plan: user.plan });
    },
  }),

  route({
    method: 'get',
    path: '/api/account/billing',
    summary: 'The plan, the subscription, and what each plan includes',
    tags: ['billing'],
    auth,
    response: BillingOverview,
    errors: [503],
    example: { response: billingExample },
    handler: async ({ auth: a, deps }) => ({
      subscription: await currentSubscription(deps, a.sub),
      billingConfigured: deps.stripe !== undefined,
      plans: PLANS.map((p) => ({ plan: p, name: planName(p), monthlyPriceBRL: PLAN_MONTHLY_PRICE_BRL[p], perMinute: deps.config.news.perMinute[p], perMonth: PLAN_LIMITS[p].perMonth, modules: [...PLAN_LIMITS[p].modules] })),
    }),
  }),

  route({
    method: 'post',
    path: '/api/account/billing/checkout',
    summary: 'Start a Stripe Checkout for Pro or Business',
    tags: ['billing'],
    auth,
    body: CheckoutBody,
    response: CheckoutSessionView,
    status: 201,
    errors: [409, 503],
    example: { body: { plan: 'pro' }, response: checkoutExample },
    handler: async ({ body, auth: a, deps }) => reply({ status: 201, data: await startCheckout(deps, { userId: a.sub, email: a.email, plan: body.plan }) }),
  }),

  route({
    method: 'post',
    path: '/api/account/billing/portal',
    summary: "Open Stripe's customer portal",
    tags: ['billing'],
    auth,
    response: PortalSessionView,
    errors: [404, 503],
    example: { response: portalExample },
    handler: async ({ auth: a, deps }) => await openPortal(deps, a.sub),
  }),

  route({
    method: 'get',
    path: '/api/account/preferences',
    summary: 'Your preferences',
    tags: ['preferences'],
    auth,
    response: PreferencesView,
    example: { response: preferencesExample },
    handler: async ({ auth: a, deps }) => await deps.preferences.get(a.sub),
  }),

  route({
    method: 'put',
    path: '/api/account/preferences',
    summary: 'Replace your preferences',
    description: 'As PUT /api/users/preferences of the news API: absent fields take their defaults.',
    tags: ['preferences'],
    auth,
    body: PreferencesBody,
    response: PreferencesView,
    example: { body: preferencesBodyExample, response: preferencesExample },
    handler: async ({ body, auth: a, deps }) => await deps.preferences.replace(a.sub, body),
  }),

  route({
    method: 'get',
    path: '/api/account/entities',
    summary: 'Find companies in the entity catalogue (for the watchlist)',
    tags: ['preferences'],
    auth,
    description: 'By the start of a name, alias or ticker (`q`), or by ids (`ids`, comma-separated: the watchlist as it is).',
    query: EntityOptionsQuery,
    response: z.array(EntityOption).max(100),
    example: { query: { q: 'petro' }, response: [petrobrasOption] },
    handler: async ({ query, deps }) => {
      const found = query.q !== undefined ? await deps.entities.search(query.q, 20) : await deps.entities.findByIds(query.ids!.split(','));
      return found.map((e) => ({ id: e._id, name: e.canonicalName, ticker: e.ticker, type: e.entityType }));
    },
  }),

  route({
    method: 'get',
    path: '/api/account/whatsapp',
    summary: 'Whether a WhatsApp phone is linked to the account',
    tags: ['preferences'],
    auth,
    response: AccountWhatsAppView,
    example: { response: whatsappExample },
    handler: async ({ auth: a, deps }) => {
      const contact = await deps.whatsapp.contactOfUser(a.sub);
      const w = deps.config.whatsapp;
      return {
        configured: w.api !== undefined,
        linked: contact !== null,
        phone: contact ? maskPhone(contact._id) : null,
        linkedAt: contact?.linkedAt?.toISOString() ?? null,
      };
    },
  }),

  route({
    method: 'post',
    path: '/api/account/whatsapp/link',
    summary: 'Link the phone a log-in code was sent to, to this account',
    description:
      'A reader who sends *entrar* and the address of this account on WhatsApp gets a 6-digit code in that conversation; entered here, it links that phone to this account (so both the address and the phone are proven), moving it from any account it was linked to. A code works once, for 10 minutes, with 5 tries.',
    tags: ['preferences'],
    auth,
    body: PhoneLinkCode,
    response: PhoneLinkedView,
    errors: [404, 429],
    example: { body: { code: SAMPLE_CODE }, response: { linked: true, phone: MASKED_PHONE } },
    handler: async ({ body, auth: a, deps }) => {
      const { phone } = await linkPhone(deps, { userId: a.sub, email: a.email, code: body.code });
      return { linked: true as const, phone: maskPhone(phone) };
    },
  }),

  route({
    method: 'delete',
    path: '/api/account/whatsapp',
    summary: "Unlink the account's WhatsApp phone",
    description:
      'Unlinks the phone linked to this account, and only that one (404 when none is): it gets no more alerts and sees nothing of the account; on WhatsApp it is a guest again, and may link to an account again by *entrar*.',
    tags: ['preferences'],
    auth,
    response: PhoneUnlinkedView,
    errors: [404],
    example: { response: { linked: false, phone: MASKED_PHONE } },
    handler: async ({ auth: a, deps }) => {
      const { phone } = await unlinkPhone(deps, { userId: a.sub });
      return { linked: false as const, phone: maskPhone(phone) };
    },
  }),

  route({
    method: 'get',
    path: '/api/account/push',
    summary: "Web Push: the VAPID public key and the account's subscribed browsers",
    description: 'Breaking alerts by push go to every browser listed here while the `push` notification setting is on. `configured: false`: push is not set up on this deployment.',
    tags: ['preferences'],
    auth,
    response: AccountPushView,
    example: { response: accountPushExample },
    handler: async ({ auth: a, deps }) => ({
      configured: deps.webPush !== undefined,
      publicKey: deps.webPush?.publicKey ?? null,
      limit: PUSH_SUBSCRIPTIONS_PER_READER,
      subscriptions: (await listPushSubscriptions(deps, a.sub)).map(presentPushSubscription),
    }),
  }),

  route({
    method: 'post',
    path: '/api/account/push/subscriptions',
    summary: "Subscribe this browser to breaking alerts by push",
    description:
      "The body is the browser's PushSubscription.toJSON(), made with the public key of GET /api/account/push. The endpoint must be an https push service (in production a known one: FCM, Mozilla, Windows, Apple) on a public address, and the keys a P-256 key and a 16-byte secret: 400 otherwise, with nothing stored. The same endpoint again refreshes it; an endpoint another account subscribed moves to this one only with the same keys (409 otherwise). At most 10 browsers per account (409).",
    tags: ['preferences'],
    auth,
    body: PushSubscriptionBody,
    response: PushSubscriptionView,
    status: 201,
    errors: [409, 503],
    // The fuzzer's stateful phase follows it too.
    links: [{ name: 'remove', method: 'delete', path: '/api/account/push/subscriptions/:id', parameters: { id: '$response.body#/data/id' } }],
    example: { body: pushSubscriptionBodyExample, response: { ...pushSubscriptionExample, lastSuccessAt: null } },
    handler: async ({ body, auth: a, ctx, deps }) =>
      reply({ status: 201, data: presentPushSubscription(await subscribePush(deps, { userId: a.sub, endpoint: body.endpoint, keys: body.keys, userAgent: ctx.get('User-Agent') || undefined })) }),
  }),

  route({
    method: 'delete',
    path: '/api/account/push/subscriptions/:id',
    summary: 'Stop alerts by push to one browser',
    description: "Removes one of this account's subscriptions (404 for another account's or an unknown one). The page also unsubscribes the browser itself.",
    tags: ['preferences'],
    auth,
    params: PushSubscriptionParams,
    response: PushSubscriptionView,
    errors: [404],
    example: { params: { id: pushSubscriptionExample.id }, response: pushSubscriptionExample },
    handler: async ({ params, auth: a, deps }) => presentPushSubscription(await unsubscribePush(deps, a.sub, params.id)),
  }),

  route({
    method: 'get',
    path: '/api/account/reading',
    summary: 'Your reading streak and your quizzes',
    tags: ['reading'],
    auth,
    response: ReadingOverview,
    example: { response: readingExample },
    handler: async ({ auth: a, deps }) => {
      const [streak, quizzes] = await Promise.all([streakToday(deps, a.sub), availableQuizzes(deps, a.sub)]);
      return { streak, quizzes, rules: { ...QUIZ_RULES } };
    },
  }),
];
