import { SignJWT } from 'jose';
import { createTokenVerifier, hasPermission, signToken } from '../../models/auth/token.rules';

const secret = 'a'.repeat(40);
const verify = createTokenVerifier({ secret, jwksUrl: undefined, issuer: undefined, audience: undefined });

describe('bearer tokens', () => {
  it('verifies a token signed by the CLI and returns its claims', async () => {
    const token = await signToken(secret, { sub: 'u1', email: 'u1@example.com', permissions: ['ai.view'] });
    await expect(verify(token)).resolves.toEqual({ sub: 'u1', email: 'u1@example.com', permissions: ['ai.view'] });
  });

  it('rejects a token signed with another secret', async () => {
    const token = await signToken('b'.repeat(40), { sub: 'u1' });
    await expect(verify(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('rejects an expired token', async () => {
    const token = await new SignJWT({ permissions: [] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('u1')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(secret));
    await expect(verify(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: 'Invalid or expired token' });
  });

  it('rejects tokens whose algorithm is not HS256 ("none")', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    const body = Buffer.from(JSON.stringify({ sub: 'u1', permissions: ['*'] })).toString('base64url');
    await expect(verify(`${header}.${body}.`)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('rejects a token without a subject', async () => {
    const token = await new SignJWT({ permissions: [] }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(secret));
    await expect(verify(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  describe('forged lifetimes', () => {
    const now = () => Math.floor(Date.now() / 1000);
    const forge = () => new SignJWT({ permissions: ['*'] }).setProtectedHeader({ alg: 'HS256' }).setSubject('u1');
    const key = new TextEncoder().encode(secret);

    it('refuses a token without exp, however well signed', async () => {
      await expect(verify(await forge().setIssuedAt().sign(key))).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    });

    it('refuses a token that lives longer than the maximum (24 h by default), with or without iat', async () => {
      await expect(verify(await forge().setIssuedAt().setExpirationTime('25h').sign(key))).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
        message: 'Token lifetime exceeds the maximum of 86400 seconds',
      });
      // Issued long ago, so that only a few minutes are left: its lifetime is still 30 days.
      await expect(verify(await forge().setIssuedAt(now() - 30 * 86_400 + 300).setExpirationTime(now() + 300).sign(key))).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      // No iat: judged by what is left.
      await expect(verify(await forge().setExpirationTime('48h').sign(key))).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      await expect(verify(await forge().setExpirationTime('23h').sign(key))).resolves.toMatchObject({ sub: 'u1' });
      await expect(verify(await forge().setIssuedAt().setExpirationTime('24h').sign(key))).resolves.toMatchObject({ sub: 'u1' });
    });

    it('refuses a token issued in the future, whose lifetime would otherwise be counted from then', async () => {
      // iat a day ahead and exp a day after it: 24 h "lifetime", valid for two days from now.
      await expect(verify(await forge().setIssuedAt(now() + 86_400).setExpirationTime(now() + 2 * 86_400).sign(key))).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
        message: 'Invalid or expired token',
      });
      // A clock a few seconds ahead of ours is not a forgery.
      await expect(verify(await forge().setIssuedAt(now() + 30).setExpirationTime(now() + 3600).sign(key))).resolves.toMatchObject({ sub: 'u1' });
    });

    it('applies a configured maximum', async () => {
      const strict = createTokenVerifier({ secret, jwksUrl: undefined, issuer: undefined, audience: undefined, maxLifetimeSeconds: 600 });
      await expect(strict(await forge().setIssuedAt().setExpirationTime('11m').sign(key))).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      await expect(strict(await forge().setIssuedAt().setExpirationTime('9m').sign(key))).resolves.toMatchObject({ sub: 'u1' });
    });

    it('refuses a token not valid yet (nbf in the future)', async () => {
      await expect(verify(await forge().setIssuedAt().setNotBefore(now() + 600).setExpirationTime('1h').sign(key))).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      await expect(verify(await forge().setIssuedAt().setNotBefore(now() - 5).setExpirationTime('1h').sign(key))).resolves.toMatchObject({ sub: 'u1' });
    });
  });

  it('checks permissions, with * granting all', () => {
    expect(hasPermission({ sub: 'a', permissions: ['ai.view'] }, 'ai.view')).toBe(true);
    expect(hasPermission({ sub: 'a', permissions: ['ai.view'] }, 'ai.edit')).toBe(false);
    expect(hasPermission({ sub: 'a', permissions: ['*'] }, 'support.agent')).toBe(true);
  });
});

describe('bearer tokens verified with a JWKS URL', () => {
  it('accepts a token signed by a key the JWKS publishes and rejects one signed by another', async () => {
    const { createServer } = await import('node:http');
    const { exportJWK, generateKeyPair } = await import('jose');
    const published = await generateKeyPair('RS256');
    const other = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(published.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    const server = createServer((_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as { port: number };
    try {
      const verifyJwks = createTokenVerifier({
        secret: undefined,
        jwksUrl: `http://127.0.0.1:${port}/.well-known/jwks.json`,
        issuer: 'https://id.example.com',
        audience: undefined,
      });
      const sign = (key: Parameters<SignJWT["sign"]>[0], iss = 'https://id.example.com') =>
        new SignJWT({ permissions: ['ai.view'], email: 'x@example.com' })
          .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
          .setSubject('idp-user')
          .setIssuer(iss)
          .setExpirationTime('5m')
          .sign(key);
      await expect(verifyJwks(await sign(published.privateKey))).resolves.toEqual({
        sub: 'idp-user',
        email: 'x@example.com',
        permissions: ['ai.view'],
      });
      await expect(verifyJwks(await sign(other.privateKey))).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      await expect(verifyJwks(await sign(published.privateKey, 'https://evil.example.com'))).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      // The identity provider sets lifetimes (a week here is accepted), but every token must expire.
      const signed = (expires?: string) => {
        const jwt = new SignJWT({ permissions: [] }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setSubject('idp-user').setIssuer('https://id.example.com').setIssuedAt();
        return (expires ? jwt.setExpirationTime(expires) : jwt).sign(published.privateKey);
      };
      await expect(verifyJwks(await signed('7d'))).resolves.toMatchObject({ sub: 'idp-user' });
      await expect(verifyJwks(await signed())).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      // Nor may it claim to be issued in the future.
      const future = await new SignJWT({ permissions: [] })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setSubject('idp-user')
        .setIssuer('https://id.example.com')
        .setIssuedAt(Math.floor(Date.now() / 1000) + 3600)
        .setExpirationTime('2h')
        .sign(published.privateKey);
      await expect(verifyJwks(future)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    } finally {
      server.close();
    }
  });
});
