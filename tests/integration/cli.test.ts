/** `npm run cli -- …` against the test database: result alone on the last line of stdout. */
import mongoose, { type Connection } from 'mongoose';
import { createTokenVerifier } from '../../models/auth/token.rules';
import { loadConfig, mongoUri } from '../../models/config';
import { apiKeyModel } from '../../models/news/api-key.model';
import { hashApiKey } from '../../models/news/api-key.rules';
import { messageModel, ticketModel } from '../../models/support/support.model';
import { userModel } from '../../models/users/user.model';
import { runTs } from '../helpers/processes';
import { messagesTo } from '../helpers/mailpit';

const config = loadConfig();
let conn: Connection;
beforeAll(async () => {
  conn = await mongoose.createConnection(mongoUri(config), { dbName: config.mongo.db }).asPromise();
});
afterAll(() => conn?.close());

describe('cli token', () => {
  it('prints an HS256 JWT with sub, email and permissions that the services accept', async () => {
    const r = await runTs('ops/cli.ts', ['token', '--sub', 'user-42', '--email', 'u42@example.com', '--perm', 'ai.view,support.agent']);
    expect(r.code).toBe(0);
    const header = JSON.parse(Buffer.from(r.lastLine.split('.')[0]!, 'base64url').toString());
    expect(header.alg).toBe('HS256');
    const verify = createTokenVerifier({ secret: config.auth.jwtSecret, jwksUrl: undefined, issuer: undefined, audience: undefined });
    await expect(verify(r.lastLine)).resolves.toEqual({ sub: 'user-42', email: 'u42@example.com', permissions: ['ai.view', 'support.agent'] });
  });

  it('refuses to sign a token the APIs would refuse for its lifetime', async () => {
    const r = await runTs('ops/cli.ts', ['token', '--sub', 'user-42', '--expires', '30d']);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('longer than JWT_MAX_LIFETIME_HOURS (24 h)');
  });

  it('exits 64 with usage when --sub is missing', async () => {
    const r = await runTs('ops/cli.ts', ['token']);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('token needs --sub ID');
  });
});

