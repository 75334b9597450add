/**
 * Staff members (issue 38) with fakes of the staff repository, the sessions and the mailer
 * (tests/integration/web-staff.test.ts proves the wiring on the real stack): an invited address is
 * no member until it signs in with a mailed code; the last active owner stays, however two owners
 * race; a removed member's sessions end; every change is one audit entry with before and after.
 */
import type { AccountDoc, SessionDoc, SignInCodeDoc } from '../../models/accounts/account.repo';
import type { StaffAuditDoc, StaffMemberDoc, StaffRepo } from '../../models/staff/staff.repo';
import { STAFF_MAX } from '../../models/staff/staff.rules';
import { startSignIn, verifySignIn, type SignInDeps } from '../../operations/accounts/sign-in';
import { activateInvitation, auditLog, changeRoles, inviteMember, listMembers, removeMember, staffAccess, type StaffDeps } from '../../operations/staff/members';

const ORIGIN = 'http://127.0.0.1:3000';
const OWNER = 'owner@example.com';

const clone = <T>(v: T): T => structuredClone(v);

/** An in-memory staff, with `pauseWrites` to hold writes until as many are waiting (to race two changes). */
function fakes(o: { mailFails?: boolean } = {}) {
  let clock = new Date('2031-05-01T12:00:00Z').getTime();
  const now = () => new Date((clock += 1000));
  const members = new Map<string, StaffMemberDoc>();
  const entries: StaffAuditDoc[] = [];
  const sessions: { email: string }[] = [];
  const mails: { to: string; subject: string; text: string }[] = [];
  let gate: { waiting: number; needed: number; release: () => void; opened: Promise<void> } | undefined;
  const writeGate = async () => {
    if (!gate) return;
    gate.waiting += 1;
    if (gate.waiting >= gate.needed) gate.release();
    await gate.opened;
  };
  const activeOwners = () => [...members.values()].filter((m) => m.status === 'active' && m.roles.includes('owner')).length;
  const staff = {
    findMember: async (email: string) => clone(members.get(email) ?? null),
    listMembers: async (limit: number) => [...members.values()].sort((a, b) => a._id.localeCompare(b._id)).slice(0, limit).map(clone),
    countMembers: async () => members.size,
    countActiveOwners: async () => activeOwners(),
    insertMember: async (doc: StaffMemberDoc) => {
      if (members.has(doc._id)) return false;
      members.set(doc._id, clone(doc));
      return true;
    },
    setRoles: async (email: string, version: number, roles: StaffMemberDoc['roles'], at: Date) => {
      await writeGate();
      const m = members.get(email);
      if (!m || m.version !== version) return null;
      Object.assign(m, { roles, updatedAt: at, version: m.version + 1 });
      return clone(m);
    },
    removeMember: async (email: string, version: number) => {
      await writeGate();
      if (members.get(email)?.version !== version) return false;
      return members.delete(email);
    },
    restoreMember: async (before: StaffMemberDoc, at: Date) => {
      const m = members.get(before._id);
      if (m) Object.assign(m, { roles: before.roles, status: before.status, activatedAt: before.activatedAt, updatedAt: at, version: m.version + 1 });
      else members.set(before._id, { ...clone(before), updatedAt: at, version: before.version + 1 });
    },
    activate: async (email: string, at: Date) => {
      const m = members.get(email);
      if (m?.status !== 'invited') return null;
      const before = clone(m);
      Object.assign(m, { status: 'active', activatedAt: at, updatedAt: at, version: m.version + 1 });
      return before;
    },
    record: async (entry: StaffAuditDoc) => void entries.push(clone(entry)),
    auditPage: async ({ before, limit }: { before?: string | undefined; limit: number }) =>
      entries
        .filter((e) => before === undefined || e._id < before)
        .sort((a, b) => (a._id < b._id ? 1 : -1))
        .slice(0, limit)
        .map(clone),
  };
  const deps: StaffDeps = {
    staff: staff as unknown as StaffRepo,
    accounts: {
      deleteEmailSessions: async (email: string) => {
        const before = sessions.length;
        for (let i = sessions.length - 1; i >= 0; i--) if (sessions[i]!.email === email) sessions.splice(i, 1);
        return before - sessions.length;
      },
    },
    mailer: {
      send: async (m) => {
        if (o.mailFails) throw new Error('connect ECONNREFUSED 127.0.0.1:1025');
        mails.push(m);
      },
    },
    webOrigin: ORIGIN,
    now,
  };
  /** A member as the CLI's invitation and the address's first sign-in leave it. */
  const activeMember = async (email: string, roles: StaffMemberDoc['roles'], actor = 'cli') => {
    await inviteMember(deps, { actor, email, roles });
    await activateInvitation(deps, email);
  };
  /** Holds the next `needed` writes until all of them are waiting, then lets them go together. */
  const pauseWrites = (needed: number) => {
    let release!: () => void;
    const opened = new Promise<void>((resolve) => (release = resolve));
    gate = { waiting: 0, needed, release, opened };
  };
  return { deps, members, entries, sessions, mails, activeMember, pauseWrites, activeOwners };
}

