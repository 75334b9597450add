/**
 * The dashboard's account pages (issue 26), signed in by session: API keys (shown once), usage,
 * plan and billing, preferences, WhatsApp, reading streak and quizzes. Each route calls the same
 * operation or repository call the news and quiz APIs do, and presents it with the same views.
 */
import { z } from 'zod';
import { currentSubscription, openPortal, startCheckout } from '../../models/billing/operations/subscriptions';
import { KEY_MODES } from '../../models/news/api-key.rules';
import { KEYS_LISTED } from '../../models/news/api-key.repo';
import { createApiKey, revokeApiKey } from '../../models/news/operations/api-keys';
import { accountUsage } from '../../models/news/operations/usage';
import { INCLUDE_MODULES, PLAN_LIMITS, PLAN_MONTHLY_PRICE_BRL, PLANS, planName } from '../../models/news/plan.rules';
import { Preferences } from '../../models/news/preferences.rules';
import { ENTITY_TYPES } from '../../models/news/article.rules';
import { availableQuizzes } from '../../models/quiz/operations/quizzes';
import { streakToday } from '../../models/quiz/operations/reader-days';
import { QUIZ_RULES } from '../../models/quiz/quiz.rules';
import { linkPhone, maskPhone, unlinkPhone } from '../../models/whatsapp/operations/messages';
import { SubscriptionViewSchema } from '../news/billing.routes';
import { CreateKey, keyCreationOnce, KeyView, presentKey } from '../news/keys.routes';
import { PreferencesView } from '../news/preferences.routes';
import { QuizSummary, Rules } from '../quiz/quizzes.routes';
import { StreakView } from '../quiz/readings.routes';
import { reply, routeFactory } from '../shared/route';
import { Count, IsoDateTime, SearchText, Text, Uuid } from '../shared/views';
import type { WebDeps } from './deps';
import { signedIn } from './session';

const route = routeFactory<WebDeps>();
const auth = signedIn;

const Limit = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const UsageView = z.object({
  plan: Text(32),
  month: z.object({ month: Text(7), limit: Limit.nullable(), used: Count, remaining: Limit.nullable(), resetsAt: IsoDateTime }),
  perMinuteLimit: Limit,
  minute: z.object({ limit: Limit, used: Count, remaining: Limit, resetsAt: IsoDateTime }).describe('the account, all keys together'),
  sandbox: z.object({ limit: Limit, used: Count, remaining: Limit, resetsAt: IsoDateTime }).describe('test keys, today (UTC)'),
  activeKeysLimit: Limit.describe('active keys the plan allows, live and test together'),
  days: z.array(z.object({ date: z.iso.date(), total: Count, perKey: z.record(z.string().max(36), Count) })).max(31),
  keys: z.array(z.object({ id: Uuid, name: Text(100), prefix: Text(32), mode: z.enum(KEY_MODES) })).max(KEYS_LISTED),
});

const PlanView = z.object({
  plan: z.enum(PLANS),
  name: Text(32),
  monthlyPriceBRL: Count,
  perMinute: Limit,
  perMonth: Limit.nullable().describe('null: unlimited'),
  modules: z.array(z.enum(INCLUDE_MODULES)).max(INCLUDE_MODULES.length),
});

const EntityOption = z.object({ id: Uuid, name: Text(300), ticker: Text(16).nullable(), type: z.enum(ENTITY_TYPES) });

