/**
 * The staff members' routes (api/web/staff.routes.ts; views in api/web/contracts.ts): the list,
 * an invitation, a member's roles, a removal, and the audit log a page at a time. Owners only
 * (staff.manage).
 */
import type { AuditAction, StaffState, StaffStatus } from '../../../../models/staff/staff.rules';
import { segment, staffApi } from '../api';
import type { StaffPermission, StaffRole } from '../roles';

export type { AuditAction, StaffState, StaffStatus };

/** StaffMember */
export interface StaffMember {
  email: string;
  roles: StaffRole[];
  permissions: StaffPermission[];
  status: StaffStatus;
  /** A member's address, or `cli`, `seed`. */
  invitedBy: string;
  invitedAt: string;
  activatedAt: string | null;
  updatedAt: string;
}

/** StaffAuditEntry: a change to the staff (`staff.*`), or a change made in the console (`console.change`). */
export interface AuditEntry {
  id: string;
  at: string;
  /** A member's address, or `cli` (the operator's CLI), `seed` (demo data). */
  actor: string;
  /** An AuditAction; an action this page does not know yet is shown as it is. */
  action: AuditAction | (string & {});
  /** The member it was done to; null for a console change. */
  member: string | null;
  before: StaffState | null;
  after: StaffState | null;
  /** A console change: the operation (`PUT /support/{id}/assignee`), its path parameters, and what was sent (JSON, secrets redacted). */
  operation?: string | null;
  target?: Record<string, string | number> | null;
  change?: string | null;
}

/** StaffAuditPage: `nextBefore` is the `before` of the next (older) page; null at the end. */
export interface AuditPage {
  entries: AuditEntry[];
  nextBefore: string | null;
}

/** StaffMemberRemoved */
export interface MemberRemoved {
  email: string;
  sessionsEnded: number;
}

/** Entries per page of the audit log (the API allows 1 to 100). */
export const AUDIT_PAGE_SIZE = 20;

const member = (email: string) => `/members/${segment(email)}`;

export const membersApi = {
  list: () => staffApi.get<StaffMember[]>('/members'),
  invite: (body: { email: string; roles: StaffRole[]; locale: 'en' | 'pt' }) => staffApi.post<StaffMember>('/members', body),
  setRoles: (email: string, roles: StaffRole[]) => staffApi.patch<StaffMember>(member(email), { roles }),
  remove: (email: string) => staffApi.delete<MemberRemoved>(member(email)),
};
