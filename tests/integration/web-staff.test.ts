/**
 * Staff accounts and roles on the dashboard's service (issue 38), against the real database and the
 * Mailpit `npm test` started: the owner invites by e-mail, the invitee becomes a member by signing
 * in with a mailed code, a customer's session and a non-owner never reach what they may not, a
 * removed member's next request is 401, and the audit log holds every change with before and after.
 * The last-owner rule is tested on a database of its own (the active owners of other tests would
 * count), its races with fakes too (tests/unit/staff-operations.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { inviteMember } from '../../operations/staff/members';
import { messagesTo } from '../helpers/mailpit';
import { Browser, startWebService, type WebService } from '../helpers/web';

let web: WebService;
beforeAll(async () => {
  web = await startWebService();
});
afterAll(async () => {
  await web?.close();
});

const address = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.com`;
const member = (email: string) => `/api/staff/members/${encodeURIComponent(email)}`;

/** An owner as the CLI makes the first one (`staff add … --role owner`), signed in with the mailed code. */
async function signedInOwner(svc: WebService = web): Promise<{ email: string; browser: Browser }> {
  const email = address('owner');
  await inviteMember({ ...svc.deps, mailer: undefined }, { actor: 'cli', email, roles: ['owner'] });
  const browser = new Browser(svc);
  await browser.signIn(email);
  return { email, browser };
}

/** Every staff route, each as a browser sends it (with its CSRF token where it changes something). */
const everyStaffRoute = (b: Browser, someone: string) => [
  () => b.get('/api/staff/me'),
  () => b.get('/api/staff/members'),
  () => b.post('/api/staff/members', { email: someone, roles: ['owner'] }),
  () => b.patch(member(someone), { roles: ['owner'] }),
  () => b.delete(member(someone)),
  () => b.get('/api/staff/audit'),
];

describe('who reaches the staff routes', () => {
  it('never lets a customer session through (403 on every route), nor a browser with no session (401)', async () => {
    const { email: ownerEmail } = await signedInOwner();
    const customer = new Browser(web);
    await customer.signIn(address('reader'));
    for (const call of everyStaffRoute(customer, ownerEmail)) {
      const res = await call().expect(403);
      expect(res.body).toMatchObject({ success: false, statusCode: 403, code: 'FORBIDDEN' });
    }
    for (const call of everyStaffRoute(new Browser(web), ownerEmail)) await call().expect(401);
    // The customer's tries changed nothing: the owner is still the owner.
    expect(await web.deps.staff.findMember(ownerEmail)).toMatchObject({ roles: ['owner'], status: 'active' });
  });

  it('refuses a change without the session\'s CSRF token, even from an owner', async () => {
    const { browser } = await signedInOwner();
    const csrf = browser.csrf;
    browser.csrf = '';
    await browser.post('/api/staff/members', { email: address('agent'), roles: ['support.agent'] }).expect(403);
    browser.csrf = csrf;
  });

  it("trusts no address before it signs in after the invitation: a session opened before it is not staff's", async () => {
    const { browser: owner } = await signedInOwner();
    const email = address('reader');
    const before = new Browser(web);
    await before.signIn(email);
    await owner.post('/api/staff/members', { email, roles: ['support.agent'] }).expect(201);
    const refused = await before.get('/api/staff/me').expect(403);
    expect(refused.body.error).toMatch(/sign in again/);
    await before.signIn(email);
    expect((await before.get('/api/staff/me').expect(200)).body.data.roles).toEqual(['support.agent']);
  });
});

