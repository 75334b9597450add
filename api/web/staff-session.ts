/**
 * The staff's policy (issue 38): a dashboard session (cookie, and the CSRF token on requests that
 * change something: ./session.ts signedIn) whose address is an active staff member holding the
 * permission. The member record is read on every request, not kept in the session: a member
 * removed or given fewer roles has lost them by its next request. The principal has a bearer
 * token's shape (`sub`, `email`, `permissions`: models/auth/token.rules.ts Principal), so the
 * operations that check a token's permissions check a member's alike.
 */
import { AppError } from '../../models/errors';
import { hasPermission } from '../../models/auth/token.rules';
import type { StaffPermission, StaffRole } from '../../models/staff/staff.rules';
import { staffAccess } from '../../operations/staff/members';
import type { AuthPolicy } from '../shared/auth';
import type { WebDeps } from './deps';
import { signedIn, type SessionPrincipal } from './session';

export interface StaffPrincipal extends SessionPrincipal {
  roles: StaffRole[];
  permissions: StaffPermission[];
  /** Where the member works: the operations record a message's channel as the console (issue 39). */
  via: 'console';
}

/**
 * Signed in as an active staff member, holding every permission named (403 otherwise, a customer's
 * session included).
 */
export function staffSignedIn(...permissions: StaffPermission[]): AuthPolicy<StaffPrincipal> {
  return {
    scheme: 'sessionCookie',
    describe: permissions.length ? `dashboard session of a staff member with permission ${permissions.join(', ')}` : 'dashboard session of a staff member',
    async authenticate(ctx, services, rawDeps) {
      const session = await signedIn.authenticate(ctx, services, rawDeps);
      const access = await staffAccess(rawDeps as WebDeps, session.email);
      const principal: StaffPrincipal = { ...session, roles: access.roles, permissions: access.permissions, via: 'console' };
      const missing = permissions.find((p) => !hasPermission(principal, p));
      if (missing) throw new AppError('FORBIDDEN', `Missing permission: ${missing}`);
      return principal;
    },
  };
}
