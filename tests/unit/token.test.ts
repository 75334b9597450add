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
