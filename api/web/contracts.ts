/**
 * The dashboard's contracts (the web service): the views its routes answer with and the requests
 * they take, each registered with an id so that the OpenAPI document names it once. What it shares
 * with the News API and the quiz service comes from their contracts (api/news/contracts.ts,
 * api/quiz/contracts.ts).
 */
import { z } from 'zod';
import { KEY_MODES } from '../../models/news/api-key.rules';
import { Email, SignInCode } from '../../models/accounts/sign-in.rules';
import { KEYS_LISTED } from '../../models/news/api-key.repo';
import { ENTITY_TYPES } from '../../models/news/article.rules';
import { INCLUDE_MODULES, PLANS } from '../../models/shared/plan.rules';
import { wholeNumber } from '../../models/params.rules';
import { AUDIT_ACTIONS, AUDIT_ID_MAX, AUDITED_CHANGE_MAX, AUDIT_ID_PATTERN, STAFF_PERMISSIONS, STAFF_ROLES, STAFF_STATUSES, StaffRoles } from '../../models/staff/staff.rules';
import { SubscriptionView } from '../news/contracts';
import { QuizSummary, Rules, StreakView } from '../quiz/contracts';
import { Count, IsoDateTime, SearchText, Text, Uuid } from '../shared/views';
import { READER_LISTS } from '../../models/news/reader-mail.rules';
import { PUSH_SUBSCRIPTIONS_PER_READER } from '../../models/news/push-subscription.rules';

const Limit = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const AccountUsageView = z.object({
  plan: Text(32),
  month: z.object({ month: Text(7), limit: Limit.nullable(), used: Count, remaining: Limit.nullable(), resetsAt: IsoDateTime }),
  perMinuteLimit: Limit,
  minute: z.object({ limit: Limit, used: Count, remaining: Limit, resetsAt: IsoDateTime }).describe('the account, all keys together'),
  sandbox: z.object({ limit: Limit, used: Count, remaining: Limit, resetsAt: IsoDateTime }).describe('test keys, today (UTC)'),
  activeKeysLimit: Limit.describe('active keys the plan allows, live and test together'),
  days: z.array(z.object({ date: z.iso.date(), total: Count, perKey: z.record(z.string().max(36), Count) })).max(31),
  keys: z.array(z.object({ id: Uuid, name: Text(100), prefix: Text(32), mode: z.enum(KEY_MODES) })).max(KEYS_LISTED),
}).meta({ id: 'AccountUsage' });

export const PlanView = z.object({
  plan: z.enum(PLANS),
  name: Text(32),
  monthlyPriceBRL: Count,
  perMinute: Limit,
  perMonth: Limit.nullable().describe('null: unlimited'),
  modules: z.array(z.enum(INCLUDE_MODULES)).max(INCLUDE_MODULES.length),
}).meta({ id: 'Plan' });

export const EntityOption = z.object({ id: Uuid, name: Text(300), ticker: Text(16).nullable(), type: z.enum(ENTITY_TYPES) }).meta({ id: 'EntityOption' });
/** Companies of the catalogue by the start of a name, alias or ticker, or by ids (the watchlist as it is). */
export const EntityOptionsQuery = z
  .object({
    q: SearchText(100).trim().min(1).optional(),
    ids: z.string().max(37 * 100).regex(/^[0-9a-f-]{36}(,[0-9a-f-]{36}){0,99}$/).optional(),
  })
  .refine((v) => (v.q === undefined) !== (v.ids === undefined), 'give q or ids')
  .meta({ id: 'EntityOptionsQuery' });

export const BillingOverview = z
  .object({ subscription: SubscriptionView, plans: z.array(PlanView).max(PLANS.length), billingConfigured: z.boolean() })
  .meta({ id: 'BillingOverview' });

export const AccountWhatsAppView = z
  .object({ configured: z.boolean(), linked: z.boolean(), phone: Text(32).nullable().describe('masked'), linkedAt: IsoDateTime.nullable() })
  .meta({ id: 'AccountWhatsApp' });

export const PhoneUnlinkedView = z.object({ linked: z.literal(false), phone: Text(32).describe('the phone unlinked, masked') }).meta({ id: 'PhoneUnlinked' });

// ---- Web Push: the reader's browsers (issue 40) -----------------------------------------------

export const PushSubscriptionView = z
  .object({
    id: Text(32),
    label: Text(64).describe('the browser and its system, from its User-Agent when it subscribed'),
    service: Text(255).describe("the push service's host"),
    endpoint: Text(2048).describe('the endpoint the browser gave (the page finds its own subscription by it)'),
    createdAt: IsoDateTime,
    lastSuccessAt: IsoDateTime.nullable().describe('when a push service last took an alert for it'),
  })
  .meta({ id: 'PushSubscription' });

