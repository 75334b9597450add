/**
 * Sign-in by e-mail code, with fakes of the account repository and the mailer (tests/integration/
 * web-accounts.test.ts proves the wiring against the real database, Mailpit and the HTTP layer):
 * codes are single use, compared by hash, thrown away after five wrong tries, never left behind
 * when no mail went out; sessions rotate and expire.
 */
import type { AccountDoc, SessionDoc, SignInCodeDoc } from '../../models/accounts/account.repo';
import { currentSession, startSignIn, verifySignIn, type SignInDeps } from '../../operations/accounts/sign-in';
import {
  SESSION_IDLE_MS,
  SESSION_MAX_MS,
  SIGN_IN_CODE_TTL_MS,
  Email,
  codeHash,
  emailUserId,
  hashesMatch,
  looksLikeSessionToken,
  newSignInCode,
  sessionExpiry,
  sessionTokenHash,
  signInMail,
} from '../../models/accounts/sign-in.rules';
import { AppError } from '../../models/errors';

function fakes(o: { now?: Date; mailFails?: boolean; existingUser?: string } = {}) {
  let now = o.now ?? new Date('2031-05-01T12:00:00Z');
  const codes = new Map<string, SignInCodeDoc>();
  const accounts = new Map<string, AccountDoc>();
  const sessions = new Map<string, SessionDoc>();
  const mails: { to: string; subject: string; text: string }[] = [];
  const ensured: [string, string | undefined][] = [];
  const deps: SignInDeps = {
    accounts: {
      putCode: async (email: string, hash: string, at: Date, expiresAt: Date) => void codes.set(email, { _id: email, codeHash: hash, attempts: 0, createdAt: at, expiresAt }),
      findCode: async (email: string, at: Date) => {
        const c = codes.get(email);
        return c && c.expiresAt > at ? c : null;
      },
      consumeCode: async (email: string, hash: string) => codes.get(email)?.codeHash === hash && codes.delete(email),
      countWrongCode: async (email: string, hash: string, max: number) => {
        const c = codes.get(email);
        if (c?.codeHash !== hash) return;
        c.attempts += 1;
        if (c.attempts >= max) codes.delete(email);
      },
      deleteCode: async (email: string) => void codes.delete(email),
      findAccount: async (email: string) => accounts.get(email) ?? null,
      verifiedAccount: async (email: string, userId: string, at: Date) => {
        const a = accounts.get(email) ?? { _id: email, userId, verifiedAt: at, createdAt: at, lastSignInAt: at };
        accounts.set(email, { ...a, lastSignInAt: at });
        return accounts.get(email)!;
      },
      createSession: async (s: SessionDoc) => void sessions.set(s._id, s),
      findSession: async (id: string, at: Date) => {
        const s = sessions.get(id);
        return s && s.expiresAt > at ? s : null;
      },
      touchSession: async (id: string, at: Date, expiresAt: Date) => void sessions.set(id, { ...sessions.get(id)!, lastSeenAt: at, expiresAt }),
      deleteSession: async (id: string) => void sessions.delete(id),
      deleteUserSessions: async () => 0,
      countUserSessions: async () => 0,
      ensureIndexes: async () => undefined,
    } as unknown as SignInDeps['accounts'],
    users: {
      // The fake's only user with a proven address is `existingUser`, of known@example.com.
      findByVerifiedEmail: async (email: string) => (o.existingUser && email === 'known@example.com' ? ({ _id: o.existingUser } as never) : null),
      markEmailVerified: async (id: string, email: string) => {
        ensured.push([id, email]);
        return { _id: id } as never;
      },
    },
    mailer: {
      send: async (m) => {
        if (o.mailFails) throw new Error('connect ECONNREFUSED 127.0.0.1:1025');
        mails.push(m);
      },
    },
    codeSecret: 'x'.repeat(32),
    webOrigin: 'http://127.0.0.1:3000',
    now: () => now,
  };
  const codeIn = (i = -1) => /\b(\d{6})\b/.exec(mails.at(i)!.text)![1]!;
  return { deps, codes, sessions, mails, ensured, codeIn, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
}

describe('sign-in rules', () => {
  it('makes 6-digit codes, hashed per address and secret, compared in constant time', () => {
    for (let i = 0; i < 50; i++) expect(newSignInCode()).toMatch(/^\d{6}$/);
    const h = codeHash('s'.repeat(32), 'a@example.com', '123456');
    expect(h).not.toContain('123456');
    expect(hashesMatch(h, codeHash('s'.repeat(32), 'a@example.com', '123456'))).toBe(true);
    expect(hashesMatch(h, codeHash('s'.repeat(32), 'b@example.com', '123456'))).toBe(false);
    expect(hashesMatch(h, codeHash('t'.repeat(32), 'a@example.com', '123456'))).toBe(false);
    expect(hashesMatch(h, '')).toBe(false);
  });

  it('takes addresses mail servers take: at most 254 characters, 64 before the @', () => {
    expect(Email.safeParse(`${'a'.repeat(64)}@example.com`).success).toBe(true);
    expect(Email.safeParse(`${'a'.repeat(65)}@example.com`).success).toBe(false);
    expect(Email.safeParse(`a@${'b'.repeat(250)}.com`).success).toBe(false);
    expect(Email.safeParse('not an address').success).toBe(false);
  });

  it('gives one user id per address and sessions an idle expiry capped by their lifetime', () => {
    expect(emailUserId('a@example.com')).toBe(emailUserId('a@example.com'));
    expect(emailUserId('a@example.com')).not.toBe(emailUserId('b@example.com'));
    const created = new Date('2031-01-01T00:00:00Z');
    expect(sessionExpiry(created, created).getTime()).toBe(created.getTime() + SESSION_IDLE_MS);
    const late = new Date(created.getTime() + SESSION_MAX_MS - 3600_000);
    expect(sessionExpiry(created, late).getTime()).toBe(created.getTime() + SESSION_MAX_MS);
  });

  it('writes the mail in the reader language, the code in the text and in the link fragment only', () => {
    const pt = signInMail({ code: '042042', link: 'http://x/sign-in#code=042042', locale: 'pt' });
    expect(pt.subject).toContain('042042');
    expect(pt.text).toMatch(/código/);
    expect(signInMail({ code: '042042', link: 'l', locale: 'en' }).text).toMatch(/sign-in code is 042042/);
  });
});

describe('startSignIn and verifySignIn', () => {
  it('signs up on the first right code: the account, the user and a session; the code works once', async () => {
    const f = fakes();
    await startSignIn(f.deps, { email: ' New@Example.com ', locale: 'en' });
    expect(f.mails).toHaveLength(1);
    expect(f.mails[0]!.to).toBe('new@example.com');
    expect(f.mails[0]!.text).toContain('http://127.0.0.1:3000/sign-in#');
    const code = f.codeIn();
    expect([...f.codes.values()][0]!.codeHash).not.toContain(code);
    const { token, session } = await verifySignIn(f.deps, { email: 'new@example.com', code });
    expect(looksLikeSessionToken(token)).toBe(true);
    expect(session._id).toBe(sessionTokenHash(token));
    expect(session.userId).toBe(emailUserId('new@example.com'));
    expect(f.ensured).toEqual([[session.userId, 'new@example.com']]);
    await expect(verifySignIn(f.deps, { email: 'new@example.com', code })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('links the address to the user who already has it proven, and marks it proven', async () => {
    const f = fakes({ existingUser: 'usr_idp_123' });
    await startSignIn(f.deps, { email: 'known@example.com', locale: 'pt' });
    const { session } = await verifySignIn(f.deps, { email: 'known@example.com', code: f.codeIn() });
    expect(session.userId).toBe('usr_idp_123');
    expect(f.ensured).toEqual([['usr_idp_123', 'known@example.com']]);
  });

  it('gives an address nobody proved before a user of its own (never one that only typed it on WhatsApp)', async () => {
    const f = fakes({ existingUser: 'usr_idp_123' });
    await startSignIn(f.deps, { email: 'typed@example.com', locale: 'pt' });
    const { session } = await verifySignIn(f.deps, { email: 'typed@example.com', code: f.codeIn() });
    expect(session.userId).toBe(emailUserId('typed@example.com'));
  });

  it('throws the code away after five wrong tries, and refuses an expired one', async () => {
    const f = fakes();
    await startSignIn(f.deps, { email: 'a@example.com', locale: 'en' });
    const code = f.codeIn();
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i++) await expect(verifySignIn(f.deps, { email: 'a@example.com', code: wrong })).rejects.toBeInstanceOf(AppError);
    await expect(verifySignIn(f.deps, { email: 'a@example.com', code })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });

    await startSignIn(f.deps, { email: 'a@example.com', locale: 'en' });
    f.advance(SIGN_IN_CODE_TTL_MS + 1);
    await expect(verifySignIn(f.deps, { email: 'a@example.com', code: f.codeIn() })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('a new code replaces the old one', async () => {
    const f = fakes();
    await startSignIn(f.deps, { email: 'a@example.com', locale: 'en' });
    const first = f.codeIn();
    await startSignIn(f.deps, { email: 'a@example.com', locale: 'en' });
    const second = f.codeIn();
    if (first !== second) await expect(verifySignIn(f.deps, { email: 'a@example.com', code: first })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(verifySignIn(f.deps, { email: 'a@example.com', code: second })).resolves.toMatchObject({ session: { email: 'a@example.com' } });
  });

  it('leaves no code behind when the mail could not be sent (503)', async () => {
    const f = fakes({ mailFails: true });
    await expect(startSignIn(f.deps, { email: 'a@example.com', locale: 'en' })).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    expect(f.codes.size).toBe(0);
  });

  it('rotates the session at sign-in and slides its idle expiry when used', async () => {
    const f = fakes();
    await startSignIn(f.deps, { email: 'a@example.com', locale: 'en' });
    const first = await verifySignIn(f.deps, { email: 'a@example.com', code: f.codeIn() });
    await startSignIn(f.deps, { email: 'a@example.com', locale: 'en' });
    const second = await verifySignIn(f.deps, { email: 'a@example.com', code: f.codeIn(), previousToken: first.token });
    expect(second.token).not.toBe(first.token);
    expect(await currentSession(f.deps, first.token)).toBeNull();
    f.advance(2 * 3600_000);
    const used = await currentSession(f.deps, second.token);
    expect(used!.expiresAt.getTime()).toBe(f.deps.now().getTime() + SESSION_IDLE_MS);
    f.advance(SESSION_IDLE_MS + 1);
    expect(await currentSession(f.deps, second.token)).toBeNull();
  });
});
