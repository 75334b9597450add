/**
 * Staff members (issue 38): the owner invites an address with roles, changes a member's roles and
 * removes members; an invited address becomes an active member when it signs in with a code mailed
 * to it (operations/accounts/sign-in.ts calls activateInvitation). Every change is one
 * single-document write, recorded by one inserted audit entry (who, what, when, before and after).
 *
 * The last active owner can be neither removed nor lose the owner role (409). Without
 * transactions, a change that takes the owner role from an active owner counts the active owners
 * before it (the usual refusal, nothing written) and again after it: two owners demoting each
 * other at once may both pass the first count, and then at least one of them counts none after
 * its write and puts back what it took (as an API key past the plan's number is discarded,
 * operations/news/api-keys.ts). At worst both are refused and a retry succeeds; the staff is never
 * left without an owner.
 */
import { randomBytes } from 'node:crypto';
import { AppError, dependencyUnavailable, notFound } from '../../models/errors';
import type { AccountRepo } from '../../models/accounts/account.repo';
import { normaliseEmail } from '../../models/accounts/sign-in.rules';
import type { Mailer } from '../../models/infra/mail';
import type { StaffAuditDoc, StaffMemberDoc, StaffRepo } from '../../models/staff/staff.repo';
import {
  STAFF_MAX,
  auditedChange,
  invitationLink,
  invitationMail,
  isOwner,
  normaliseRoles,
  permissionsOf,
  sameRoles,
  type StaffPermission,
  type StaffRole,
  type StaffState,
} from '../../models/staff/staff.rules';

export interface StaffDeps {
  staff: StaffRepo;
  /** Removing a member ends the sessions signed in with its address. */
  accounts: Pick<AccountRepo, 'deleteEmailSessions'>;
  /** Sends the invitation; without one (the demo data, `staff add --no-mail`) the invitee is told nothing. */
  mailer?: Pick<Mailer, 'send'> | undefined;
  /** The dashboard's origin, for the link in the invitation. */
  webOrigin: string;
  now: () => Date;
}

/** How many times a change is tried again when another change of the same member got there first. */
const ATTEMPTS = 5;

/**
 * An audit entry's id: the time it was written (ISO 8601, which sorts as it reads) and 12 random
 * hex digits. Entries are read newest first by id alone, and the last id of a page is where the
 * next begins (`before`).
 */
export const auditEntryId = (at: Date): string => `${at.toISOString()}~${randomBytes(6).toString('hex')}`;

const stateOf = (m: Pick<StaffMemberDoc, 'roles' | 'status'>): StaffState => ({ roles: [...m.roles], status: m.status });

type StaffPorts<K extends keyof StaffRepo> = { staff: Pick<StaffRepo, K> };

async function record(deps: StaffPorts<'record'>, at: Date, entry: Omit<StaffAuditDoc, '_id' | 'at'>): Promise<void> {
  await deps.staff.record({ _id: auditEntryId(at), at, ...entry });
}

/**
 * Records a change a member made through the staff console (issue 38: every staff action that
 * changes something is in the audit log): who, when, the operation, its target and what was sent,
 * secrets redacted. The operation's own records hold the rest (a ticket's status history).
 */
export async function recordConsoleChange(
  deps: StaffPorts<'record'> & Pick<StaffDeps, 'now'>,
  input: { actor: string; operation: string; target: Record<string, string | number>; body: unknown },
): Promise<void> {
  await record(deps, deps.now(), { actor: input.actor, action: 'console.change', member: null, before: null, after: null, operation: input.operation, target: input.target, change: auditedChange(input.body) });
}

/** Whether an address is an active staff member (the dashboard offers the console): no role to an unproven address. */
export async function isActiveStaff(deps: StaffPorts<'findMember'>, email: string): Promise<boolean> {
  return (await deps.staff.findMember(email.toLowerCase()))?.status === 'active';
}

function lastOwner(email: string): AppError {
  return new AppError('CONFLICT', `${email} is the last owner: make another member an owner first (they must have signed in), then change or remove this one`, {
    details: { email, reason: 'last_owner' },
  });
}

