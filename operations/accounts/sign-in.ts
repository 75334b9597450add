/**
 * Signing in to the dashboard by e-mail (issue 26): one flow for sign-up and sign-in, so the answer
 * is the same for known and unknown addresses. The account (and its user) is made only when a code
 * sent to the address comes back: an address is verified before anything, a key included, exists.
 */
import { AppError, dependencyUnavailable } from '../../models/errors';
import type { UserRepo } from '../../models/users/user.repo';
import type { AccountRepo, SessionDoc } from '../../models/accounts/account.repo';
import type { StaffRepo } from '../../models/staff/staff.repo';
import type { ReaderMailRepo } from '../../models/news/reader-mail.repo';
import { activateInvitation } from '../staff/members';
import {
  SIGN_IN_CODE_TTL_MS,
  SIGN_IN_MAX_ATTEMPTS,
  SESSION_TOUCH_MS,
  codeHash,
  emailUserId,
  hashesMatch,
  newCsrfToken,
  newSessionToken,
  newSignInCode,
  normaliseEmail,
  sessionExpiry,
  sessionTokenHash,
  signInMail,
} from '../../models/accounts/sign-in.rules';

export interface Mailer {
  send(message: { to: string; subject: string; text: string }): Promise<unknown>;
}

export interface SignInDeps {
  accounts: AccountRepo;
  users: Pick<UserRepo, 'findByVerifiedEmail' | 'markEmailVerified'>;
  mailer: Mailer;
  /** Keys the stored hashes of codes. */
  codeSecret: string;
  /** The dashboard's origin, for the link in the mail. */
  webOrigin: string;
  /** Staff invitations, accepted by signing in (issue 38); none where there is no staff (unit tests). */
  staff?: Pick<StaffRepo, 'activate' | 'record'> | undefined;
  /** Readers' mail suppressed for the address (a bounce, a complaint): proven again, it is lifted (issue 40). */
  readerMail?: Pick<ReaderMailRepo, 'unsuppress'> | undefined;
  now: () => Date;
}

export const SIGN_IN_SENT = 'If this address can receive mail, a sign-in code is on its way. It works for 10 minutes.';

/** Sends a fresh code to the address (any earlier code stops working). */
export async function startSignIn(deps: SignInDeps, input: { email: string; locale: 'pt' | 'en' }): Promise<void> {
  const email = normaliseEmail(input.email);
  const now = deps.now();
  const code = newSignInCode();
  await deps.accounts.putCode(email, codeHash(deps.codeSecret, email, code), now, new Date(now.getTime() + SIGN_IN_CODE_TTL_MS));
  const link = `${deps.webOrigin}/sign-in#${new URLSearchParams({ email, code }).toString()}`;
  try {
    await deps.mailer.send({ to: email, ...signInMail({ code, link, locale: input.locale }) });
  } catch (err) {
    // Nothing was sent: the code must not wait for a mail that never left.
    await deps.accounts.deleteCode(email).catch(() => undefined);
    throw err instanceof AppError ? err : dependencyUnavailable('mail', err);
  }
}

export interface SignedIn {
  /** The session cookie's value: shown to nobody but the browser. */
  token: string;
  session: SessionDoc;
}

const WRONG_CODE = 'This code is wrong or has expired: ask for a new one.';

/**
 * Checks the address's code (constant time, single use, a few tries), makes the account on its
 * first use and opens a new session, ending the one the browser had (the session id rotates at
 * sign-in).
 */
export async function verifySignIn(deps: SignInDeps, input: { email: string; code: string; previousToken?: string | undefined }): Promise<SignedIn> {
  const email = normaliseEmail(input.email);
  const now = deps.now();
  const hash = codeHash(deps.codeSecret, email, input.code);
  const pending = await deps.accounts.findCode(email, now);
  if (!pending) throw new AppError('UNAUTHENTICATED', WRONG_CODE);
  if (!hashesMatch(pending.codeHash, hash)) {
    await deps.accounts.countWrongCode(email, pending.codeHash, SIGN_IN_MAX_ATTEMPTS);
    throw new AppError('UNAUTHENTICATED', WRONG_CODE);
  }
  if (!(await deps.accounts.consumeCode(email, hash))) throw new AppError('UNAUTHENTICATED', WRONG_CODE);

  // The same person may already be a user whose address is proven (a token of the identity
  // provider). Never one that only typed the address on WhatsApp: anybody can type any address
  // there, and adopting that user would hand its phone this account (issue 35: pre-hijack). That
  // user keeps its phone; this account gets its own user, and its owner links a phone by a code
  // sent to it (POST /api/account/whatsapp/link).
  const existing = (await deps.accounts.findAccount(email))?.userId ?? (await deps.users.findByVerifiedEmail(email))?._id ?? emailUserId(email);
  const account = await deps.accounts.verifiedAccount(email, existing, now);
  await deps.users.markEmailVerified(account.userId, email, now);
  // The code came back through this address: it takes mail again. The reader's settings, which a
  // complaint switched off, stay as they are until the reader turns them on.
  await deps.readerMail?.unsuppress(email);
  // The address is proven now: a staff invitation to it is accepted (issue 38).
  if (deps.staff) await activateInvitation({ staff: deps.staff, now: deps.now }, email);

  if (input.previousToken) await deps.accounts.deleteSession(sessionTokenHash(input.previousToken));
  const token = newSessionToken();
  const session: SessionDoc = {
    _id: sessionTokenHash(token),
    userId: account.userId,
    email,
    csrfToken: newCsrfToken(),
    createdAt: now,
    lastSeenAt: now,
    expiresAt: sessionExpiry(now, now),
  };
  await deps.accounts.createSession(session);
  return { token, session };
}

/** The live session a cookie names, its idle expiry pushed back (at most once an hour). */
export async function currentSession(deps: Pick<SignInDeps, 'accounts' | 'now'>, token: string): Promise<SessionDoc | null> {
  const now = deps.now();
  const tokenHash = sessionTokenHash(token);
  const session = await deps.accounts.findSession(tokenHash, now);
  if (!session) return null;
  if (now.getTime() - session.lastSeenAt.getTime() > SESSION_TOUCH_MS) {
    const expiresAt = sessionExpiry(session.createdAt, now);
    await deps.accounts.touchSession(tokenHash, now, expiresAt);
    return { ...session, lastSeenAt: now, expiresAt };
  }
  return session;
}

export async function signOut(deps: Pick<SignInDeps, 'accounts'>, token: string): Promise<void> {
  await deps.accounts.deleteSession(sessionTokenHash(token));
}

/** Ends every session of the user, on every device; returns how many ended. */
export async function signOutEverywhere(deps: Pick<SignInDeps, 'accounts'>, userId: string): Promise<number> {
  return await deps.accounts.deleteUserSessions(userId);
}