describe('the owner and a support agent', () => {
  it('invites, the agent signs in with the mailed code, roles change at once, removal ends the sessions, and the audit log tells it all', async () => {
    const { email: ownerEmail, browser: owner } = await signedInOwner();
    const agentEmail = address('agent');

    // The invitation: the member is invited, mailed the sign-in link, and not staff yet.
    const invited = await owner.post('/api/staff/members', { email: agentEmail.toUpperCase(), roles: ['support.agent'], locale: 'en' }).expect(201);
    expect(invited.body.data).toMatchObject({ email: agentEmail, roles: ['support.agent'], permissions: ['support.agent'], status: 'invited', invitedBy: ownerEmail, activatedAt: null });
    const [mail] = await messagesTo(agentEmail);
    expect(mail!.subject).toMatch(/invited/);
    expect(mail!.text).toContain(`${web.origin}/sign-in#email=${encodeURIComponent(agentEmail)}`);
    expect(mail!.text).not.toMatch(/\b\d{6}\b/);
    const again = await owner.post('/api/staff/members', { email: agentEmail, roles: ['owner'] }).expect(409);
    expect(again.body).toMatchObject({ code: 'CONFLICT', error: expect.stringMatching(/already/) });

    // Signing in with the code mailed to the address makes it an active member.
    const agent = new Browser(web);
    await agent.signIn(agentEmail);
    const me = await agent.get('/api/staff/me').expect(200);
    expect(me.body.data).toEqual({ email: agentEmail, roles: ['support.agent'], permissions: ['support.agent'] });
    const listed = await owner.get('/api/staff/members').expect(200);
    expect(listed.body.data.find((m: { email: string }) => m.email === agentEmail)).toMatchObject({ status: 'active', activatedAt: expect.any(String) });

    // A member who is no owner manages nothing.
    for (const call of everyStaffRoute(agent, ownerEmail).slice(1)) {
      const res = await call().expect(403);
      expect(res.body.error).toMatch(/staff\.manage/);
    }

    // New roles hold from the member's next request.
    const changed = await owner.patch(member(agentEmail), { roles: ['support.manager'] }).expect(200);
    expect(changed.body.data).toMatchObject({ roles: ['support.manager'], permissions: ['support.agent', 'support.manager'] });
    expect((await agent.get('/api/staff/me').expect(200)).body.data.permissions).toEqual(['support.agent', 'support.manager']);
    await owner.patch(member('nobody@example.com'), { roles: ['support.agent'] }).expect(404);
    await owner.patch(member(agentEmail), { roles: [] }).expect(400);
    await owner.patch(member(agentEmail), { roles: ['staff.manage'] }).expect(400);

    // Removal ends every session of the address at once: the next request, of any kind, is 401.
    const second = new Browser(web);
    await second.signIn(agentEmail);
    const removed = await owner.delete(member(agentEmail)).expect(200);
    expect(removed.body.data).toEqual({ email: agentEmail, sessionsEnded: 2 });
    await agent.get('/api/staff/me').expect(401);
    await second.get('/api/account/keys').expect(401);
    await owner.delete(member(agentEmail)).expect(404);

    // The owner's three actions, newest first, with before and after (and the agent's sign-in).
    const log = await owner.get('/api/staff/audit?limit=100').expect(200);
    const about = (log.body.data.entries as { actor: string; member: string; action: string }[]).filter((e) => e.member === agentEmail);
    expect(about).toEqual([
      expect.objectContaining({ actor: ownerEmail, action: 'staff.remove', before: { roles: ['support.manager'], status: 'active' }, after: null }),
      expect.objectContaining({ actor: ownerEmail, action: 'staff.roles', before: { roles: ['support.agent'], status: 'active' }, after: { roles: ['support.manager'], status: 'active' } }),
      expect.objectContaining({ actor: agentEmail, action: 'staff.activate', before: { roles: ['support.agent'], status: 'invited' }, after: { roles: ['support.agent'], status: 'active' } }),
      expect.objectContaining({ actor: ownerEmail, action: 'staff.invite', before: null, after: { roles: ['support.agent'], status: 'invited' } }),
    ]);
    expect(about.filter((e) => e.actor === ownerEmail)).toHaveLength(3);
  });

  it('reads the audit log a page at a time, newest first', async () => {
    const { browser: owner } = await signedInOwner();
    const emails = [address('a'), address('b'), address('c')];
    for (const email of emails) await owner.post('/api/staff/members', { email, roles: ['quiz.admin'] }).expect(201);
    const first = await owner.get('/api/staff/audit?limit=2').expect(200);
    expect(first.body.data.entries).toHaveLength(2);
    const next = first.body.data.nextBefore as string;
    expect(next).toBe(first.body.data.entries[1].id);
    const second = await owner.get(`/api/staff/audit?limit=2&before=${encodeURIComponent(next)}`).expect(200);
    const ids = [...first.body.data.entries, ...second.body.data.entries].map((e: { id: string }) => e.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect(new Set(ids).size).toBe(4);
    await owner.get('/api/staff/audit?limit=0').expect(400);
    await owner.get('/api/staff/audit?before=yesterday').expect(400);
  });
});

describe('the last owner', () => {
  /** A web service on a database of its own: no other test's owner counts there. */
  async function withOwnStaff(run: (svc: WebService) => Promise<void>): Promise<void> {
    const svc = await startWebService({ MONGODB_DB: `web_staff_${randomUUID().slice(0, 8)}` });
    try {
      await run(svc);
    } finally {
      await svc.deps.mongo.conn.db?.dropDatabase().catch(() => undefined);
      await svc.close();
    }
  }
  const activeOwners = async (svc: WebService) => (await svc.deps.staff.listMembers(1000)).filter((m) => m.status === 'active' && m.roles.includes('owner')).map((m) => m._id);

  it('can neither be removed nor lose the owner role (409), and an invited owner does not stand in for it', () =>
    withOwnStaff(async (svc) => {
      const { email, browser } = await signedInOwner(svc);
      const second = address('owner');
      await browser.post('/api/staff/members', { email: second, roles: ['owner'] }).expect(201);
      const demoted = await browser.patch(member(email), { roles: ['support.agent'] }).expect(409);
      expect(demoted.body).toMatchObject({ code: 'CONFLICT', error: expect.stringMatching(/last owner/) });
      await browser.delete(member(email)).expect(409);
      expect((await browser.get('/api/staff/me').expect(200)).body.data.roles).toEqual(['owner']);
      // Once the second owner has signed in, the first may give the role up.
      await new Browser(svc).signIn(second);
      await browser.patch(member(email), { roles: ['support.agent'] }).expect(200);
      await browser.get('/api/staff/members').expect(403);
      expect(await activeOwners(svc)).toEqual([second]);
    }));

  it('keeps an owner however two owners demote or remove each other at the same moment', () =>
    withOwnStaff(async (svc) => {
      const a = await signedInOwner(svc);
      const b = await signedInOwner(svc);
      for (let round = 0; round < 6; round++) {
        const remove = round % 2 === 1;
        const change = (by: Browser, whom: string) => (remove ? by.delete(member(whom)) : by.patch(member(whom), { roles: ['quiz.admin'] }));
        const answers = await Promise.all([change(a.browser, b.email), change(b.browser, a.email)]);
        // Never both: at least one is refused as the last owner (or meets the other's change first).
        expect(answers.map((r) => r.status)).not.toEqual([200, 200]);
        for (const r of answers) expect([200, 401, 403, 409]).toContain(r.status);
        const owners = await activeOwners(svc);
        expect(owners.length).toBeGreaterThanOrEqual(1);
        // Two owners again for the next round: the one left invites or promotes the other back.
        const left = owners.includes(a.email) ? a : b;
        const other = left === a ? b : a;
        const found = await svc.deps.staff.findMember(other.email);
        if (!found) {
          await left.browser.post('/api/staff/members', { email: other.email, roles: ['owner'] }).expect(201);
          other.browser = new Browser(svc);
          await other.browser.signIn(other.email);
        } else if (!found.roles.includes('owner')) await left.browser.patch(member(other.email), { roles: ['owner'] }).expect(200);
        expect((await activeOwners(svc)).sort()).toEqual([a.email, b.email].sort());
      }
    }));
});
