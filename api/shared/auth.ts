/**
 * Authentication policies routes declare (`auth: bearer('support.agent')`). Each carries what the
 * OpenAPI document needs to describe it. Services add their own (API keys in the news service).
 */
import type { Context } from 'koa';
import { AppError } from '../../models/errors';
import { hasPermission, type Principal, type TokenVerifier } from '../../models/auth/token.rules';

export interface AuthPolicy<P = unknown> {
  /** OpenAPI security scheme name (components.securitySchemes) or undefined when public. */
  scheme: 'bearerAuth' | 'apiKeyAuth' | undefined;
  /** Human-readable requirement for the docs ("permission support.agent"). */
  describe: string;
  /** Authentication also counts a rate limit (429 is documented on the route). */
  rateLimited?: boolean;
  /** A provider's signature over the body (webhooks): limited per sender IP at the webhook rate. */
  signed?: boolean;
  /** `deps` are the service's dependencies (API keys live in the news service's database). */
  authenticate(ctx: Context, services: AuthServices, deps: unknown): Promise<P>;
}

export interface AuthServices {
  verifyToken: TokenVerifier;
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

/** A valid JWT, holding every listed permission (any one of them when `anyOf` is used). */
export function bearer(...permissions: string[]): AuthPolicy<Principal> {
  return {
    scheme: 'bearerAuth',
    describe: permissions.length ? `bearer token with permission ${permissions.join(', ')}` : 'bearer token',
    async authenticate(ctx, services) {
      const principal = await services.verifyToken(bearerToken(ctx));
      const missing = permissions.find((p) => !hasPermission(principal, p));
      if (missing) throw new AppError('FORBIDDEN', `Missing permission: ${missing}`);
      return principal;
    },
  };
}
