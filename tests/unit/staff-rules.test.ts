/**
 * Staff roles and the permissions they grant (issue 38): each role maps onto permissions the APIs
 * already check on bearer tokens, with its implications, and an owner holds every staff permission
 * (listed, never `*`) and staff.manage.
 */
import { auditEntryId } from '../../operations/staff/members';
import { hasPermission } from '../../models/auth/token.rules';
import {
  auditedChange,
  AUDITED_CHANGE_MAX,
  AUDIT_ID_PATTERN,
  ROLE_PERMISSIONS,
  STAFF_MANAGE,
  STAFF_PERMISSIONS,
  STAFF_ROLES,
  StaffRoles,
  invitationLink,
  invitationMail,
  normaliseRoles,
  parseRoleList,
  permissionsOf,
  sameRoles,
} from '../../models/staff/staff.rules';
import { SUPPORT_AGENT, SUPPORT_MANAGER } from '../../models/support/ticket.rules';
import { AI_EDIT, AI_VIEW } from '../../api/ai/chat.routes';
import { QUIZ_ADMIN } from '../../api/quiz/editions.routes';
import { QUIZ_READINGS } from '../../api/quiz/readings.routes';
import { OPS_PERMISSION } from '../../api/shared/ops.routes';
import { serviceDefinitions } from '../../ops/openapi/docs';

describe('roles and permissions', () => {
  it('grants each role its own permission and what it implies', () => {
    expect(permissionsOf(['support.agent'])).toEqual(['support.agent']);
    expect(permissionsOf(['support.manager'])).toEqual(['support.agent', 'support.manager']);
    expect(permissionsOf(['ai.edit'])).toEqual(['ai.view', 'ai.edit']);
    expect(permissionsOf(['news.admin'])).toEqual(['news.admin']);
    expect(permissionsOf(['quiz.admin'])).toEqual(['quiz.admin']);
    expect(permissionsOf(['platform.ops'])).toEqual(['platform.ops']);
    expect(permissionsOf([])).toEqual([]);
  });

  it('grants an owner every staff permission and staff.manage, listed (never *), and not the sending system\'s quiz.readings', () => {
    const owner = permissionsOf(['owner']);
    expect(owner).toEqual([...STAFF_PERMISSIONS]);
    expect(owner).toContain(STAFF_MANAGE);
    expect(owner).not.toContain('*');
    expect(owner).not.toContain(QUIZ_READINGS);
    // No other role grants staff.manage.
    for (const role of STAFF_ROLES.filter((r) => r !== 'owner')) expect(permissionsOf([role])).not.toContain(STAFF_MANAGE);
  });

  it('unions several roles, each permission once, in one order', () => {
    expect(permissionsOf(['support.manager', 'support.agent', 'ai.edit'])).toEqual(['support.agent', 'support.manager', 'ai.view', 'ai.edit']);
    expect(permissionsOf(['ai.edit', 'support.manager'])).toEqual(permissionsOf(['support.manager', 'ai.edit']));
  });

  it('names the permissions the APIs check by the same strings', () => {
    for (const p of [SUPPORT_AGENT, SUPPORT_MANAGER, AI_VIEW, AI_EDIT, QUIZ_ADMIN, OPS_PERMISSION, 'news.admin']) expect(STAFF_PERMISSIONS).toContain(p);
    // Every role but owner is the permission of the same name.
    for (const role of STAFF_ROLES.filter((r) => r !== 'owner')) expect(ROLE_PERMISSIONS[role]).toContain(role);
  });

  it('covers every permission a route of the four services checks, but the sending system\'s', () => {
    const checked = new Set<string>();
    for (const def of Object.values(serviceDefinitions())) {
      for (const route of def.routes) {
        const named = /with permission (.+)$/.exec(route.auth.describe)?.[1];
        for (const p of named?.split(', ') ?? []) checked.add(p);
      }
    }
    expect(checked.size).toBeGreaterThan(5);
    const notStaff = [...checked].filter((p) => !(STAFF_PERMISSIONS as readonly string[]).includes(p));
    expect(notStaff).toEqual([QUIZ_READINGS]);
  });

  it('is checked by hasPermission as a bearer token\'s permissions are', () => {
    const member = { sub: 'usr_em_x', email: 'a@example.com', permissions: permissionsOf(['support.manager']) };
    expect(hasPermission(member, 'support.agent')).toBe(true);
    expect(hasPermission(member, 'news.admin')).toBe(false);
    expect(hasPermission(member, STAFF_MANAGE)).toBe(false);
  });
});