export const AccountPushView = z
  .object({
    configured: z.boolean().describe('false: Web Push is not set up on this deployment (no alerts by push)'),
    publicKey: Text(87).nullable().describe("the VAPID public key, base64url: PushManager.subscribe's applicationServerKey"),
    limit: Count.describe('browsers a reader may subscribe'),
    subscriptions: z.array(PushSubscriptionView).max(PUSH_SUBSCRIPTIONS_PER_READER),
  })
  .meta({ id: 'AccountPush' });

/** PushSubscription.toJSON() of the browser, as posted by the page. */
export const PushSubscriptionBody = z
  .object({
    endpoint: z.string().max(2048).describe("the push service's address for this browser (https)"),
    expirationTime: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
    keys: z.strictObject({
      p256dh: z.string().max(128).describe("the browser's P-256 public key, base64url (65 bytes)"),
      auth: z.string().max(64).describe('the authentication secret, base64url (16 bytes)'),
    }),
  })
  .meta({ id: 'PushSubscriptionRequest' });

export const PushSubscriptionParams = z.object({ id: z.string().max(25).regex(/^ps_[A-Za-z0-9_-]{22}$/) }).meta({ id: 'PushSubscriptionParams' });

export const ReadingOverview = z.object({ streak: StreakView, quizzes: z.array(QuizSummary).max(100), rules: Rules }).meta({ id: 'ReadingOverview' });

// ---- Sign-in ------------------------------------------------------------------------------------

export const SignInBody = z.strictObject({ email: Email, locale: z.enum(['pt', 'en']).default('en') }).meta({ id: 'SignInRequest' });
export const VerifySignInBody = z.strictObject({ email: Email, code: SignInCode }).meta({ id: 'VerifySignInRequest' });

export const SessionView = z
  .object({
    user: z.object({ id: Text(255), email: Text(254), plan: z.enum(PLANS) }).nullable().describe('null when not signed in'),
    csrfToken: Text(64).nullable().describe('send it in X-CSRF-Token on every request that changes something'),
    expiresAt: IsoDateTime.nullable(),
    staff: z.boolean().describe('the address is an active staff member: the page offers the staff console (its roles: GET /api/staff/me)'),
  })
  .meta({ id: 'DashboardSession' });

export const CodeSent = z.object({ sent: z.literal(true) }).meta({ id: 'SignInCodeSent' });
export const SignedOut = z.object({ signedOut: z.literal(true) }).meta({ id: 'SignedOut' });
export const SessionsEnded = z.object({ sessionsEnded: Count }).meta({ id: 'SessionsEnded' });

// ---- Staff (issue 38) ---------------------------------------------------------------------------

const RoleList = z.array(z.enum(STAFF_ROLES)).max(STAFF_ROLES.length);
const PermissionList = z.array(z.enum(STAFF_PERMISSIONS)).max(STAFF_PERMISSIONS.length);
/** A member's address, or who did something when no member did (`cli`, `seed`). */
const Actor = Text(254);

export const StaffMeView = z
  .object({ email: Text(254), roles: RoleList, permissions: PermissionList.describe('what the roles grant (implications included)') })
  .meta({ id: 'StaffMe' });

export const StaffMemberView = z
  .object({
    email: Text(254),
    roles: RoleList,
    permissions: PermissionList.describe('what the roles grant (implications included)'),
    status: z.enum(STAFF_STATUSES).describe('invited: the address has not signed in with a mailed code since the invitation, and holds no role yet; active: it has'),
    invitedBy: Actor,
    invitedAt: IsoDateTime,
    activatedAt: IsoDateTime.nullable().describe('when the address signed in after the invitation; null while invited'),
    updatedAt: IsoDateTime,
  })
  .meta({ id: 'StaffMember' });

export const InviteStaffBody = z
  .strictObject({ email: Email, roles: StaffRoles, locale: z.enum(['pt', 'en']).default('en').describe("the invitation mail's language") })
  .meta({ id: 'InviteStaffRequest' });
export const StaffRolesBody = z.strictObject({ roles: StaffRoles.describe("the member's roles from now on (all of them)") }).meta({ id: 'StaffRolesRequest' });
export const StaffMemberParams = z.object({ email: Email }).meta({ id: 'StaffMemberParams' });
export const StaffMemberRemoved = z
  .object({ email: Text(254), sessionsEnded: Count.describe('sessions signed in with the address, ended at once') })
  .meta({ id: 'StaffMemberRemoved' });