export const accountRoutes = [
  route({
    method: 'get',
    path: '/api/account/keys',
    summary: "The account's API keys",
    tags: ['api keys'],
    auth,
    response: z.array(KeyView).max(KEYS_LISTED),
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
    response: KeyView.extend({ key: Text(128) }),
    status: 201,
    idempotent: keyCreationOnce,
    handler: async ({ body, auth: a, ctx, deps, requestKey }) => {
      ctx.set('Cache-Control', 'no-store');
      const { key, record } = await createApiKey(deps, { userId: a.sub, email: a.email, ...body, requestKey });
      return reply({ status: 201, message: 'Store this key now: it will not be shown again.', data: { ...presentKey(record), key } });
    },
  }),

  route({
    method: 'delete',
    path: '/api/account/keys/:id',
    summary: 'Revoke an API key',
    tags: ['api keys'],
    auth,
    params: z.object({ id: z.uuid() }),
    response: KeyView,
    errors: [404],
    handler: async ({ params, auth: a, deps }) => presentKey(await revokeApiKey(deps, a.sub, params.id)),
  }),

  route({
    method: 'get',
    path: '/api/account/usage',
    summary: 'Requests per day and key this month, against the plan',
    tags: ['usage'],
    auth,
    response: UsageView,
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
    response: z.object({ subscription: SubscriptionViewSchema, plans: z.array(PlanView).max(PLANS.length), billingConfigured: z.boolean() }),
    errors: [503],
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
    body: z.strictObject({ plan: z.enum(['pro', 'business']) }),
    response: z.object({ sessionId: Text(255), url: Text(5_000) }),
    status: 201,
    errors: [409, 503],
    handler: async ({ body, auth: a, deps }) => reply({ status: 201, data: await startCheckout(deps, { userId: a.sub, email: a.email, plan: body.plan }) }),
  }),

  route({
    method: 'post',
    path: '/api/account/billing/portal',
    summary: "Open Stripe's customer portal",
    tags: ['billing'],
    auth,
    response: z.object({ url: Text(5_000) }),
    errors: [404, 503],
    handler: async ({ auth: a, deps }) => await openPortal(deps, a.sub),
  }),

  route({
    method: 'get',
    path: '/api/account/preferences',
    summary: 'Your preferences',
    tags: ['preferences'],
    auth,
    response: PreferencesView,
    handler: async ({ auth: a, deps }) => await deps.preferences.get(a.sub),
  }),

  route({
    method: 'put',
    path: '/api/account/preferences',
    summary: 'Replace your preferences',
    description: 'As PUT /api/users/preferences of the news API: absent fields take their defaults.',
    tags: ['preferences'],
    auth,
    body: Preferences,
    response: PreferencesView,
    handler: async ({ body, auth: a, deps }) => await deps.preferences.replace(a.sub, body),
  }),

  route({
    method: 'get',
    path: '/api/account/entities',
    summary: 'Find companies in the entity catalogue (for the watchlist)',
    tags: ['preferences'],
    auth,
    description: 'By the start of a name, alias or ticker (`q`), or by ids (`ids`, comma-separated: the watchlist as it is).',
    query: z
      .object({
        q: SearchText(100).trim().min(1).optional(),
        ids: z.string().max(37 * 100).regex(/^[0-9a-f-]{36}(,[0-9a-f-]{36}){0,99}$/).optional(),
      })
      .refine((v) => (v.q === undefined) !== (v.ids === undefined), 'give q or ids'),
    response: z.array(EntityOption).max(100),
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
    response: z.object({ configured: z.boolean(), linked: z.boolean(), phone: Text(32).nullable().describe('masked'), linkedAt: IsoDateTime.nullable() }),
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
    body: z.strictObject({ code: z.string().length(6).regex(/^\d{6}$/, 'the 6-digit code') }),
    response: z.object({ linked: z.literal(true), phone: Text(32).describe('masked') }),
    errors: [404, 429],
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
    response: z.object({ linked: z.literal(false), phone: Text(32).describe('the phone unlinked, masked') }),
    errors: [404],
    handler: async ({ auth: a, deps }) => {
      const { phone } = await unlinkPhone(deps, { userId: a.sub });
      return { linked: false as const, phone: maskPhone(phone) };
    },
  }),

  route({
    method: 'get',
    path: '/api/account/reading',
    summary: 'Your reading streak and your quizzes',
    tags: ['reading'],
    auth,
    response: z.object({ streak: StreakView, quizzes: z.array(QuizSummary).max(100), rules: Rules }),
    handler: async ({ auth: a, deps }) => {
      const [streak, quizzes] = await Promise.all([streakToday(deps, a.sub), availableQuizzes(deps, a.sub)]);
      return { streak, quizzes, rules: { ...QUIZ_RULES } };
    },
  }),
];