const refused = (code: string) => expect.objectContaining({ code });

describe('inviting', () => {
  it('invites an address (normalised) with its roles: mailed the sign-in link, invited, recorded with before and after', async () => {
    const f = fakes();
    const member = await inviteMember(f.deps, { actor: OWNER, email: ' Agent@Example.com ', roles: ['support.agent', 'support.agent'], locale: 'pt' });
    expect(member).toMatchObject({ _id: 'agent@example.com', roles: ['support.agent'], status: 'invited', invitedBy: OWNER, activatedAt: null });
    expect(f.mails).toHaveLength(1);
    expect(f.mails[0]).toMatchObject({ to: 'agent@example.com' });
    expect(f.mails[0]!.text).toContain(`${ORIGIN}/sign-in#email=agent%40example.com`);
    expect(f.mails[0]!.text).toMatch(/convidou/);
    expect(f.entries).toEqual([
      expect.objectContaining({ actor: OWNER, action: 'staff.invite', member: 'agent@example.com', before: null, after: { roles: ['support.agent'], status: 'invited' } }),
    ]);
  });

  it('refuses a second invitation of a member (409), whatever the case of the address; nothing mailed or recorded', async () => {
    const f = fakes();
    await inviteMember(f.deps, { actor: OWNER, email: 'agent@example.com', roles: ['support.agent'] });
    await expect(inviteMember(f.deps, { actor: OWNER, email: 'AGENT@example.com', roles: ['owner'] })).rejects.toEqual(refused('CONFLICT'));
    expect(f.members.get('agent@example.com')!.roles).toEqual(['support.agent']);
    expect(f.mails).toHaveLength(1);
    expect(f.entries).toHaveLength(1);
  });

  it('keeps no invitation that could not be mailed (503), and records none', async () => {
    const f = fakes({ mailFails: true });
    await expect(inviteMember(f.deps, { actor: OWNER, email: 'agent@example.com', roles: ['support.agent'] })).rejects.toEqual(refused('DEPENDENCY_UNAVAILABLE'));
    expect(f.members.size).toBe(0);
    expect(f.entries).toHaveLength(0);
  });

  it('mails nothing without a mailer (the demo data, staff add --no-mail)', async () => {
    const f = fakes();
    await inviteMember({ ...f.deps, mailer: undefined }, { actor: 'seed', email: 'owner@demo.example', roles: ['owner'] });
    expect(f.mails).toHaveLength(0);
    expect(f.members.get('owner@demo.example')).toMatchObject({ status: 'invited', invitedBy: 'seed' });
  });

  it(`holds the staff to ${STAFF_MAX} members, the one past it not kept`, async () => {
    const f = fakes();
    for (let i = 0; i < STAFF_MAX; i++) await inviteMember({ ...f.deps, mailer: undefined }, { actor: OWNER, email: `m${i}@example.com`, roles: ['support.agent'] });
    await expect(inviteMember(f.deps, { actor: OWNER, email: 'one-more@example.com', roles: ['support.agent'] })).rejects.toEqual(refused('CONFLICT'));
    expect(f.members.has('one-more@example.com')).toBe(false);
    expect(f.members.size).toBe(STAFF_MAX);
  });
});

