/**
 * Bearer tokens (JWT). Claims: sub, email, permissions (array of strings). Signed HS256 with
 * JWT_SECRET by the operator CLI and the platform; verified with that secret or a JWKS URL.
 *
 * Every token must expire: no `exp` is refused, as is a `nbf` still in the future (jose). A token
 * signed with the shared secret may live at most `maxLifetimeSeconds` (JWT_MAX_LIFETIME_HOURS, 24 h):
 * its lifetime is `exp − iat`, or `exp − now` when it says nothing of when it was issued. Under a
 * JWKS the identity provider sets lifetimes; its tokens need `exp` all the same. Under either, a
 * token issued in the future (`iat` later than now, past {@link CLOCK_SKEW_SECONDS}) is refused: a
 * lifetime counted from a future `iat` would let a token outlive the maximum.
 */
import { webcrypto } from 'node:crypto';
import { SignJWT, createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import { AppError } from '../errors';

export const TokenClaims = z.object({
  // Bounded, so that what is stored under the caller's name (a message's sender, an agent) is too.
  sub: z.string().min(1).max(255),
  email: z.email().max(254).optional(),
  permissions: z.array(z.string()).default([]),
});

export type Principal = z.infer<typeof TokenClaims>;

export interface TokenVerifierOptions {
  secret: string | undefined;
  jwksUrl: string | undefined;
  issuer: string | undefined;
  audience: string | undefined;
  /** Longest lifetime accepted for tokens signed with the shared secret (seconds; default 24 h). */
  maxLifetimeSeconds?: number;
}

export const DEFAULT_MAX_LIFETIME_SECONDS = 24 * 3600;
/** How far a token's `iat` may lie ahead of our clock (clocks of two machines differ a little). */
export const CLOCK_SKEW_SECONDS = 60;

export type TokenVerifier = (token: string) => Promise<Principal>;

export function createTokenVerifier(o: TokenVerifierOptions): TokenVerifier {
  let key: Promise<webcrypto.CryptoKey> | JWTVerifyGetKey;
  let algorithms: string[] | undefined;
  if (o.jwksUrl) {
    key = createRemoteJWKSet(new URL(o.jwksUrl));
  } else if (o.secret) {
    // Imported once: jose imports raw key bytes again on every verification (137 → 86 µs per
    // token with the CryptoKey, docs/benchmarks.md).
    key = webcrypto.subtle.importKey('raw', new TextEncoder().encode(o.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    algorithms = ['HS256'];
  } else {
    throw new Error('JWT verification needs JWT_SECRET or JWT_JWKS_URL');
  }
  const maxLifetime = o.jwksUrl ? undefined : (o.maxLifetimeSeconds ?? DEFAULT_MAX_LIFETIME_SECONDS);
  return async (token) => {
    let payload: JWTPayload;
    try {
      const verified = await jwtVerify(token, typeof key === 'function' ? key : await key, {
        ...(algorithms ? { algorithms } : {}),
        ...(o.issuer ? { issuer: o.issuer } : {}),
        ...(o.audience ? { audience: o.audience } : {}),
        requiredClaims: ['exp'],
      });
      payload = verified.payload;
    } catch {
      throw new AppError('UNAUTHENTICATED', 'Invalid or expired token');
    }
    const now = Math.floor(Date.now() / 1000);
    if (typeof payload.iat === 'number' && payload.iat > now + CLOCK_SKEW_SECONDS) throw new AppError('UNAUTHENTICATED', 'Invalid or expired token');
    if (maxLifetime !== undefined) {
      const issued = typeof payload.iat === 'number' ? payload.iat : now;
      if (payload.exp! - issued > maxLifetime) throw new AppError('UNAUTHENTICATED', `Token lifetime exceeds the maximum of ${maxLifetime} seconds`);
    }
    const claims = TokenClaims.safeParse(payload);
    if (!claims.success) throw new AppError('UNAUTHENTICATED', 'Token claims are invalid');
    return claims.data;
  };
}

export interface SignTokenInput {
  sub: string;
  email?: string | undefined;
  permissions?: string[];
  expiresIn?: string;
  issuer?: string | undefined;
  audience?: string | undefined;
}

export async function signToken(secret: string, input: SignTokenInput): Promise<string> {
  const jwt = new SignJWT({
    ...(input.email ? { email: input.email } : {}),
    permissions: input.permissions ?? [],
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(input.sub)
    .setIssuedAt()
    .setExpirationTime(input.expiresIn ?? '12h');
  if (input.issuer) jwt.setIssuer(input.issuer);
  if (input.audience) jwt.setAudience(input.audience);
  return await jwt.sign(new TextEncoder().encode(secret));
}

/** True when the principal holds the permission. `*` grants everything. */
/**
 * Who an action is recorded as: the e-mail, else the token's subject. A staff member reads as its
 * address in every record (a ticket's history, a correction, a hidden article), whether it came
 * with a bearer token or through the staff console's session.
 */
export const actorOf = (p: Pick<Principal, 'sub' | 'email'>): string => p.email ?? p.sub;

export function hasPermission(principal: Principal, permission: string): boolean {
  return principal.permissions.includes(permission) || principal.permissions.includes('*');
}
