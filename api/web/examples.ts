/**
 * Worked examples of the dashboard's routes (api/shared/route.ts RouteExample): one customer, Ana
 * Souza of a São Paulo brokerage, who signed up by e-mail code on 2026-11-01, moved to Pro the same
 * day, made a live key for her desk's quotes panel and a test key for staging, follows finance and
 * energy, watches Petrobras and Vale, gets breaking news on WhatsApp, and reads the newsletter
 * (Tuesday 2026-11-24: she missed Monday's edition). Ids are in the formats the code makes: the
 * user `usr_em_` + 24 hex (emailUserId), keys and quizzes `randomUUID()`, entities the seeded
 * dictionary's, Stripe's own prefixes. No secret here is real: the key and the codes are samples.
 */
import type { z } from 'zod';
import type { CheckoutSessionView, KeyView, NewKeyView, PortalSessionView, PreferencesBody, PreferencesView } from '../news/contracts';
import type { AccountPushView, AccountUsageView, AccountWhatsAppView, PushSubscriptionBody, PushSubscriptionView, BillingOverview, EntityOption, ReadingOverview, SessionView, StaffAuditPage, StaffMemberView, StaffMeView } from './contracts';

// ---- The account --------------------------------------------------------------------------------

export const EMAIL = 'ana.souza@corretora-exemplo.com.br';
/** models/accounts/sign-in.rules.ts emailUserId(EMAIL). */
export const USER_ID = 'usr_em_abe4b6889506c045befbe78b';
/** A sample code in the real format (six digits). */
export const SAMPLE_CODE = '123456';

/** The session opened by POST /api/auth/verify at 2026-11-24T11:32:05Z (7 days idle expiry). */
export const sessionExample = {
  user: { id: USER_ID, email: EMAIL, plan: 'pro' },
  csrfToken: 'exemploCsrf_k3mP9qRvT2wZ8yB1cD4e',
  expiresAt: '2026-12-01T11:32:05.000Z',
  staff: false,
} satisfies z.input<typeof SessionView>;

/** The same session asked for by the page more than an hour later: its idle expiry moved on. */
export const sessionLaterExample = { ...sessionExample, expiresAt: '2026-12-01T13:05:40.000Z' } satisfies z.input<typeof SessionView>;

// ---- API keys -----------------------------------------------------------------------------------

const LIVE_KEY_ID = 'af433322-c428-4d0e-a9b0-956a9e5d10c3';
const TEST_KEY_ID = '57d5e944-b7b2-4f99-9782-0d29773d8184';

/** The live key as POST /api/account/keys made it (expiry 1y). */
export const liveKeyExample = {
  id: LIVE_KEY_ID,
  name: 'Painel de cotações (produção)',
  prefix: 'nws_live_EXEMPL',
  mode: 'live',
  scopes: ['read:articles', 'read:breaking'],
  expiresAt: '2027-11-01T13:15:42.000Z',
  lastUsedAt: null,
  status: 'active',
  createdAt: '2026-11-01T13:15:42.000Z',
} satisfies z.input<typeof KeyView>;

/** The key itself, shown this once: a sample in the real format (nws_live_ and 32 characters). */
export const newKeyExample = { ...liveKeyExample, key: 'nws_live_EXEMPLO_nao_use_esta_chave_00001' } satisfies z.input<typeof NewKeyView>;

export const testKeyExample = {
  id: TEST_KEY_ID,
  name: 'Homologação',
  prefix: 'nws_test_q7Rz2K',
  mode: 'test',
  scopes: ['*'],
  expiresAt: null,
  lastUsedAt: '2026-11-23T19:47:31.000Z',
  status: 'active',
  createdAt: '2026-11-01T13:17:08.000Z',
} satisfies z.input<typeof KeyView>;

/** The account's keys, newest first (2026-11-24). */
export const keyListExample = [testKeyExample, { ...liveKeyExample, lastUsedAt: '2026-11-24T11:31:58.000Z' }] satisfies z.input<typeof KeyView>[];