describe('invited and active', () => {
  it('gives an invited address no access (403) until it signs in; then its roles and their permissions', async () => {
    const f = fakes();
    await inviteMember(f.deps, { actor: OWNER, email: 'manager@example.com', roles: ['support.manager'] });
    await expect(staffAccess(f.deps, 'manager@example.com')).rejects.toEqual(refused('FORBIDDEN'));
    const active = await activateInvitation(f.deps, 'manager@example.com');
    expect(active).toMatchObject({ status: 'active', activatedAt: expect.any(Date) });
    await expect(staffAccess(f.deps, 'Manager@Example.com')).resolves.toEqual({ email: 'manager@example.com', roles: ['support.manager'], permissions: ['support.agent', 'support.manager'] });
    expect(f.entries.at(-1)).toMatchObject({ actor: 'manager@example.com', action: 'staff.activate', before: { status: 'invited' }, after: { roles: ['support.manager'], status: 'active' } });
    // Once: a second sign-in changes and records nothing.
    await expect(activateInvitation(f.deps, 'manager@example.com')).resolves.toBeNull();
    expect(f.entries).toHaveLength(2);
  });

  it('gives a customer (no member) 403', async () => {
    await expect(staffAccess(fakes().deps, 'reader@example.com')).rejects.toEqual(refused('FORBIDDEN'));
  });

  it('accepts an invitation only when the address signs in with the code mailed to it: a wrong code leaves it invited', async () => {
    const f = fakes();
    await inviteMember(f.deps, { actor: OWNER, email: 'agent@example.com', roles: ['support.agent'] });
    const codes = new Map<string, SignInCodeDoc>();
    const accounts = new Map<string, AccountDoc>();
    const signInDeps: SignInDeps = {
      accounts: {
        putCode: async (email: string, codeHash: string, at: Date, expiresAt: Date) => void codes.set(email, { _id: email, codeHash, attempts: 0, createdAt: at, expiresAt }),
        findCode: async (email: string) => codes.get(email) ?? null,
        consumeCode: async (email: string, hash: string) => codes.get(email)?.codeHash === hash && codes.delete(email),
        countWrongCode: async () => undefined,
        findAccount: async (email: string) => accounts.get(email) ?? null,
        verifiedAccount: async (email: string, userId: string, at: Date) => {
          accounts.set(email, { _id: email, userId, verifiedAt: at, createdAt: at, lastSignInAt: at });
          return accounts.get(email)!;
        },
        createSession: async (s: SessionDoc) => void f.sessions.push({ email: s.email }),
      } as unknown as SignInDeps['accounts'],
      users: { findByVerifiedEmail: async () => null, markEmailVerified: async (id: string) => ({ _id: id }) as never },
      mailer: f.deps.mailer!,
      codeSecret: 'x'.repeat(32),
      webOrigin: ORIGIN,
      staff: f.deps.staff,
      now: f.deps.now,
    };
    await startSignIn(signInDeps, { email: 'agent@example.com', locale: 'en' });
    const code = /\b(\d{6})\b/.exec(f.mails.at(-1)!.text)![1]!;
    await expect(verifySignIn(signInDeps, { email: 'agent@example.com', code: code === '000000' ? '000001' : '000000' })).rejects.toEqual(refused('UNAUTHENTICATED'));
    expect(f.members.get('agent@example.com')!.status).toBe('invited');
    await verifySignIn(signInDeps, { email: 'agent@example.com', code });
    expect(f.members.get('agent@example.com')!.status).toBe('active');
    await expect(staffAccess(f.deps, 'agent@example.com')).resolves.toMatchObject({ permissions: ['support.agent'] });
  });
});

