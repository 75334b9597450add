/**
 * The dashboard's session (issue 26): a server-side session named by an HttpOnly, SameSite=Lax
 * cookie (Secure when the dashboard is served over HTTPS, as production requires). Requests that change something must come from the dashboard's
 * own origin (Origin, or Sec-Fetch-Site) and, once signed in, carry the session's CSRF token in
 * X-CSRF-Token: a page on another site can neither read the token nor forge the header.
 */
import type { Context } from 'koa';
import { AppError } from '../../models/errors';
import { currentSession } from '../../operations/accounts/sign-in';
import { looksLikeSessionToken, hashesMatch, SESSION_MAX_MS } from '../../models/accounts/sign-in.rules';
import type { SessionDoc } from '../../models/accounts/account.repo';
import type { AuthPolicy } from '../shared/auth';
import type { WebDeps } from './deps';

export const SESSION_COOKIE = 'nl_session';

export interface SessionPrincipal {
  /** The user (as in bearer tokens' `sub`): the access log and the per-user rate limit use it. */
  sub: string;
  email: string;
  session: SessionDoc;
  /** The cookie's value (to end this session). */
  token: string;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Secure whenever the dashboard's origin is HTTPS (production requires it, models/config.ts).
 * Behind a proxy that ends TLS, TRUST_PROXY=true lets Koa see the request as secure.
 */
export const sessionCookieOptions = (deps: Pick<WebDeps, 'webOrigin'>) => ({
  httpOnly: true,
  secure: deps.webOrigin.startsWith('https:'),
  sameSite: 'lax' as const,
  path: '/',
  overwrite: true,
  maxAge: SESSION_MAX_MS,
});

export function sessionTokenOf(ctx: Context): string | undefined {
  const value = ctx.cookies.get(SESSION_COOKIE);
  return value && looksLikeSessionToken(value) ? value : undefined;
}

/**
 * A request that changes something comes from the dashboard itself. Browsers send Origin on every
 * such fetch, and Sec-Fetch-Site; a request with neither is not from a browser page at all, and
 * has no cookie to abuse unless it was stolen, so it is refused too.
 */
export function assertSameOrigin(ctx: Context, webOrigin: string): void {
  if (SAFE.has(ctx.method)) return;
  // An HTTPS dashboard sets Secure cookies, which Koa refuses to send over plain HTTP.
  if (webOrigin.startsWith('https:') && !ctx.secure) {
    throw new AppError('FORBIDDEN', 'The dashboard is served over HTTPS: send this request over HTTPS (behind a proxy that ends TLS, the operator sets TRUST_PROXY=true)');
  }
  const origin = ctx.get('origin');
  if (origin) {
    if (origin === webOrigin) return;
    throw new AppError('FORBIDDEN', 'Cross-site request refused: this endpoint only answers the dashboard itself');
  }
  if (ctx.get('sec-fetch-site') === 'same-origin') return;
  throw new AppError('FORBIDDEN', 'Request refused: send it from the dashboard (no Origin header)');
}

/** Signed in to the dashboard, with the CSRF token on requests that change something. */
export const signedIn: AuthPolicy<SessionPrincipal> = {
  scheme: 'sessionCookie',
  describe: 'dashboard session (cookie), with X-CSRF-Token on requests that change something',
  async authenticate(ctx, _services, rawDeps) {
    const deps = rawDeps as WebDeps;
    const token = sessionTokenOf(ctx);
    if (!token) throw new AppError('UNAUTHENTICATED', 'Not signed in: sign in to the dashboard first');
    const session = await currentSession(deps, token);
    if (!session) throw new AppError('UNAUTHENTICATED', 'Your session has ended: sign in again');
    if (!SAFE.has(ctx.method)) {
      const sent = ctx.get('x-csrf-token');
      const a = Buffer.from(sent).toString('hex');
      const b = Buffer.from(session.csrfToken).toString('hex');
      if (!sent || !hashesMatch(a, b)) throw new AppError('FORBIDDEN', 'Missing or wrong X-CSRF-Token: reload the dashboard');
    }
    return { sub: session.userId, email: session.email, session, token };
  },
};
