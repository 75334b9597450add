/**
 * Staff accounts and roles (issue 38): pure rules, no I/O. A staff member is an e-mail address of
 * the dashboard with roles; each role grants the permissions the APIs already check on bearer
 * tokens (api/shared/auth.ts `bearer(…)`, models/auth/token.rules.ts `hasPermission`), so a staff
 * member's principal has the same shape as a token's: `{ sub, email, permissions }`.
 *
 * - `support.agent`: the support queue; `support.manager` adds the agents' reports and implies
 *   `support.agent`.
 * - `news.admin`, `quiz.admin`, `platform.ops`: as the APIs name them.
 * - `ai.edit` changes the AI registry and implies `ai.view`, which reads it.
 * - `owner` holds every staff permission and `staff.manage`: inviting, changing roles, removing
 *   staff, reading the audit log.
 *
 * `quiz.readings` is no staff permission: it is the sending system's (machine) credential for
 * recording that a reader read an edition, and no person does that by hand. An owner's permissions
 * are listed, never `*`, which would also grant that and any permission added later.
 *
 * A member is `invited` from the invitation until the address signs in with a code mailed to it
 * (the address is then verified), and `active` from then on. Only an active member is staff:
 * an unverified address is never trusted with a role.
 */
import { z } from 'zod';

/** The permission of owners alone: staff management and the audit log. */
export const STAFF_MANAGE = 'staff.manage';

/** Every permission a staff member can hold, in the order views list them. */
export const STAFF_PERMISSIONS = ['support.agent', 'support.manager', 'news.admin', 'quiz.admin', 'ai.view', 'ai.edit', 'platform.ops', STAFF_MANAGE] as const;
export type StaffPermission = (typeof STAFF_PERMISSIONS)[number];

/** The roles an owner gives, in the order views list them. */
export const STAFF_ROLES = ['owner', 'support.manager', 'support.agent', 'news.admin', 'quiz.admin', 'ai.edit', 'platform.ops'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export const OWNER: StaffRole = 'owner';

/** What each role grants (implications included). */
export const ROLE_PERMISSIONS: Readonly<Record<StaffRole, readonly StaffPermission[]>> = {
  owner: STAFF_PERMISSIONS,
  'support.manager': ['support.manager', 'support.agent'],
  'support.agent': ['support.agent'],
  'news.admin': ['news.admin'],
  'quiz.admin': ['quiz.admin'],
  'ai.edit': ['ai.edit', 'ai.view'],
  'platform.ops': ['platform.ops'],
};

export const isStaffRole = (value: string): value is StaffRole => (STAFF_ROLES as readonly string[]).includes(value);

/** The roles without repeats, in their canonical order (so equal sets compare and store equal). */
export const normaliseRoles = (roles: readonly StaffRole[]): StaffRole[] => STAFF_ROLES.filter((r) => roles.includes(r));

/** The permissions a set of roles grants, each once, in the canonical order. */
export function permissionsOf(roles: readonly StaffRole[]): StaffPermission[] {
  const granted = new Set(roles.flatMap((r) => ROLE_PERMISSIONS[r] ?? []));
  return STAFF_PERMISSIONS.filter((p) => granted.has(p));
}

export const isOwner = (roles: readonly StaffRole[]): boolean => roles.includes(OWNER);

export const sameRoles = (a: readonly StaffRole[], b: readonly StaffRole[]): boolean => {
  const x = normaliseRoles(a);
  const y = normaliseRoles(b);
  return x.length === y.length && x.every((r, i) => r === y[i]);
};

/** A member's roles as a request gives them: at least one, each known; repeats are dropped. */
export const StaffRoles = z.array(z.enum(STAFF_ROLES)).min(1, 'give at least one role').max(STAFF_ROLES.length).transform(normaliseRoles);

/**
 * Roles as the CLI takes them: `--role` repeated, each possibly comma-separated
 * (`--role owner --role support.agent`, `--role owner,support.agent`). Throws on an unknown role.
 */
export function parseRoleList(values: readonly string[]): StaffRole[] {
  const names = values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !isStaffRole(n));
  if (unknown.length) throw new Error(`unknown role ${unknown.join(', ')}: roles are ${STAFF_ROLES.join(', ')}`);
  if (names.length === 0) throw new Error(`give at least one role (--role ${STAFF_ROLES.join('|')})`);
  return normaliseRoles(names as StaffRole[]);
}