/** The test key, revoked. */
export const revokedKeyExample = { ...testKeyExample, status: 'revoked' } satisfies z.input<typeof KeyView>;

// ---- Usage --------------------------------------------------------------------------------------

/**
 * The month on 2026-11-02 at 18:40 UTC (one entry a day so far, so two days): Pro, 500 a minute,
 * 3,000,000 a month for live keys; the test key's requests are in `days` and the sandbox, not the month.
 */
export const usageExample = {
  plan: 'Pro',
  month: { month: '2026-11', limit: 3_000_000, used: 9_106, remaining: 2_990_894, resetsAt: '2026-12-01T00:00:00.000Z' },
  perMinuteLimit: 500,
  minute: { limit: 500, used: 37, remaining: 463, resetsAt: '2026-11-02T18:40:41.000Z' },
  sandbox: { limit: 1_000, used: 212, remaining: 788, resetsAt: '2026-11-03T00:00:00.000Z' },
  activeKeysLimit: 20,
  days: [
    { date: '2026-11-01', total: 4_210, perKey: { [LIVE_KEY_ID]: 3_980, [TEST_KEY_ID]: 230 } },
    { date: '2026-11-02', total: 5_338, perKey: { [LIVE_KEY_ID]: 5_126, [TEST_KEY_ID]: 212 } },
  ],
  keys: [
    { id: TEST_KEY_ID, name: testKeyExample.name, prefix: testKeyExample.prefix, mode: 'test' },
    { id: LIVE_KEY_ID, name: liveKeyExample.name, prefix: liveKeyExample.prefix, mode: 'live' },
  ],
} satisfies z.input<typeof AccountUsageView>;

// ---- Billing ------------------------------------------------------------------------------------

const CHECKOUT_SESSION_ID = 'cs_test_a1Kx8mC2eZvKYlo2CwRb5sTq9uVn3hJd7fGp0LzW4yXe6iMo';

/** Pro since the Checkout of 2026-11-01, paid for the month. */
export const billingExample = {
  subscription: {
    customerId: 'cus_RdK4mT9xW2nQ7b',
    subscriptionId: 'sub_1QKx8mC2eZvKYlo2Ab3Cd4Ef',
    status: 'active',
    plan: 'pro',
    subscribedPlan: 'pro',
    currentPeriodEnd: '2026-12-01T13:09:15.000Z',
    cancelAtPeriodEnd: false,
    graceEndsAt: null,
    lastPaymentFailure: null,
    eventsApplied: 4,
    asOf: '2026-11-01T13:09:16.000Z',
  },
  billingConfigured: true,
  plans: [
    { plan: 'starter', name: 'Starter', monthlyPriceBRL: 99, perMinute: 100, perMonth: 500_000, modules: ['translations', 'classification', 'meta'] },
    {
      plan: 'pro',
      name: 'Pro',
      monthlyPriceBRL: 399,
      perMinute: 500,
      perMonth: 3_000_000,
      modules: ['sentiment', 'market_impact', 'entities', 'translations', 'scoring', 'classification', 'meta'],
    },
    {
      plan: 'business',
      name: 'Business',
      monthlyPriceBRL: 1_499,
      perMinute: 2_000,
      perMonth: null,
      modules: ['sentiment', 'market_impact', 'entities', 'translations', 'scoring', 'classification', 'meta'],
    },
  ],
} satisfies z.input<typeof BillingOverview>;

export const checkoutExample = {
  sessionId: CHECKOUT_SESSION_ID,
  url: `https://checkout.stripe.com/c/pay/${CHECKOUT_SESSION_ID}`,
} satisfies z.input<typeof CheckoutSessionView>;

export const portalExample = { url: 'https://billing.stripe.com/p/session/test_YWNjdF8xUUt4OG1DMmVadktZbG8yLF9SZEs0bVQ5eFcyblE3Yg' } satisfies z.input<
  typeof PortalSessionView
>;

// ---- Preferences --------------------------------------------------------------------------------