describe('role lists', () => {
  it('drops repeats and keeps one order, so that equal sets compare equal', () => {
    expect(normaliseRoles(['support.agent', 'owner', 'support.agent'])).toEqual(['owner', 'support.agent']);
    expect(sameRoles(['ai.edit', 'owner'], ['owner', 'ai.edit', 'owner'])).toBe(true);
    expect(sameRoles(['owner'], ['owner', 'ai.edit'])).toBe(false);
  });

  it('takes the CLI\'s --role repeated or comma-separated, and refuses unknown or no roles', () => {
    expect(parseRoleList(['owner', 'support.agent'])).toEqual(['owner', 'support.agent']);
    expect(parseRoleList(['support.agent, owner'])).toEqual(['owner', 'support.agent']);
    expect(() => parseRoleList(['admin'])).toThrow(/unknown role admin/);
    expect(() => parseRoleList([])).toThrow(/at least one role/);
    expect(() => parseRoleList([' , '])).toThrow(/at least one role/);
  });

  it('takes a request\'s roles: at least one, each known, bounded', () => {
    expect(StaffRoles.parse(['support.agent', 'owner'])).toEqual(['owner', 'support.agent']);
    expect(StaffRoles.safeParse([]).success).toBe(false);
    expect(StaffRoles.safeParse(['*']).success).toBe(false);
    expect(StaffRoles.safeParse(['staff.manage']).success).toBe(false);
    expect(StaffRoles.safeParse(Array(50).fill('owner')).success).toBe(false);
  });
});

describe('audit ids and the invitation', () => {
  it('makes audit ids that sort by time', () => {
    const a = auditEntryId(new Date('2026-11-24T10:00:00.000Z'));
    const b = auditEntryId(new Date('2026-11-24T10:00:00.001Z'));
    expect(a).toMatch(AUDIT_ID_PATTERN);
    expect(a < b).toBe(true);
    expect(auditEntryId(new Date(0))).not.toBe(auditEntryId(new Date(0)));
  });

  it('mails the sign-in link with the address in the fragment, no code, in the invitee\'s language', () => {
    const link = invitationLink('http://127.0.0.1:3000', 'carla+staff@example.com');
    expect(link).toBe('http://127.0.0.1:3000/sign-in#email=carla%2Bstaff%40example.com');
    const en = invitationMail({ link, roles: ['news.admin'], invitedBy: 'owner@example.com', locale: 'en' });
    expect(en.text).toContain(link);
    expect(en.text).toContain('news.admin');
    expect(en.text).not.toMatch(/\b\d{6}\b/);
    expect(invitationMail({ link, roles: ['news.admin'], invitedBy: 'cli', locale: 'pt' }).text).toMatch(/convidou/);
  });
});

describe('auditedChange', () => {
  it('keeps what a console change sent, with every field that may hold a secret redacted', () => {
    expect(auditedChange(undefined)).toBeNull();
    expect(JSON.parse(auditedChange({ conteudo: 'Olá', assignee: 'ana@x.dev' })!)).toEqual({ conteudo: 'Olá', assignee: 'ana@x.dev' });
    const provider = { name: 'agenda', config: { url: 'https://x', apiKey: 'sk-1', headers: { Authorization: 'Bearer t' }, env: { TOKEN: 'x' } }, password: 'p' };
    const kept = auditedChange(provider)!;
    expect(kept).not.toMatch(/sk-1|Bearer t|"x"}|"p"/);
    expect(JSON.parse(kept)).toEqual({ name: 'agenda', config: { url: 'https://x', apiKey: '[redacted]', headers: '[redacted]', env: '[redacted]' }, password: '[redacted]' });
    const long = auditedChange({ conteudo: 'a'.repeat(5_000) })!;
    expect(long).toHaveLength(AUDITED_CHANGE_MAX);
    expect(long.endsWith('…')).toBe(true);
  });
});
