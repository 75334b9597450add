/**
 * Signing in to the dashboard (issue 26): an e-mail code (or the link carrying it), a server-side
 * session in an HttpOnly cookie, sign-out here or everywhere. One flow for sign-up and sign-in,
 * answering the same for every address (no account enumeration).
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { z } from 'zod';
import { SIGN_IN_SENT, currentSession, signOut, signOutEverywhere, startSignIn, verifySignIn } from '../../operations/accounts/sign-in';
import { normaliseEmail } from '../../models/accounts/sign-in.rules';
import { publicRoute } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import { isActiveStaff } from '../../operations/staff/members';
import { CodeSent, SessionsEnded, SessionView, SignedOut, SignInBody, VerifySignInBody } from './contracts';
import type { WebDeps } from './deps';
import { EMAIL, SAMPLE_CODE, sessionExample, sessionLaterExample } from './examples';
import { SESSION_COOKIE, sessionCookieOptions, sessionTokenOf, signedIn, type SessionPrincipal } from './session';

const route = routeFactory<WebDeps>();
const tags = ['session'];

/** Rate-limit keys name an address by a hash: the limits' collection holds no addresses. */
const addressKey = (email: string) => `address:${createHash('sha256').update(normaliseEmail(email)).digest('hex').slice(0, 32)}`;

/** Counts the request against a limit per client IP, then one per address (the body's, before it is validated). */
const limitedBy =
  (perIp: keyof WebDeps['signInLimits'], perAddress: keyof WebDeps['signInLimits']) =>
  async ({ ctx, deps }: { ctx: Context; deps: WebDeps }): Promise<void> => {
    await deps.signInLimits[perIp].consume(ctx, `ip:${ctx.ip}`);
    const email = (ctx.request.body as { email?: unknown } | undefined)?.email;
    if (typeof email === 'string') await deps.signInLimits[perAddress].consume(ctx, addressKey(email));
  };

const SIGNED_OUT = { user: null, csrfToken: null, expiresAt: null, staff: false };

async function sessionView(deps: WebDeps, p: Pick<SessionPrincipal, 'sub' | 'email' | 'session'>): Promise<z.input<typeof SessionView>> {
  const [user, staff] = await Promise.all([deps.users.ensure(p.sub, p.email), isActiveStaff(deps, p.email)]);
  return { user: { id: p.sub, email: p.email, plan: user.plan }, csrfToken: p.session.csrfToken, expiresAt: p.session.expiresAt.toISOString(), staff };
}

export const authRoutes = [
  route({
    method: 'post',
    path: '/api/auth/sign-in',
    summary: 'Send a sign-in code to an address',
    description:
      'Signs up and signs in alike: the address gets a 6-digit code and a link, valid 10 minutes, once. The answer is the same whether or not the address has an account. Limited per address and per client IP.',
    tags,
    auth: publicRoute,
    rateLimit: limitedBy('perIp', 'perAddress'),
    body: SignInBody,
    response: CodeSent,
    status: 202,
    errors: [403, 503],
    example: { body: { email: EMAIL, locale: 'pt' }, response: { sent: true }, message: SIGN_IN_SENT },
    handler: async ({ body, deps }) => {
      await startSignIn(deps, body);
      return reply({ status: 202, message: SIGN_IN_SENT, data: { sent: true as const } });
    },
  }),

  route({
    method: 'post',
    path: '/api/auth/verify',
    summary: 'Sign in with the code from the mail',
    description:
      'A right code opens a new session (its cookie is set; any session this browser had ends) and makes the account on first use: the address is then verified. A wrong or expired code is a 401; after 5 wrong tries the code stops working.',
    tags,
    auth: publicRoute,
    rateLimit: limitedBy('verifyPerIp', 'verifyPerAddress'),
    body: VerifySignInBody,
    response: SessionView,
    errors: [401, 403, 503],
    example: { body: { email: EMAIL, code: SAMPLE_CODE }, response: sessionExample },
    handler: async ({ body, ctx, deps }) => {
      const { token, session } = await verifySignIn(deps, { ...body, previousToken: sessionTokenOf(ctx) });
      ctx.cookies.set(SESSION_COOKIE, token, sessionCookieOptions(deps));
      return await sessionView(deps, { sub: session.userId, email: session.email, session });
    },
  }),

  route({
    method: 'get',
    path: '/api/auth/session',
    summary: 'The signed-in account, and the CSRF token',
    description: 'Who is signed in in this browser: the page asks on load. Not signed in is an answer (user null), not an error.',
    tags,
    auth: publicRoute,
    response: SessionView,
    example: { response: sessionLaterExample },
    handler: async ({ ctx, deps }) => {
      ctx.set('Cache-Control', 'no-store');
      const token = sessionTokenOf(ctx);
      const session = token ? await currentSession(deps, token) : null;
      return session ? await sessionView(deps, { sub: session.userId, email: session.email, session }) : SIGNED_OUT;
    },
  }),

  route({
    method: 'post',
    path: '/api/auth/sign-out',
    summary: 'Sign out of this browser',
    tags,
    auth: signedIn,
    response: SignedOut,
    example: { response: { signedOut: true } },
    handler: async ({ auth, ctx, deps }) => {
      await signOut(deps, auth.token);
      ctx.cookies.set(SESSION_COOKIE, null, sessionCookieOptions(deps));
      return { signedOut: true as const };
    },
  }),

  route({
    method: 'post',
    path: '/api/auth/sign-out-everywhere',
    summary: 'Sign out of every browser and device',
    tags,
    auth: signedIn,
    response: SessionsEnded,
    example: { response: { sessionsEnded: 3 } },
    handler: async ({ auth, ctx, deps }) => {
      const ended = await signOutEverywhere(deps, auth.sub);
      ctx.cookies.set(SESSION_COOKIE, null, sessionCookieOptions(deps));
      return { sessionsEnded: ended };
    },
  }),
];
