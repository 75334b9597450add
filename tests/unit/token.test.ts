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
    } finally {
      server.close();
    }
  });
});