const changedMeanwhile = (email: string) => new AppError('CONFLICT', `${email} was changed by someone else at the same time: read it again and retry`);

/**
 * Invites an address with roles: the member is `invited` until the address signs in with a mailed
 * code. 409 when the address is a member already (invited or active), or the staff is full. The
 * invitation is sent before it is recorded: when the mail cannot go, the invitation is taken back
 * and the answer is 503, nothing changed.
 */
export async function inviteMember(
  deps: StaffPorts<'insertMember' | 'findMember' | 'countMembers' | 'removeMember' | 'record'> & Pick<StaffDeps, 'mailer' | 'webOrigin' | 'now'>,
  input: { actor: string; email: string; roles: readonly StaffRole[]; locale?: 'pt' | 'en' },
): Promise<StaffMemberDoc> {
  const email = normaliseEmail(input.email);
  const roles = normaliseRoles(input.roles);
  if (roles.length === 0) throw new AppError('VALIDATION_FAILED', 'Give at least one role', { details: [{ path: 'body.roles', message: 'give at least one role' }] });
  const now = deps.now();
  const member: StaffMemberDoc = { _id: email, roles, status: 'invited', invitedBy: input.actor, invitedAt: now, activatedAt: null, updatedAt: now, version: 1 };
  if (!(await deps.staff.insertMember(member))) {
    const existing = await deps.staff.findMember(email);
    throw new AppError('CONFLICT', `${email} is a staff member already (${existing?.status ?? 'invited'}): change its roles instead`, {
      details: { email, status: existing?.status ?? 'invited' },
    });
  }
  if ((await deps.staff.countMembers()) > STAFF_MAX) {
    await deps.staff.removeMember(email, member.version);
    throw new AppError('CONFLICT', `The staff holds at most ${STAFF_MAX} members: remove one first`, { details: { staffMax: STAFF_MAX } });
  }
  if (deps.mailer) {
    try {
      await deps.mailer.send({ to: email, ...invitationMail({ link: invitationLink(deps.webOrigin, email), roles, invitedBy: input.actor, locale: input.locale ?? 'en' }) });
    } catch (err) {
      // Nobody was told: the invitation is taken back (unless the address has used it already).
      await deps.staff.removeMember(email, member.version).catch(() => undefined);
      throw err instanceof AppError ? err : dependencyUnavailable('mail', err);
    }
  }
  await record(deps, now, { actor: input.actor, action: 'staff.invite', member: email, before: null, after: stateOf(member) });
  return member;
}

/**
 * Makes an invited address an active member: called when it has signed in with a code mailed to
 * it (so the address is verified). Nothing for an address that is no member or is active already.
 */
export async function activateInvitation(deps: StaffPorts<'activate' | 'record'> & Pick<StaffDeps, 'now'>, email: string): Promise<StaffMemberDoc | null> {
  const now = deps.now();
  const before = await deps.staff.activate(normaliseEmail(email), now);
  if (!before) return null;
  const after: StaffMemberDoc = { ...before, status: 'active', activatedAt: now, updatedAt: now, version: before.version + 1 };
  await record(deps, now, { actor: after._id, action: 'staff.activate', member: after._id, before: stateOf(before), after: stateOf(after) });
  return after;
}

/** Sets a member's roles (404 for no member; 409 for the last owner losing the owner role). The same roles again change nothing and record nothing. */
export async function changeRoles(
  deps: StaffPorts<'findMember' | 'countActiveOwners' | 'setRoles' | 'restoreMember' | 'record'> & Pick<StaffDeps, 'now'>,
  input: { actor: string; email: string; roles: readonly StaffRole[] },
): Promise<StaffMemberDoc> {
  const email = normaliseEmail(input.email);
  const roles = normaliseRoles(input.roles);
  if (roles.length === 0) throw new AppError('VALIDATION_FAILED', 'Give at least one role (to take every role away, remove the member)', { details: [{ path: 'body.roles', message: 'give at least one role' }] });
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const before = (await deps.staff.findMember(email)) ?? notFound('staff member');
    if (sameRoles(before.roles, roles)) return before;
    const losesOwner = before.status === 'active' && isOwner(before.roles) && !isOwner(roles);
    if (losesOwner && (await deps.staff.countActiveOwners()) <= 1) throw lastOwner(email);
    const now = deps.now();
    const after = await deps.staff.setRoles(email, before.version, roles, now);
    if (!after) continue;
    if (losesOwner && (await deps.staff.countActiveOwners()) === 0) {
      await deps.staff.restoreMember(before, deps.now());
      throw lastOwner(email);
    }
    await record(deps, now, { actor: input.actor, action: 'staff.roles', member: email, before: stateOf(before), after: stateOf(after) });
    return after;
  }
  throw changedMeanwhile(email);
}

