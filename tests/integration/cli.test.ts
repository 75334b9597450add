/** `npm run cli -- …` against the test database: result alone on the last line of stdout. */
import mongoose, { type Connection } from 'mongoose';
import { createTokenVerifier } from '../../models/auth/token.rules';
import { loadConfig, mongoUri } from '../../models/config';
import { apiKeyModel } from '../../models/news/api-key.model';
import { hashApiKey } from '../../models/news/api-key.rules';
import { messageModel, ticketModel } from '../../models/support/support.model';
import { userModel } from '../../models/users/user.model';
import { runTs } from '../helpers/processes';

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
