/**
 * Staff accounts and roles (issue 38), on the dashboard's session: the signed-in member's roles,
 * and for owners (`staff.manage`) the members (invite, change roles, remove) and the audit log.
 * Every route reads the member record of the session's address on each request (./staff-session.ts):
 * a customer's session is 403 on all of them.
 */
import { z } from 'zod';
import type { StaffAuditDoc } from '../../models/staff/staff.repo';
import { STAFF_MANAGE, STAFF_MAX } from '../../models/staff/staff.rules';
import { auditLog, changeRoles, inviteMember, listMembers, memberView, removeMember } from '../../operations/staff/members';
import { reply, routeFactory } from '../shared/route';
import { InviteStaffBody, StaffAuditPage, StaffAuditQuery, StaffMemberParams, StaffMemberRemoved, StaffMemberView, StaffMeView, StaffRolesBody } from './contracts';
import type { WebDeps } from './deps';
import { EDITOR_EMAIL, AGENT_EMAIL, agentMemberExample, invitedMemberExample, managerMemberExample, staffAuditExample, staffListExample, staffMeExample } from './examples';
import { staffSignedIn } from './staff-session';

const route = routeFactory<WebDeps>();
const tags = ['staff'];
const owner = staffSignedIn(STAFF_MANAGE);


const presentEntry = (e: StaffAuditDoc) => ({
  id: e._id,
  at: e.at.toISOString(),
  actor: e.actor,
  action: e.action,
  member: e.member,
  before: e.before,
  after: e.after,
  operation: e.operation ?? null,
  target: e.target ?? null,
  change: e.change ?? null,
});

export const staffRoutes = [
  route({
    method: 'get',
    path: '/api/staff/me',
    summary: 'Your staff roles and permissions',
    description: 'For an active staff member: the roles and what they grant. 403 for a customer, and for an address invited that has not signed in since.',
    tags,
    auth: staffSignedIn(),
    response: StaffMeView,
    example: { response: staffMeExample },
    handler: ({ auth }) => ({ email: auth.email, roles: auth.roles, permissions: auth.permissions }),
  }),

  route({
    method: 'get',
    path: '/api/staff/members',
    summary: 'The staff members',
    description: `Invited and active, by address (at most ${STAFF_MAX}). Owners only (staff.manage).`,
    tags,
    auth: owner,
    response: z.array(StaffMemberView).max(STAFF_MAX),
    example: { response: staffListExample },
    handler: async ({ deps }) => (await listMembers(deps)).map(memberView),
  }),

  route({
    method: 'post',
    path: '/api/staff/members',
    summary: 'Invite an address to the staff',
    description:
      'Mails the address the dashboard\'s sign-in link. The member is `invited`, with no access, until the address signs in with a code mailed to it; it is then `active`. ' +
      '409 when the address is a member already. 503 when the mail cannot be sent (nothing is kept). Owners only (staff.manage).',
    tags,
    auth: owner,
    body: InviteStaffBody,
    response: StaffMemberView,
    status: 201,
    errors: [409, 503],
    example: { body: { email: EDITOR_EMAIL, roles: ['news.admin'], locale: 'pt' }, response: invitedMemberExample },
    handler: async ({ body, auth, deps }) => reply({ status: 201, data: memberView(await inviteMember(deps, { actor: auth.email, ...body })) }),
  }),

  route({
    method: 'patch',
    path: '/api/staff/members/:email',
    summary: "Change a member's roles",
    description:
      'Sets the roles (all of them). The member has the new ones from its next request. 409 when the last active owner would lose the owner role. Owners only (staff.manage).',
    tags,
    auth: owner,
    params: StaffMemberParams,
    body: StaffRolesBody,
    response: StaffMemberView,
    errors: [404, 409],
    example: { params: { email: AGENT_EMAIL }, body: { roles: ['support.manager'] }, response: managerMemberExample },
    handler: async ({ params, body, auth, deps }) => memberView(await changeRoles(deps, { actor: auth.email, email: params.email, roles: body.roles })),
  }),

  route({
    method: 'delete',
    path: '/api/staff/members/:email',
    summary: 'Remove a member from the staff',
    description: "Ends every session signed in with the member's address at once. 409 for the last active owner. Owners only (staff.manage).",
    tags,
    auth: owner,
    params: StaffMemberParams,
    response: StaffMemberRemoved,
    errors: [404, 409],
    example: { params: { email: AGENT_EMAIL }, response: { email: agentMemberExample.email, sessionsEnded: 2 } },
    handler: async ({ params, auth, deps }) => {
      const { member, sessionsEnded } = await removeMember(deps, { actor: auth.email, email: params.email });
      return { email: member._id, sessionsEnded };
    },
  }),

  route({
    method: 'get',
    path: '/api/staff/audit',
    summary: 'The audit log of staff changes',
    description: 'Every change to the staff (invitations, sign-ins that accepted them, role changes, removals): who, what, when, before and after. Newest first, a page at a time. Owners only (staff.manage).',
    tags,
    auth: owner,
    query: StaffAuditQuery,
    response: StaffAuditPage,
    example: { query: { limit: 2 }, response: staffAuditExample },
    handler: async ({ query, deps }) => {
      const { entries, nextBefore } = await auditLog(deps, query);
      return { entries: entries.map(presentEntry), nextBefore };
    },
  }),
];