/**
 * Removes a member (404 for no member; 409 for the last owner) and ends every session signed in
 * with its address at once: its next request, of any kind, is 401.
 */
export async function removeMember(
  deps: StaffPorts<'findMember' | 'countActiveOwners' | 'removeMember' | 'restoreMember' | 'record'> & Pick<StaffDeps, 'accounts' | 'now'>,
  input: { actor: string; email: string },
): Promise<{ member: StaffMemberDoc; sessionsEnded: number }> {
  const email = normaliseEmail(input.email);
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const before = (await deps.staff.findMember(email)) ?? notFound('staff member');
    const ownerGoes = before.status === 'active' && isOwner(before.roles);
    if (ownerGoes && (await deps.staff.countActiveOwners()) <= 1) throw lastOwner(email);
    if (!(await deps.staff.removeMember(email, before.version))) continue;
    if (ownerGoes && (await deps.staff.countActiveOwners()) === 0) {
      await deps.staff.restoreMember(before, deps.now());
      throw lastOwner(email);
    }
    const sessionsEnded = await deps.accounts.deleteEmailSessions(email);
    await record(deps, deps.now(), { actor: input.actor, action: 'staff.remove', member: email, before: stateOf(before), after: null });
    return { member: before, sessionsEnded };
  }
  throw changedMeanwhile(email);
}

/** Every member, by address. */
export async function listMembers(deps: StaffPorts<'listMembers'>): Promise<StaffMemberDoc[]> {
  return await deps.staff.listMembers(STAFF_MAX);
}

export interface StaffAccess {
  email: string;
  roles: StaffRole[];
  permissions: StaffPermission[];
}

/**
 * What the signed-in address may do as staff, read from its member record on every request (so a
 * member removed or given fewer roles has lost them by its next request). 403 for an address that
 * is no member, and for one still invited.
 */
export async function staffAccess(deps: StaffPorts<'findMember'>, email: string): Promise<StaffAccess> {
  const member = await deps.staff.findMember(normaliseEmail(email));
  if (!member) throw new AppError('FORBIDDEN', 'This page is for staff members only');
  if (member.status !== 'active') {
    throw new AppError('FORBIDDEN', 'Your staff invitation is accepted when you sign in with a code mailed to this address: sign out, then sign in again');
  }
  return { email: member._id, roles: member.roles, permissions: permissionsOf(member.roles) };
}

/** The audit log, newest first: `limit` entries older than `before` (an entry's id), and where the next page begins (null at the end). */
export async function auditLog(deps: StaffPorts<'auditPage'>, input: { before?: string | undefined; limit: number }): Promise<{ entries: StaffAuditDoc[]; nextBefore: string | null }> {
  const page = await deps.staff.auditPage({ before: input.before, limit: input.limit + 1 });
  const entries = page.slice(0, input.limit);
  return { entries, nextBefore: page.length > input.limit ? entries[entries.length - 1]!._id : null };
}

/** A member as the dashboard's routes and the CLI show it: its address, roles, what they grant, and when. */
export const memberView = (m: StaffMemberDoc) => ({
  email: m._id,
  roles: m.roles,
  permissions: permissionsOf(m.roles),
  status: m.status,
  invitedBy: m.invitedBy,
  invitedAt: m.invitedAt.toISOString(),
  activatedAt: m.activatedAt?.toISOString() ?? null,
  updatedAt: m.updatedAt.toISOString(),
});