/** Entities of the seeded dictionary (ops/news-corpus.ts entityIdFor('company:PETR4'), …). */
export const PETROBRAS_ENTITY_ID = '98734bad-09cd-560f-96b7-3699843fa2fe';
export const VALE_ENTITY_ID = 'ebf3a2f9-a51e-56d9-acbb-5ccc8d6ff7ed';

export const petrobrasOption = { id: PETROBRAS_ENTITY_ID, name: 'Petrobras', ticker: 'PETR4', type: 'COMPANY' } satisfies z.input<typeof EntityOption>;

/** PUT's body: weights and settings only where they differ from the defaults. */
export const preferencesBodyExample = {
  sectors: ['FIN', 'ENE', 'MAT'],
  sectorWeights: { FIN: 2, ENE: 1.5 },
  topics: ['RATES', 'DIV', 'EARN'],
  topicWeights: { RATES: 2 },
  watchlistCompanies: [PETROBRAS_ENTITY_ID, VALE_ENTITY_ID],
  watchlistTickers: ['PETR4', 'VALE3', 'ITUB4'],
  keywords: ['Selic', 'Copom', 'IPCA'],
  keywordWeights: { Selic: 2 },
  notificationSettings: { whatsapp: true, breakingOnly: true, minScore: 70 },
  relevanceSettings: { watchlistMultiplier: 2 },
} satisfies z.input<typeof PreferencesBody>;

/** The preferences as stored from that body: every followed item weighed, the settings' defaults filled in. */
export const preferencesExample = {
  sectors: ['FIN', 'ENE', 'MAT'],
  sectorWeights: { FIN: 2, ENE: 1.5, MAT: 1 },
  topics: ['RATES', 'DIV', 'EARN'],
  topicWeights: { RATES: 2, DIV: 1, EARN: 1 },
  watchlistCompanies: [PETROBRAS_ENTITY_ID, VALE_ENTITY_ID],
  watchlistTickers: ['PETR4', 'VALE3', 'ITUB4'],
  keywords: ['Selic', 'Copom', 'IPCA'],
  keywordWeights: { Selic: 2, Copom: 1, IPCA: 1 },
  notificationSettings: { email: true, push: false, whatsapp: true, breakingOnly: true, minScore: 70, digest: true, digestHour: 8, timeZone: 'America/Sao_Paulo', language: 'pt', quietHours: null },
  relevanceSettings: {
    sectorMultiplier: 1,
    topicMultiplier: 1,
    keywordMultiplier: 1,
    watchlistMultiplier: 2,
    breakingNewsMultiplier: 1.5,
    exclusiveMultiplier: 1.2,
    recencyDecayEnabled: true,
    recencyDecayHours: 24,
  },
} satisfies z.input<typeof PreferencesView>;

// ---- WhatsApp -----------------------------------------------------------------------------------

/** 5511987654321 as the dashboard shows it (operations/whatsapp/messages.ts maskPhone). */
export const MASKED_PHONE = '5511•••••••21';

export const whatsappExample = { configured: true, linked: true, phone: MASKED_PHONE, linkedAt: '2026-11-20T14:02:37.000Z' } satisfies z.input<typeof AccountWhatsAppView>;

/** A Chrome subscription's endpoint (FCM), as PushSubscription.toJSON() gives it. */
const FCM_ENDPOINT = 'https://fcm.googleapis.com/fcm/send/dG9rZW4tb2YtdGhpcy1icm93c2Vy:APA91bH8z0xExampleRegistrationToken';