export const STAFF_STATUSES = ['invited', 'active'] as const;
export type StaffStatus = (typeof STAFF_STATUSES)[number];

/** The most members the staff holds (invited and active): the list is answered whole. */
export const STAFF_MAX = 200;

/** What changed, as the audit log records it: the member's roles and status before and after. */
export interface StaffState {
  roles: StaffRole[];
  status: StaffStatus;
}

/** `console.change`: a change made through the staff console (a ticket answered, a source edited…). */
export const AUDIT_ACTIONS = ['staff.invite', 'staff.activate', 'staff.roles', 'staff.remove', 'console.change'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_ID_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z~[0-9a-f]{12}$/;
export const AUDIT_ID_MAX = 37;

/** Who changed something when no staff member did: the operator's CLI, the demo data. */
export const CLI_ACTOR = 'cli';
export const SEED_ACTOR = 'seed';

/** The invitation mail, in the invitee's language: the dashboard's sign-in link, no code (the invitee asks for one there). */
export function invitationMail(input: { link: string; roles: readonly StaffRole[]; invitedBy: string; locale: 'pt' | 'en' }): { subject: string; text: string } {
  const roles = input.roles.join(', ');
  if (input.locale === 'pt') {
    return {
      subject: 'Você foi convidado para a equipe do painel',
      text:
        `${input.invitedBy} convidou você para a equipe do painel, com as funções: ${roles}.\n\n` +
        `Para aceitar, entre com este endereço de e-mail: ${input.link}\n\n` +
        'Enviaremos um código de acesso para este endereço. Se você não esperava este convite, ignore esta mensagem.\n',
    };
  }
  return {
    subject: 'You are invited to the dashboard staff',
    text:
      `${input.invitedBy} invited you to the dashboard staff, with the roles: ${roles}.\n\n` +
      `To accept, sign in with this e-mail address: ${input.link}\n\n` +
      'A sign-in code will be sent to this address. If you did not expect this invitation, ignore this message.\n',
  };
}

/**
 * The link in the invitation: the dashboard's sign-in page, the address in the fragment (which no
 * server sees) for the page to fill in, as the sign-in mail's link carries address and code.
 */
export const invitationLink = (webOrigin: string, email: string): string => `${webOrigin}/sign-in#${new URLSearchParams({ email }).toString()}`;

/** The longest change an audit entry keeps (JSON characters); past it, the change is cut and marked so. */
export const AUDITED_CHANGE_MAX = 2_000;
const SECRET_FIELD = /secret|token|password|passwd|key|authorization|cookie|env|headers?$/i;

/**
 * What a console change sent, as the audit log keeps it: the body with every field that may hold a
 * secret (tokens, keys, passwords, an MCP server's environment or headers) replaced by
 * `[redacted]`, cut to AUDITED_CHANGE_MAX characters of JSON. Pure.
 */
export function auditedChange(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  const redact = (v: unknown, depth: number): unknown => {
    if (depth > 6) return '[…]';
    if (Array.isArray(v)) return v.slice(0, 50).map((x) => redact(x, depth + 1));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, SECRET_FIELD.test(k) ? '[redacted]' : redact(x, depth + 1)]));
    return v;
  };
  const json = JSON.stringify(redact(body, 0)) ?? null;
  if (json === null) return null;
  return json.length > AUDITED_CHANGE_MAX ? `${json.slice(0, AUDITED_CHANGE_MAX - 1)}…` : json;
}