describe('cli apikey create', () => {
  it('creates a live key for the user, sets the plan and stores only the hash', async () => {
    const user = `cli-user-${Date.now()}`;
    const r = await runTs('ops/cli.ts', ['apikey', 'create', '--user', user, '--plan', 'pro', '--scopes', 'read:articles,read:entities', '--expires', '30d']);
    expect(r.code).toBe(0);
    expect(r.lastLine).toMatch(/^nws_live_[A-Za-z0-9_-]{32}$/);
    const stored = await apiKeyModel(conn).findOne({ userId: user }).lean();
    expect(stored).toMatchObject({ _id: hashApiKey(r.lastLine), mode: 'live', scopes: ['read:articles', 'read:entities'] });
    expect(JSON.stringify(stored)).not.toContain(r.lastLine);
    const days = (stored!.expiresAt!.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
    expect(await userModel(conn).findById(user).lean()).toMatchObject({ plan: 'pro' });
  });

  it('creates test keys with --test and no expiry by default', async () => {
    const user = `cli-test-${Date.now()}`;
    const r = await runTs('ops/cli.ts', ['apikey', 'create', '--user', user, '--plan', 'starter', '--test']);
    expect(r.lastLine).toMatch(/^nws_test_/);
    expect(await apiKeyModel(conn).findOne({ userId: user }).lean()).toMatchObject({ mode: 'test', expiresAt: null, scopes: ['*'] });
  });

  it.each([
    [['--user', 'u', '--plan', 'gold'], /--plan starter\|pro\|business/],
    [['--user', 'u', '--plan', 'pro', '--scopes', 'write:all'], /unknown scope/],
    [['--user', 'u', '--plan', 'pro', '--expires', '2001-01-01'], /in the future/],
  ])('rejects bad input %j with exit 64 and creates nothing', async (args, message) => {
    const before = await apiKeyModel(conn).countDocuments({ userId: 'u' });
    const r = await runTs('ops/cli.ts', ['apikey', 'create', ...args]);
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(message);
    expect(await apiKeyModel(conn).countDocuments({ userId: 'u' })).toBe(before);
  });
});

describe('cli seed', () => {
  // Without the news corpus (`--articles 0`): the default seed's articles are checked in news-articles.test.ts.
  it('loads the demo data idempotently and prints a summary with working keys', async () => {
    const first = await runTs('ops/cli.ts', ['seed', '--articles', '0']);
    expect(first.code).toBe(0);
    const summary = JSON.parse(first.lastLine);
    expect(summary.users).toBe(4);
    expect(Object.keys(summary.apiKeys)).toEqual(['starter', 'pro', 'business']);
    // Support shows something real: tickets in several statuses, with messages, replies and tags.
    expect(summary.support).toEqual({ tickets: 8, tags: 4, quickReplies: 3 });
    // The demo staff: an owner and an agent, invited (members once they sign in to the dashboard).
    expect(summary.staff).toEqual({ 'owner@demo.newsletter.dev': ['owner'], 'agent@demo.newsletter.dev': ['support.agent'] });
    expect(await conn.collection('staff_members').findOne({ _id: 'owner@demo.newsletter.dev' as never })).toMatchObject({ roles: ['owner'], invitedBy: 'seed' });
    const demo = await ticketModel(conn).find({ email: /@leitores\.demo\.newsletter\.dev$/ }).lean();
    expect(new Set(demo.map((t) => t.status))).toEqual(new Set(['open', 'in_progress', 'resolved', 'closed']));
    expect(demo.every((t) => t.tags.length === 1)).toBe(true);
    expect(demo.filter((t) => t.firstAdminReplyAt !== null)).toHaveLength(5);
    expect(await messageModel(conn).countDocuments({ ticketId: { $in: demo.map((t) => t._id) } })).toBe(7);
    const second = await runTs('ops/cli.ts', ['seed', '--articles', '0']);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.lastLine).support).toEqual({ tickets: 8, tags: 4, quickReplies: 3 });
    expect(await messageModel(conn).countDocuments({ ticketId: { $in: demo.map((t) => t._id) } })).toBe(7);
    expect(await userModel(conn).countDocuments({ _id: /^demo-/ })).toBe(4);
    expect(await conn.collection('staff_members').countDocuments({ _id: { $in: ['owner@demo.newsletter.dev', 'agent@demo.newsletter.dev'] } as never })).toBe(2);
    // Keys are rotated: the first run's key is revoked, the second's active.
    const old = await apiKeyModel(conn).findById(hashApiKey(summary.apiKeys.pro)).lean();
    const fresh = await apiKeyModel(conn).findById(hashApiKey(JSON.parse(second.lastLine).apiKeys.pro)).lean();
    expect(old?.revokedAt).toBeInstanceOf(Date);
    expect(fresh?.revokedAt).toBeNull();
  });
});

describe('cli source', () => {
  it('adds, lists and disables a news source; bad input exits 64, an unknown id 65', async () => {
    const feed = `https://feeds.example.test/${Date.now()}.xml`;
    const added = await runTs('ops/cli.ts', ['source', 'add', '--name', 'Fonte CLI', '--feed', feed, '--tier', '1', '--every', '10']);
    expect(added.code).toBe(0);
    const { id, enabled } = JSON.parse(added.lastLine) as { id: string; enabled: boolean };
    expect(enabled).toBe(true);
    const listed = JSON.parse((await runTs('ops/cli.ts', ['source', 'list'])).lastLine) as { id: string; feedUrl: string; tier: number; every: number }[];
    expect(listed.find((s) => s.id === id)).toMatchObject({ feedUrl: feed, tier: 1, every: 10 });
    const disabled = await runTs('ops/cli.ts', ['source', 'disable', '--id', id]);
    expect([disabled.code, JSON.parse(disabled.lastLine).enabled]).toEqual([0, false]);
    expect((await runTs('ops/cli.ts', ['source', 'add', '--name', 'Fonte CLI', '--feed', 'ftp://example.test/feed'])).code).toBe(64);
    expect((await runTs('ops/cli.ts', ['source', 'add', '--name', 'Duplicada', '--feed', feed])).code).toBe(65);
    expect((await runTs('ops/cli.ts', ['source', 'disable', '--id', '00000000-0000-4000-8000-000000000000'])).code).toBe(65);
  });
});