const StaffStateView = z.object({ roles: RoleList, status: z.enum(STAFF_STATUSES) }).meta({ id: 'StaffState' });
const AuditId = z.string().max(AUDIT_ID_MAX).regex(AUDIT_ID_PATTERN);
export const StaffAuditEntryView = z
  .object({
    id: AuditId,
    at: IsoDateTime,
    actor: Actor.describe("who did it: a member's address, or cli (the operator's CLI), seed (demo data)"),
    action: z.enum(AUDIT_ACTIONS).describe('staff.invite, staff.activate (the invitee signed in), staff.roles, staff.remove; console.change: a change made in the staff console'),
    member: Text(254).nullable().describe('the member it was done to; null for a console change'),
    before: StaffStateView.nullable().describe('null: no member before (an invitation), or a console change'),
    after: StaffStateView.nullable().describe('null: no member after (a removal), or a console change'),
    operation: Text(200).nullable().describe('a console change: the operation, as its API documents it (PUT /support/{id}/assignee)'),
    target: z.record(z.string().max(40), z.union([z.string().max(254), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)])).nullable().describe("a console change: the operation's path parameters"),
    change: Text(AUDITED_CHANGE_MAX).nullable().describe('a console change: what was sent (JSON; secrets redacted, cut past 2,000 characters)'),
  })
  .meta({ id: 'StaffAuditEntry' });
export const StaffAuditQuery = z
  .object({
    limit: wholeNumber((n) => n.min(1).max(100)).default(20),
    before: AuditId.optional().describe("entries older than this one (a page's nextBefore); the newest without it"),
  })
  .meta({ id: 'StaffAuditQuery' });
export const StaffAuditPage = z
  .object({ entries: z.array(StaffAuditEntryView).max(100), nextBefore: AuditId.nullable().describe('send it as before for the next (older) page; null at the end') })
  .meta({ id: 'StaffAuditPage' });

// ---- Operations overview (issue 38, item 6) -----------------------------------------------------

const Millis = Count;
const NullableCount = Count.nullable();
const ErrorKind = Text(200).nullable().describe("the error's kind (a code or a name), never its message");

export const OpsOverviewView = z
  .object({
    generatedAt: IsoDateTime.describe('when it was read (answers are shared for 2 s)'),
    dependencies: z
      .array(z.object({ name: z.enum(['mongodb', 'temporal', 'minio', 'smtp']), status: z.enum(['up', 'down']), latencyMs: Millis, error: ErrorKind }))
      .max(10)
      .describe("probed from the dashboard's process, each within 2 s"),
    services: z
      .array(
        z.object({
          name: z.enum(['news', 'support', 'quiz', 'web']),
          url: Text(2_100),
          status: z.enum(['up', 'degraded', 'unreachable']).describe('degraded: its /health answered 503; unreachable: no answer from here (down, or not reachable from the dashboard)'),
          httpStatus: z.number().int().min(100).max(599).nullable(),
          latencyMs: Millis.nullable(),
          down: z.array(Text(32)).max(10).describe('the dependencies it reported down'),
          error: ErrorKind,
        }),
      )
      .max(4)
      .describe("each service's GET /health at its public address; the dashboard's is its own"),
    backlog: z
      .object({
        running: NullableCount.describe("running workflows of this deployment's task queues; null when Temporal did not answer in time"),
        byWorkflowType: z.array(z.object({ workflowType: Text(100), running: NullableCount, temporalUiUrl: Text(2_100) })).max(50),
        taskQueues: z
          .array(
            z.object({
              name: Text(200),
              workflowTasks: NullableCount.describe('approximate backlog of workflow tasks'),
              activityTasks: NullableCount.describe('approximate backlog of activity tasks'),
              workflowPollers: NullableCount.describe('workers polling for workflow tasks lately'),
              activityPollers: NullableCount,
              oldestTaskAgeMs: NullableCount,
            }),
          )
          .max(20),
        error: ErrorKind.describe('why some figures are null'),
      })
      .describe("from Temporal's visibility API and task queue statistics, within 3 s"),
    workflowFamilies: z
      .array(
        z.object({
          family: Text(100),
          workflowType: Text(100),
          idPattern: Text(300),
          idPrefix: Text(100).nullable().describe("the start its workflow ids share (the business id follows); null for a schedule's runs"),
          taskQueue: Text(200),
          query: Text(1_000).describe('the visibility query that finds them'),
          temporalUiUrl: Text(2_100).describe('the Temporal UI listing them'),
        }),
      )
      .max(50),
    temporalUi: z.object({ url: Text(2_000).describe('TEMPORAL_UI_URL'), namespace: Text(200) }),
  })
  .meta({ id: 'OpsOverview' });

// ---- One-click unsubscribe (issue 40) ------------------------------------------------------------

export const UnsubscribeParams = z.object({ token: z.string().min(1).max(400).describe('the token of a reader mail’s List-Unsubscribe address') }).meta({ id: 'UnsubscribeParams' });
export const UnsubscribedView = z
  .object({ list: z.enum(READER_LISTS).describe('alerts: breaking alerts by e-mail; digest: the daily digest'), unsubscribed: z.literal(true) })
  .meta({ id: 'Unsubscribed' });

