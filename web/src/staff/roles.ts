/**
 * The staff's roles and permissions as the page lists them. The names are the model's
 * (models/staff/staff.rules.ts), imported as types only: that file also imports node:crypto (for
 * audit ids), which Vite's dev server refuses in the browser, so its values cannot be imported
 * here (as models/news/key-scopes.rules.ts was split from the key rules for the same reason).
 * The compiler holds the copy to the model: a role or permission added there and not here, or
 * spelled differently, fails `npm run typecheck`.
 */
import type { StaffPermission, StaffRole } from '../../../models/staff/staff.rules';

export type { StaffPermission, StaffRole };

/** Every role, in the model's order (STAFF_ROLES): the invitation's and the role editor's checkboxes. */
export const STAFF_ROLES = ['owner', 'support.manager', 'support.agent', 'news.admin', 'quiz.admin', 'ai.edit', 'platform.ops'] as const satisfies readonly StaffRole[];

/** Every permission, in the model's order (STAFF_PERMISSIONS). */
export const STAFF_PERMISSIONS = ['support.agent', 'support.manager', 'news.admin', 'quiz.admin', 'ai.view', 'ai.edit', 'platform.ops', 'staff.manage'] as const satisfies readonly StaffPermission[];

/** Compiles only when `T` is `never`: here, when no role (permission) of the model is missing above. */
type None<T extends never> = T;
export type AllRolesListed = None<Exclude<StaffRole, (typeof STAFF_ROLES)[number]>>;
export type AllPermissionsListed = None<Exclude<StaffPermission, (typeof STAFF_PERMISSIONS)[number]>>;

export const OWNER: StaffRole = 'owner';
export const STAFF_MANAGE: StaffPermission = 'staff.manage';

/** Roles without repeats, in the model's order (as the API answers them). */
export const orderRoles = (roles: readonly StaffRole[]): StaffRole[] => STAFF_ROLES.filter((r) => roles.includes(r));