describe('changing roles', () => {
  it('sets the roles, recorded with before and after; the member has the new permissions at once', async () => {
    const f = fakes();
    await f.activeMember(OWNER, ['owner']);
    await f.activeMember('agent@example.com', ['support.agent'], OWNER);
    const after = await changeRoles(f.deps, { actor: OWNER, email: 'agent@example.com', roles: ['ai.edit', 'support.manager'] });
    expect(after.roles).toEqual(['support.manager', 'ai.edit']);
    expect((await staffAccess(f.deps, 'agent@example.com')).permissions).toEqual(['support.agent', 'support.manager', 'ai.view', 'ai.edit']);
    expect(f.entries.at(-1)).toMatchObject({
      actor: OWNER,
      action: 'staff.roles',
      member: 'agent@example.com',
      before: { roles: ['support.agent'], status: 'active' },
      after: { roles: ['support.manager', 'ai.edit'], status: 'active' },
    });
  });

  it('changes and records nothing for the same roles again; 404 for no member; 400 for no role', async () => {
    const f = fakes();
    await f.activeMember(OWNER, ['owner']);
    const count = f.entries.length;
    await changeRoles(f.deps, { actor: OWNER, email: OWNER, roles: ['owner', 'owner'] });
    expect(f.entries).toHaveLength(count);
    await expect(changeRoles(f.deps, { actor: OWNER, email: 'nobody@example.com', roles: ['owner'] })).rejects.toEqual(refused('NOT_FOUND'));
    await expect(changeRoles(f.deps, { actor: OWNER, email: OWNER, roles: [] })).rejects.toEqual(refused('VALIDATION_FAILED'));
  });
});

