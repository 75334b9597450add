/**
 * The Web Push double is only worth trusting if its browser half reads what the RFCs say a
 * browser reads: its decryptor opens RFC 8291's own worked example (Appendix A), its VAPID check
 * accepts a token made as RFC 8292 says and refuses each way of getting one wrong, and its push
 * service half answers the statuses of RFC 8030 for a missing TTL, an oversized body, an unknown
 * or unsubscribed subscription and a scripted fault.
 */
import { createECDH, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { checkVapid, decryptPushPayload, makeSelfSignedCertificate, pushDoubleControl, startPushDouble, type PushDouble } from '../doubles/push-double';

const b64u = (text: string) => Buffer.from(text, 'base64url');

// RFC 8291, Appendix A: every value as the RFC prints it (base64url).
const RFC8291 = {
  plaintext: 'When I grow up, I want to be a watermelon',
  plaintextB64: 'V2hlbiBJIGdyb3cgdXAsIEkgd2FudCB0byBiZSBhIHdhdGVybWVsb24',
  asPublic: 'BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8',
  asPrivate: 'yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw',
  uaPublic: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
  uaPrivate: 'q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94',
  salt: 'DGv6ra1nlYgDCS1FRnbzlw',
  auth: 'BTBZMqHH6r4Tts7J_aSIgg',
  message:
    'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
};

describe('the decryptor (RFC 8291 Appendix A)', () => {
  const keys = { privateKey: b64u(RFC8291.uaPrivate), auth: b64u(RFC8291.auth) };

  it('holds the vector together: each private key gives its public key, and the header carries the salt and the sender key', () => {
    const ua = createECDH('prime256v1');
    ua.setPrivateKey(b64u(RFC8291.uaPrivate));
    expect(ua.getPublicKey().toString('base64url')).toBe(RFC8291.uaPublic);
    const as = createECDH('prime256v1');
    as.setPrivateKey(b64u(RFC8291.asPrivate));
    expect(as.getPublicKey().toString('base64url')).toBe(RFC8291.asPublic);
    const message = b64u(RFC8291.message);
    expect(message.subarray(0, 16).toString('base64url')).toBe(RFC8291.salt);
    expect(message.readUInt32BE(16)).toBe(4096);
    expect(message.subarray(21, 86).toString('base64url')).toBe(RFC8291.asPublic);
    expect(b64u(RFC8291.plaintextB64).toString('utf8')).toBe(RFC8291.plaintext);
  });

  it('reads the RFC message back to its plaintext', () => {
    expect(decryptPushPayload(b64u(RFC8291.message), keys).toString('utf8')).toBe(RFC8291.plaintext);
  });

  it('refuses an altered byte, another auth secret and a truncated body', () => {
    const altered = b64u(RFC8291.message);
    altered[altered.length - 20]! ^= 1;
    expect(() => decryptPushPayload(altered, keys)).toThrow(/authenticate/);
    expect(() => decryptPushPayload(b64u(RFC8291.message), { ...keys, auth: Buffer.alloc(16) })).toThrow(/authenticate/);
    expect(() => decryptPushPayload(b64u(RFC8291.message).subarray(0, 80), keys)).toThrow(/no record/);
  });
});

/** A VAPID token signed with node:crypto as RFC 8292 says (ES256 over header.claims). */
function vapidHeader(privateKey: KeyObject, publicRaw: Buffer, claims: Record<string, unknown>, alg = 'ES256'): string {
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${enc({ typ: 'JWT', alg })}.${enc(claims)}`;
  const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `vapid t=${input}.${signature.toString('base64url')}, k=${publicRaw.toString('base64url')}`;
}

function p256KeyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const raw = Buffer.concat([Buffer.from([4]), b64u(jwk.x!), b64u(jwk.y!)]);
  return { privateKey, raw };
}

describe('the VAPID check (RFC 8292)', () => {
  const audience = 'https://127.0.0.1:4443';
  const now = 1_800_000_000;
  const { privateKey, raw } = p256KeyPair();
  const good = { aud: audience, exp: now + 12 * 3600, sub: 'mailto:push@example.com' };

  it('accepts a token for this origin, signed by k, expiring within a day, with a contact', () => {
    expect(checkVapid(vapidHeader(privateKey, raw, good), { audience, nowSeconds: now })).toEqual({ ok: true, subject: 'mailto:push@example.com', publicKey: raw.toString('base64url') });
    expect(checkVapid(vapidHeader(privateKey, raw, { ...good, sub: 'https://example.com/contact' }), { audience, nowSeconds: now }).ok).toBe(true);
  });

  it.each([
    ['another audience', { ...good, aud: 'https://fcm.googleapis.com' }, /audience/],
    ['an expired token', { ...good, exp: now - 1 }, /expired/],
    ['a token for more than 24 hours', { ...good, exp: now + 24 * 3600 + 1 }, /24 hours/],
    ['no expiry', { aud: audience, sub: good.sub }, /no expiry/],
    ['a contact that is neither mailto: nor https:', { ...good, sub: 'http://example.com' }, /mailto/],
  ])('refuses %s with 401', (_name, claims, reason) => {
    const check = checkVapid(vapidHeader(privateKey, raw, claims), { audience, nowSeconds: now });
    expect(check).toMatchObject({ ok: false, status: 401 });
    expect(!check.ok && check.reason).toMatch(reason);
  });

  it('refuses a token signed by a key other than k, another algorithm, and a missing or other scheme', () => {
    const other = p256KeyPair();
    expect(checkVapid(vapidHeader(other.privateKey, raw, good), { audience, nowSeconds: now })).toMatchObject({ ok: false, status: 401, reason: expect.stringMatching(/not signed by k/) });
    expect(checkVapid(vapidHeader(privateKey, raw, good, 'ES384'), { audience, nowSeconds: now })).toMatchObject({ ok: false, status: 401, reason: expect.stringMatching(/ES384/) });
    expect(checkVapid(undefined, { audience, nowSeconds: now })).toMatchObject({ ok: false, status: 401 });
    expect(checkVapid('Bearer abc', { audience, nowSeconds: now })).toMatchObject({ ok: false, status: 401 });
    expect(checkVapid(`vapid t=a.b.c, k=${Buffer.alloc(65, 1).toString('base64url')}`, { audience, nowSeconds: now })).toMatchObject({ ok: false, status: 401 });
  });

  it('refuses another application server key on a restricted subscription with 403', () => {
    const other = p256KeyPair();
    expect(checkVapid(vapidHeader(privateKey, raw, good), { audience, nowSeconds: now, expectedKey: other.raw.toString('base64url') })).toMatchObject({ ok: false, status: 403 });
    expect(checkVapid(vapidHeader(privateKey, raw, good), { audience, nowSeconds: now, expectedKey: raw.toString('base64url') }).ok).toBe(true);
  });
});

describe('the push service (RFC 8030) over HTTPS', () => {
  let certDir: string;
  let double: PushDouble;
  let control: ReturnType<typeof pushDoubleControl>;
  let ca: string;
  const server = p256KeyPair();

  beforeAll(async () => {
    certDir = mkdtempSync(path.join(os.tmpdir(), 'push-double-test-'));
    double = await startPushDouble(0, { certDir });
    control = pushDoubleControl(double.url, double.caFile);
    ca = readFileSync(double.caFile, 'utf8');
  });
  afterAll(async () => {
    await control.close();
    await double.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  /** A push as a sender makes it, with a valid VAPID header unless the headers say otherwise. */
  const push = (endpoint: string, body: Buffer, headers: Record<string, string | undefined> = {}) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const url = new URL(endpoint);
      const all: Record<string, string> = {
        TTL: '60',
        'Content-Encoding': 'aes128gcm',
        'Content-Length': String(body.length),
        Authorization: vapidHeader(server.privateKey, server.raw, { aud: url.origin, exp: Math.floor(Date.now() / 1000) + 3600, sub: 'mailto:ops@example.com' }),
      };
      for (const [k, v] of Object.entries(headers)) {
        if (v === undefined) delete all[k];
        else all[k] = v;
      }
      const req = request(url, { method: 'POST', ca, headers: all }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });

  it('keeps its certificate for a restart in the same directory, so clients that read it still trust it', () => {
    expect(double.caFile).toBe(path.join(certDir, 'push-double.crt'));
    expect(readFileSync(makeSelfSignedCertificate(certDir).certFile, 'utf8')).toBe(ca);
  });

  it('hands out a subscription as a browser does: an https endpoint on itself and base64url keys', async () => {
    const sub = await control.subscribe();
    expect(sub.endpoint).toBe(`${double.url}/push/${sub.id}`);
    expect(b64u(sub.keys.p256dh)).toHaveLength(65);
    expect(b64u(sub.keys.auth)).toHaveLength(16);
    expect(sub.expirationTime).toBeNull();
  });

  it('takes a push without a payload (201 with a Location) and keeps its headers', async () => {
    const sub = await control.subscribe();
    const res = await push(sub.endpoint, Buffer.alloc(0), { 'Content-Encoding': undefined, Urgency: 'high', Topic: 'article-1' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toMatch(/^\/message\/[\w-]+$/);
    expect(await control.messages(sub.id)).toEqual([expect.objectContaining({ text: '', ttl: 60, urgency: 'high', topic: 'article-1', vapid: { subject: 'mailto:ops@example.com', publicKey: server.raw.toString('base64url') } })]);
  });

  it('requires TTL (400), refuses more than 4096 bytes (413), a wrong encoding (400) and a bad token (401)', async () => {
    const sub = await control.subscribe();
    expect((await push(sub.endpoint, Buffer.alloc(0), { TTL: undefined })).status).toBe(400);
    expect((await push(sub.endpoint, Buffer.alloc(4097, 1))).status).toBe(413);
    expect((await push(sub.endpoint, Buffer.alloc(100, 1), { 'Content-Encoding': 'aesgcm' })).status).toBe(400);
    expect((await push(sub.endpoint, Buffer.alloc(100, 1))).body).toMatch(/does not decrypt/);
    expect((await push(sub.endpoint, Buffer.alloc(0), { Authorization: undefined })).status).toBe(401);
    expect(await control.messages(sub.id)).toEqual([]);
  });

  it('answers 404 for an unknown subscription and 410 for ever once unsubscribed', async () => {
    expect((await push(`${double.url}/push/nobody`, Buffer.alloc(0))).status).toBe(404);
    const sub = await control.subscribe();
    await control.unsubscribe(sub.id);
    expect((await push(sub.endpoint, Buffer.alloc(0))).status).toBe(410);
    expect((await push(sub.endpoint, Buffer.alloc(0))).status).toBe(410);
  });

  it('answers each scripted fault once, in order, then takes pushes again', async () => {
    const sub = await control.subscribe();
    await control.faults(sub.id, [{ status: 429, retryAfter: '2' }, { status: 500 }]);
    const first = await push(sub.endpoint, Buffer.alloc(0));
    expect(first.status).toBe(429);
    expect(first.headers['retry-after']).toBe('2');
    expect((await push(sub.endpoint, Buffer.alloc(0))).status).toBe(500);
    expect((await push(sub.endpoint, Buffer.alloc(0))).status).toBe(201);
    await control.faults(sub.id, [{ reset: true }]);
    await expect(push(sub.endpoint, Buffer.alloc(0))).rejects.toThrow(/socket hang up|ECONNRESET/);
  });

  it('keeps a restricted subscription to its own application server key (403 for another)', async () => {
    const other = p256KeyPair();
    const sub = await control.subscribe(other.raw.toString('base64url'));
    expect((await push(sub.endpoint, Buffer.alloc(0))).status).toBe(403);
  });
});