describe('cli staff', () => {
  it('adds a member (roles repeated or comma-separated, the sign-in link mailed), lists it, removes it; each change in the audit log as the CLI\'s', async () => {
    const email = `owner-${Date.now()}@example.com`;
    const added = await runTs('ops/cli.ts', ['staff', 'add', email.toUpperCase(), '--role', 'owner', '--role', 'support.agent,ai.edit']);
    expect(added.code).toBe(0);
    expect(JSON.parse(added.lastLine)).toMatchObject({
      email,
      roles: ['owner', 'support.agent', 'ai.edit'],
      permissions: ['support.agent', 'support.manager', 'news.admin', 'quiz.admin', 'ai.view', 'ai.edit', 'platform.ops', 'staff.manage'],
      status: 'invited',
      invitedBy: 'cli',
      activatedAt: null,
    });
    const [mail] = await messagesTo(email);
    expect(mail!.text).toContain(`/sign-in#email=${encodeURIComponent(email)}`);

    const listed = JSON.parse((await runTs('ops/cli.ts', ['staff', 'list'])).lastLine) as { email: string; status: string }[];
    expect(listed.find((m) => m.email === email)).toMatchObject({ status: 'invited' });

    // Already a member: 65, nothing changed.
    const again = await runTs('ops/cli.ts', ['staff', 'add', email, '--role', 'support.agent']);
    expect(again.code).toBe(65);
    expect(again.stderr).toContain('already');

    const removed = await runTs('ops/cli.ts', ['staff', 'remove', email]);
    expect([removed.code, JSON.parse(removed.lastLine)]).toEqual([0, { email, sessionsEnded: 0 }]);
    expect((await runTs('ops/cli.ts', ['staff', 'remove', email])).code).toBe(65);

    const entries = await conn.collection('staff_audit').find({ member: email }).sort({ _id: 1 }).toArray();
    expect(entries.map((e) => [e.actor, e.action, e.before, e.after])).toEqual([
      ['cli', 'staff.invite', null, { roles: ['owner', 'support.agent', 'ai.edit'], status: 'invited' }],
      ['cli', 'staff.remove', { roles: ['owner', 'support.agent', 'ai.edit'], status: 'invited' }, null],
    ]);
  });

  it('mails nothing with --no-mail', async () => {
    const email = `quiet-${Date.now()}@example.com`;
    const added = await runTs('ops/cli.ts', ['staff', 'add', email, '--role', 'quiz.admin', '--no-mail']);
    expect(added.code).toBe(0);
    expect(await messagesTo(email)).toHaveLength(0);
    expect((await runTs('ops/cli.ts', ['staff', 'remove', email])).code).toBe(0);
  });

  it.each([
    [['staff', 'add', 'someone@example.com'], /at least one role/],
    [['staff', 'add', 'someone@example.com', '--role', 'admin'], /unknown role admin/],
    [['staff', 'add', 'not-an-address', '--role', 'owner'], /not an e-mail address/],
    [['staff', 'remove'], /needs one EMAIL/],
    [['staff', 'promote', 'someone@example.com'], /staff supports: add, list, remove/],
  ])('refuses %j with exit 64 and the usage', async (args, message) => {
    const r = await runTs('ops/cli.ts', args);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
  });
});