export const pushSubscriptionBodyExample = {
  endpoint: FCM_ENDPOINT,
  expirationTime: null,
  keys: { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg' },
} satisfies z.input<typeof PushSubscriptionBody>;

export const pushSubscriptionExample = {
  id: 'ps_Q3hY9lJzS1m2cXo8bWZ0Tg',
  label: 'Chrome · Android',
  service: 'fcm.googleapis.com',
  endpoint: FCM_ENDPOINT,
  createdAt: '2026-11-24T10:15:02.000Z',
  lastSuccessAt: '2026-11-26T13:40:11.000Z',
} satisfies z.input<typeof PushSubscriptionView>;

export const accountPushExample = {
  configured: true,
  publicKey: 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U',
  limit: 10,
  subscriptions: [pushSubscriptionExample],
} satisfies z.input<typeof AccountPushView>;

// ---- Reading ------------------------------------------------------------------------------------

/**
 * Monday 2026-11-23's quizzes (quizzes are the same for every reader: the morning one is the quiz
 * service's example too, api/quiz/examples.ts), and the titles of the editions they come from.
 */
const MONDAY_MORNING_QUIZ_ID = '1ac93759-4d42-4971-a551-332c69cc2b69';
const MONDAY_NIGHT_QUIZ_ID = 'ddd6fda6-2516-44e0-8acc-55418e63693f';
const MONDAY_MORNING_TITLE = 'Petrobras aprova dividendos extraordinários e ata do Copom reforça Selic estável';
const MONDAY_NIGHT_TITLE = 'Fechamento: Ibovespa sobe 1,2% puxado por Petrobras; Vale recua com minério';

/** The quizzes' description (models/quiz/quiz.rules.ts quizDescription). */
const quizDescription = (editionTitle: string) => `10 perguntas sobre a edição "${editionTitle}". Acerte 6 ou mais para recuperar o dia na sua sequência de leitura.`;

/**
 * Tuesday 2026-11-24: today's edition read, Monday's missed (Sunday has none, Saturday's was
 * read). Monday morning's quiz was tried and failed; Monday night's can still recover the day.
 * The list shows the newest two of the window's quizzes (Saturday's follow).
 */
export const readingExample = {
  streak: {
    current: 1,
    longest: 27,
    lastReadDate: '2026-11-24',
    today: '2026-11-24',
    missedRecoverable: [{ date: '2026-11-23', quizDates: ['2026-11-23', '2026-11-23-night'] }],
  },
  quizzes: [
    {
      id: MONDAY_MORNING_QUIZ_ID,
      title: 'Quiz da edição da manhã de 23/11/2026',
      description: quizDescription(MONDAY_MORNING_TITLE),
      quizDate: '2026-11-23',
      edition: 'morning',
      postId: '2026-11-23-morning',
      minCorrectAnswers: 6,
      alreadyAttempted: true,
      attemptResult: { passed: false, correctAnswers: 5, streakRecovered: false },
      date: '2026-11-23',
      availableUntil: '2026-11-26',
      canSubmit: false,
    },
    {
      id: MONDAY_NIGHT_QUIZ_ID,
      title: 'Quiz da edição da noite de 23/11/2026',
      description: quizDescription(MONDAY_NIGHT_TITLE),
      quizDate: '2026-11-23-night',
      edition: 'night',
      postId: '2026-11-23-night',
      minCorrectAnswers: 6,
      alreadyAttempted: false,
      attemptResult: null,
      date: '2026-11-23',
      availableUntil: '2026-11-26',
      canSubmit: true,
    },
  ],
  rules: { maxDaysRecovery: 3, minCorrectAnswers: 6, totalQuestions: 10, attemptsPerQuiz: 1 },
} satisfies z.input<typeof ReadingOverview>;

// ---- Staff (issue 38) ---------------------------------------------------------------------------

/**
 * The newsletter's own staff: Helena Prado, the owner (added with `npm run cli -- staff add`), who
 * invited João Pereira to support (he signed in the next morning and was made manager on Tuesday)
 * and, on Tuesday 2026-11-24, Carla Menezes to the newsroom (not signed in yet).
 */
export const OWNER_EMAIL = 'helena.prado@newsletter-exemplo.com.br';
export const AGENT_EMAIL = 'joao.pereira@newsletter-exemplo.com.br';
export const EDITOR_EMAIL = 'carla.menezes@newsletter-exemplo.com.br';

export const staffMeExample = {
  email: OWNER_EMAIL,
  roles: ['owner'],
  permissions: ['support.agent', 'support.manager', 'news.admin', 'quiz.admin', 'ai.view', 'ai.edit', 'platform.ops', 'staff.manage'],
} satisfies z.input<typeof StaffMeView>;

const ownerMember = {
  email: OWNER_EMAIL,
  roles: ['owner'],
  permissions: staffMeExample.permissions,
  status: 'active',
  invitedBy: 'cli',
  invitedAt: '2026-11-02T09:14:03.000Z',
  activatedAt: '2026-11-02T09:16:41.000Z',
  updatedAt: '2026-11-02T09:16:41.000Z',
} satisfies z.input<typeof StaffMemberView>;

export const agentMemberExample = {
  email: AGENT_EMAIL,
  roles: ['support.agent'],
  permissions: ['support.agent'],
  status: 'active',
  invitedBy: OWNER_EMAIL,
  invitedAt: '2026-11-09T17:40:12.000Z',
  activatedAt: '2026-11-10T08:02:55.000Z',
  updatedAt: '2026-11-10T08:02:55.000Z',
} satisfies z.input<typeof StaffMemberView>;

/** João made support manager (which includes the agent's permission). */
export const managerMemberExample = {
  ...agentMemberExample,
  roles: ['support.manager'],
  permissions: ['support.agent', 'support.manager'],
  updatedAt: '2026-11-24T10:05:31.000Z',
} satisfies z.input<typeof StaffMemberView>;

export const invitedMemberExample = {
  email: EDITOR_EMAIL,
  roles: ['news.admin'],
  permissions: ['news.admin'],
  status: 'invited',
  invitedBy: OWNER_EMAIL,
  invitedAt: '2026-11-24T11:20:08.000Z',
  activatedAt: null,
  updatedAt: '2026-11-24T11:20:08.000Z',
} satisfies z.input<typeof StaffMemberView>;

export const staffListExample = [invitedMemberExample, ownerMember, managerMemberExample] satisfies z.input<typeof StaffMemberView>[];

/** The audit log's newest entries on 2026-11-24 (older ones follow from nextBefore). */
export const staffAuditExample = {
  entries: [
    {
      id: '2026-11-24T11:32:40.000Z~9a3e7d1f0c55',
      at: '2026-11-24T11:32:40.000Z',
      actor: AGENT_EMAIL,
      action: 'console.change',
      member: null,
      before: null,
      after: null,
      operation: 'PUT /support/{id}/assignee',
      target: { id: 1842 },
      change: `{"assignee":"${AGENT_EMAIL}"}`,
    },
    {
      id: '2026-11-24T11:20:08.000Z~4f1c9a07be23',
      at: '2026-11-24T11:20:08.000Z',
      actor: OWNER_EMAIL,
      action: 'staff.invite',
      member: EDITOR_EMAIL,
      before: null,
      after: { roles: ['news.admin'], status: 'invited' },
      operation: null,
      target: null,
      change: null,
    },
    {
      id: '2026-11-24T10:05:31.000Z~d20e6b5c1a98',
      at: '2026-11-24T10:05:31.000Z',
      actor: OWNER_EMAIL,
      action: 'staff.roles',
      member: AGENT_EMAIL,
      before: { roles: ['support.agent'], status: 'active' },
      after: { roles: ['support.manager'], status: 'active' },
      operation: null,
      target: null,
      change: null,
    },
  ],
  nextBefore: '2026-11-24T10:05:31.000Z~d20e6b5c1a98',
} satisfies z.input<typeof StaffAuditPage>;

// ---- Operations overview (issue 38, item 6) -----------------------------------------------------

// Imported here, with the section that uses them (the file's sections are appended by separate changes).
import { workflowsLink, runningOfTypeQuery } from '../../models/ops/temporal-ui.rules';
import { familyQuery, workflowFamilies, workflowTypes } from '../../operations/ops/overview';
import type { OpsOverviewView } from './contracts';

const TEMPORAL_UI = 'http://127.0.0.1:8233';
/** Running workflows by type on Tuesday 2026-11-24 at 10:15 (UTC): the pollers of 12 sources, subscriptions, conversations. */
const RUNNING: Record<string, number> = {
  newsSourceWorkflow: 12,
  subscriptionWorkflow: 37,
  whatsappConversationWorkflow: 4,
  bulkTicketOperationWorkflow: 1,
  newsEnrichWorkflow: 3,
};

/** GET /api/staff/ops/overview: everything up but the SMTP relay, which timed out; a bulk operation and three enrichments under way. */
export const opsOverviewExample = {
  generatedAt: '2026-11-24T10:15:02.114Z',
  dependencies: [
    { name: 'mongodb', status: 'up', latencyMs: 3, error: null },
    { name: 'temporal', status: 'up', latencyMs: 5, error: null },
    { name: 'minio', status: 'up', latencyMs: 8, error: null },
    { name: 'smtp', status: 'down', latencyMs: 2_001, error: 'TimeoutError' },
  ],
  services: [
    { name: 'news', url: 'https://api.newsletter-exemplo.com.br/health', status: 'up', httpStatus: 200, latencyMs: 41, down: [], error: null },
    { name: 'support', url: 'https://suporte.newsletter-exemplo.com.br/health', status: 'up', httpStatus: 200, latencyMs: 38, down: [], error: null },
    { name: 'quiz', url: 'https://quiz.newsletter-exemplo.com.br/health', status: 'up', httpStatus: 200, latencyMs: 44, down: [], error: null },
    { name: 'web', url: 'https://painel.newsletter-exemplo.com.br/health', status: 'up', httpStatus: 200, latencyMs: null, down: [], error: null },
  ],
  backlog: {
    running: Object.values(RUNNING).reduce((a, b) => a + b, 0),
    byWorkflowType: workflowTypes('').map((workflowType) => ({
      workflowType,
      running: RUNNING[workflowType] ?? 0,
      temporalUiUrl: workflowsLink(TEMPORAL_UI, 'default', runningOfTypeQuery(workflowType)),
    })),
    taskQueues: [
      { name: 'platform-ops', workflowTasks: 0, activityTasks: 0, workflowPollers: 2, activityPollers: 2, oldestTaskAgeMs: null },
      { name: 'ai-chat', workflowTasks: 0, activityTasks: 0, workflowPollers: 2, activityPollers: 2, oldestTaskAgeMs: null },
      { name: 'support-ops', workflowTasks: 0, activityTasks: 6, workflowPollers: 2, activityPollers: 2, oldestTaskAgeMs: 1_840 },
      { name: 'news-ingest', workflowTasks: 0, activityTasks: 0, workflowPollers: 2, activityPollers: 2, oldestTaskAgeMs: null },
      { name: 'news-sources', workflowTasks: 1, activityTasks: 3, workflowPollers: 2, activityPollers: 2, oldestTaskAgeMs: 420 },
      { name: 'quiz-generation', workflowTasks: 0, activityTasks: 0, workflowPollers: 2, activityPollers: 2, oldestTaskAgeMs: null },
      { name: 'billing', workflowTasks: 0, activityTasks: 0, workflowPollers: 2, activityPollers: 2, oldestTaskAgeMs: null },
      { name: 'whatsapp', workflowTasks: 0, activityTasks: 0, workflowPollers: 2, activityPollers: 2, oldestTaskAgeMs: null },
    ],
    error: null,
  },
  workflowFamilies: workflowFamilies('').map((f) => ({ ...f, query: familyQuery(f, ''), temporalUiUrl: workflowsLink(TEMPORAL_UI, 'default', familyQuery(f, '')) })),
  temporalUi: { url: TEMPORAL_UI, namespace: 'default' },
} satisfies z.input<typeof OpsOverviewView>;

// ---- Webhook endpoints (issue 40) ---------------------------------------------------------------
// The same endpoints as the news API's examples: the dashboard and the API manage one list.

export {
  ARCHIVE_ENDPOINT_ID,
  archiveEndpointExample,
  BREAKING_MESSAGE_ID,
  newTradingEndpointExample,
  replayAcceptedExample,
  testAcceptedExample,
  tradingDeliveriesExample,
  rotatedTradingEndpointExample,
  TRADING_ENDPOINT_ID,
  tradingEndpointExample,
} from '../news/examples/webhooks';
