/**
 * Authentication policies routes declare (`auth: bearer('support.agent')`). Each carries what the
 * OpenAPI document needs to describe it. Services add their own (API keys in the news service).
 */
import type { Context } from 'koa';
import { AppError } from '../../models/errors';
import { hasPermission, type Principal, type TokenVerifier } from '../../models/auth/token.rules';
import type { FailureLimiter } from './rate-limit';

export interface AuthPolicy<P = unknown> {
  /**
   * OpenAPI security scheme name (components.securitySchemes) or undefined when public. A bearer
   * token holding an administrator's permission is `adminBearer` (the same JWT, described apart).
   */
  scheme: 'bearerAuth' | 'adminBearer' | 'apiKeyAuth' | 'sessionCookie' | 'stripeSignature' | 'metaSignature' | 'metaVerifyToken' | undefined;
  /** Statuses a failed authentication answers (documented on the route); 401 and 403 unless said. */
  failures?: number[];
  /** Human-readable requirement for the docs ("permission support.agent"). */
  describe: string;
  /** Authentication also counts a rate limit (429 is documented on the route). */
  rateLimited?: boolean;
  /** A provider's signature over the body (webhooks): limited per sender IP at the webhook rate. */
  signed?: boolean;
  /**
   * The credential a provider sends (Stripe's and Meta's signatures, Meta's verify token): the
   * document shows it as the required parameter it is, on its operation alone, instead of a
   * security scheme every reader would be offered.
   */
  providerCredential?: { in: 'header' | 'query'; name: string; description: string; example: string };
  /**
   * The permissions a bearer token must hold (`bearer(…)`; empty: any valid token). The staff
   * console serves such an operation under the staff session with the same permissions
   * (api/web/console.ts).
   */
  permissions?: readonly string[];
  /** `deps` are the service's dependencies (API keys live in the news service's database). */
  authenticate(ctx: Context, services: AuthServices, deps: unknown): Promise<P>;
}

export interface AuthServices {
  verifyToken: TokenVerifier;
  /** Failed authentications per client IP (createApp's; none where a test builds a route alone). */
  failures?: FailureLimiter;
}

export const publicRoute: AuthPolicy<undefined> = {
  scheme: undefined,
  describe: 'public',
  authenticate: async () => undefined,
};

export function bearerToken(ctx: Context): string {
  const header = ctx.get('authorization');
  if (!header) throw new AppError('UNAUTHENTICATED', 'Missing bearer token: send Authorization: Bearer <token>');
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match?.[1]) throw new AppError('UNAUTHENTICATED', 'Authorization header must be "Bearer <token>"');
  return match[1];
}

/** An administrator's permission: `<area>.admin` (news.admin, quiz.admin). */
export const isAdminPermission = (permission: string): boolean => permission.endsWith('.admin');

/**
 * A valid JWT, holding every listed permission (any one of them when `anyOf` is used). With an
 * administrator's permission it is documented under its own security scheme, `adminBearer` (the
 * same JWT), so that the administrative operations stand apart from the readers' `bearerAuth`.
 */
export function bearer(...permissions: string[]): AuthPolicy<Principal> {
  return {
    scheme: permissions.some(isAdminPermission) ? 'adminBearer' : 'bearerAuth',
    describe: permissions.length ? `bearer token with permission ${permissions.join(', ')}` : 'bearer token',
    permissions,
    async authenticate(ctx, services) {
      const principal = await services.verifyToken(bearerToken(ctx));
      const missing = permissions.find((p) => !hasPermission(principal, p));
      if (missing) throw new AppError('FORBIDDEN', `Missing permission: ${missing}`);
      return principal;
    },
  };
}
