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
import { AUDIT_ACTIONS, AUDIT_ID_MAX, AUDIT_ID_PATTERN, STAFF_PERMISSIONS, STAFF_ROLES, STAFF_STATUSES, StaffRoles } from '../../models/staff/staff.rules';
import { SubscriptionView } from '../news/contracts';
import { QuizSummary, Rules, StreakView } from '../quiz/contracts';
import { Count, IsoDateTime, SearchText, Text, Uuid } from '../shared/views';

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

export const ReadingOverview = z.object({ streak: StreakView, quizzes: z.array(QuizSummary).max(100), rules: Rules }).meta({ id: 'ReadingOverview' });

// ---- Sign-in ------------------------------------------------------------------------------------

export const SignInBody = z.strictObject({ email: Email, locale: z.enum(['pt', 'en']).default('en') }).meta({ id: 'SignInRequest' });
export const VerifySignInBody = z.strictObject({ email: Email, code: SignInCode }).meta({ id: 'VerifySignInRequest' });

export const SessionView = z
  .object({
    user: z.object({ id: Text(255), email: Text(254), plan: z.enum(PLANS) }).nullable().describe('null when not signed in'),
    csrfToken: Text(64).nullable().describe('send it in X-CSRF-Token on every request that changes something'),
    expiresAt: IsoDateTime.nullable(),
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
    action: z.enum(AUDIT_ACTIONS).describe('staff.invite, staff.activate (the invitee signed in), staff.roles, staff.remove'),
    member: Text(254).describe('the member it was done to'),
    before: StaffStateView.nullable().describe('null: no member before (an invitation)'),
    after: StaffStateView.nullable().describe('null: no member after (a removal)'),
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