describe('the last owner', () => {
  it('cannot lose the owner role nor be removed (409): nothing changes, nothing is recorded', async () => {
    const f = fakes();
    await f.activeMember(OWNER, ['owner']);
    const count = f.entries.length;
    await expect(changeRoles(f.deps, { actor: OWNER, email: OWNER, roles: ['support.agent'] })).rejects.toEqual(
      expect.objectContaining({ code: 'CONFLICT', details: { email: OWNER, reason: 'last_owner' } }),
    );
    await expect(removeMember(f.deps, { actor: OWNER, email: OWNER })).rejects.toEqual(refused('CONFLICT'));
    expect(f.members.get(OWNER)!.roles).toEqual(['owner']);
    expect(f.entries).toHaveLength(count);
    // Adding a role keeps the owner: allowed.
    await expect(changeRoles(f.deps, { actor: OWNER, email: OWNER, roles: ['owner', 'platform.ops'] })).resolves.toMatchObject({ roles: ['owner', 'platform.ops'] });
  });

  it('counts only active owners: an invited owner does not stand in for the last active one', async () => {
    const f = fakes();
    await f.activeMember(OWNER, ['owner']);
    await inviteMember(f.deps, { actor: OWNER, email: 'second@example.com', roles: ['owner'] });
    await expect(removeMember(f.deps, { actor: OWNER, email: OWNER })).rejects.toEqual(refused('CONFLICT'));
    await activateInvitation(f.deps, 'second@example.com');
    await expect(removeMember(f.deps, { actor: 'second@example.com', email: OWNER })).resolves.toMatchObject({ member: { _id: OWNER } });
    expect(f.activeOwners()).toBe(1);
  });

  it('lets an invited owner go when it is no active owner (an address mistyped on the CLI)', async () => {
    const f = fakes();
    await inviteMember(f.deps, { actor: 'cli', email: 'ownr@example.com', roles: ['owner'] });
    await expect(removeMember(f.deps, { actor: 'cli', email: 'ownr@example.com' })).resolves.toMatchObject({ sessionsEnded: 0 });
  });

  it('survives two owners demoting each other at once: both writes land, both count no owner, both are undone (409)', async () => {
    const f = fakes();
    await f.activeMember('a@example.com', ['owner']);
    await f.activeMember('b@example.com', ['owner']);
    const count = f.entries.length;
    f.pauseWrites(2);
    const results = await Promise.allSettled([
      changeRoles(f.deps, { actor: 'a@example.com', email: 'b@example.com', roles: ['support.agent'] }),
      changeRoles(f.deps, { actor: 'b@example.com', email: 'a@example.com', roles: ['support.agent'] }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    for (const r of results) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'CONFLICT' });
    expect(f.activeOwners()).toBe(2);
    expect(f.members.get('a@example.com')!.roles).toEqual(['owner']);
    expect(f.members.get('b@example.com')!.roles).toEqual(['owner']);
    expect(f.entries).toHaveLength(count);
  });

  it('survives two owners removing each other at once', async () => {
    const f = fakes();
    await f.activeMember('a@example.com', ['owner']);
    await f.activeMember('b@example.com', ['owner']);
    f.pauseWrites(2);
    const results = await Promise.allSettled([removeMember(f.deps, { actor: 'a@example.com', email: 'b@example.com' }), removeMember(f.deps, { actor: 'b@example.com', email: 'a@example.com' })]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(f.activeOwners()).toBe(2);
    expect([...f.members.keys()].sort()).toEqual(['a@example.com', 'b@example.com']);
  });

  it('lets one of two owners go when the demotions come one after the other', async () => {
    const f = fakes();
    await f.activeMember('a@example.com', ['owner']);
    await f.activeMember('b@example.com', ['owner']);
    await changeRoles(f.deps, { actor: 'a@example.com', email: 'b@example.com', roles: ['support.agent'] });
    await expect(changeRoles(f.deps, { actor: 'b@example.com', email: 'a@example.com', roles: ['support.agent'] })).rejects.toEqual(refused('CONFLICT'));
    expect(f.activeOwners()).toBe(1);
  });
});

describe('removing', () => {
  it("ends the member's sessions at once (only its own), and records before and after", async () => {
    const f = fakes();
    await f.activeMember(OWNER, ['owner']);
    await f.activeMember('agent@example.com', ['support.agent'], OWNER);
    f.sessions.push({ email: 'agent@example.com' }, { email: 'agent@example.com' }, { email: OWNER }, { email: 'reader@example.com' });
    const { member, sessionsEnded } = await removeMember(f.deps, { actor: OWNER, email: 'Agent@example.com' });
    expect(member._id).toBe('agent@example.com');
    expect(sessionsEnded).toBe(2);
    expect(f.sessions).toEqual([{ email: OWNER }, { email: 'reader@example.com' }]);
    await expect(staffAccess(f.deps, 'agent@example.com')).rejects.toEqual(refused('FORBIDDEN'));
    expect(f.entries.at(-1)).toMatchObject({ actor: OWNER, action: 'staff.remove', member: 'agent@example.com', before: { roles: ['support.agent'], status: 'active' }, after: null });
    await expect(removeMember(f.deps, { actor: OWNER, email: 'agent@example.com' })).rejects.toEqual(refused('NOT_FOUND'));
  });

  it('lists the members by address', async () => {
    const f = fakes();
    await f.activeMember(OWNER, ['owner']);
    await inviteMember(f.deps, { actor: OWNER, email: 'agent@example.com', roles: ['support.agent'] });
    expect((await listMembers(f.deps)).map((m) => [m._id, m.status])).toEqual([
      ['agent@example.com', 'invited'],
      [OWNER, 'active'],
    ]);
  });
});

describe('the audit log', () => {
  it('reads newest first, a page at a time, each page saying where the next begins', async () => {
    const f = fakes();
    await f.activeMember(OWNER, ['owner']); // invite, activate
    await inviteMember(f.deps, { actor: OWNER, email: 'agent@example.com', roles: ['support.agent'] });
    await changeRoles(f.deps, { actor: OWNER, email: 'agent@example.com', roles: ['support.manager'] });
    await removeMember(f.deps, { actor: OWNER, email: 'agent@example.com' });
    const first = await auditLog(f.deps, { limit: 2 });
    expect(first.entries.map((e) => e.action)).toEqual(['staff.remove', 'staff.roles']);
    expect(first.nextBefore).toBe(first.entries[1]!._id);
    const second = await auditLog(f.deps, { limit: 2, before: first.nextBefore! });
    expect(second.entries.map((e) => e.action)).toEqual(['staff.invite', 'staff.activate']);
    const last = await auditLog(f.deps, { limit: 2, before: second.nextBefore! });
    expect(last).toEqual({ entries: [expect.objectContaining({ action: 'staff.invite', actor: 'cli', member: OWNER })], nextBefore: null });
    // Every entry says who, what, when, to whom, before and after.
    for (const e of f.entries) expect(Object.keys(e).sort()).toEqual(['_id', 'action', 'actor', 'after', 'at', 'before', 'member']);
  });
});

