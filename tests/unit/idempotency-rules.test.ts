/**
 * Idempotency-Key, the pure parts (models/infra/idempotency.rules.ts): the header's syntax, whose
 * request a key names, the fingerprint that tells a repeat from another request, and the ids
 * derived from a request's key.
 */
import { z } from 'zod';
import { AppError } from '../../models/errors';
import {
  callerOf,
  canonicalJson,
  idempotencyRecordId,
  parseIdempotencyKey,
  requestFingerprint,
  requestKeyOf,
  uuidFromRequestKey,
} from '../../models/infra/idempotency.rules';

describe('the Idempotency-Key header', () => {
  it.each([
    ['a UUID', '8e5b0f8e-3f1c-4d0a-9a57-3c0b1f4c2d10'],
    ['one character', 'x'],
    ['255 characters', 'k'.repeat(255)],
    ['every visible ASCII character', '!"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~'],
  ])('takes %s', (_label, key) => {
    expect(parseIdempotencyKey(key)).toBe(key);
  });

  it('is optional: no header, no key', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });

  it.each([
    ['an empty value', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'two words'],
    ['a tab', 'a\tb'],
    ['a control character', 'a\u0001b'],
    ['a non-ASCII letter', 'chavé'],
    ['the header sent twice (joined by the parser)', ['a', 'b']],
  ])('refuses %s with 400 VALIDATION_FAILED naming the header', (_label, value) => {
    let thrown: unknown;
    try {
      parseIdempotencyKey(value);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'header.Idempotency-Key' }] });
  });
});

describe('the request fingerprint', () => {
  const base = { params: { id: 7 }, query: {}, body: { conteudo: 'Olá', ticketIds: [1, 2] } };

  it('is the same for the same request, whatever the order of its fields', () => {
    expect(requestFingerprint(base)).toBe(requestFingerprint({ body: { ticketIds: [1, 2], conteudo: 'Olá' }, query: {}, params: { id: 7 } }));
    expect(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 0 }], c: undefined } })).toBe('{"a":{"d":[2,{"x":0,"y":1}]},"b":1}');
  });

  it('reads dates as their ISO text (validated bodies hold Date objects)', () => {
    expect(requestFingerprint({ body: { from: new Date('2026-11-20T10:00:00Z') } })).toBe(requestFingerprint({ body: { from: new Date('2026-11-20T10:00:00.000Z') } }));
    expect(requestFingerprint({ body: { from: new Date('2026-11-20T10:00:00Z') } })).not.toBe(requestFingerprint({ body: { from: new Date('2026-11-20T10:00:01Z') } }));
  });

  it('differs when the body, the path parameters or a streamed body\'s media type differ', () => {
    const fp = requestFingerprint(base);
    expect(requestFingerprint({ ...base, body: { ...base.body, conteudo: 'Olá!' } })).not.toBe(fp);
    expect(requestFingerprint({ ...base, body: { ...base.body, ticketIds: [2, 1] } })).not.toBe(fp);
    expect(requestFingerprint({ ...base, params: { id: 8 } })).not.toBe(fp);
    expect(requestFingerprint({ ...base, mediaType: 'application/x-ndjson' })).not.toBe(fp);
  });
});

describe('whose request a key names', () => {
  const scope = { caller: callerOf({ sub: 'agent-1' }), method: 'post', path: '/support/:id/mensagens' };

  it('is the caller on every principal (its sub), or anyone on a public route', () => {
    expect(callerOf({ sub: 'agent-1', permissions: [] })).toBe('sub:agent-1');
    expect(callerOf({ sub: 'user-9', keyId: 'k', plan: 'pro' })).toBe('sub:user-9');
    expect(callerOf(undefined)).toBe('public');
    expect(callerOf({ sub: '' })).toBe('public');
  });

  it('is one caller\'s key on one operation: another caller, method or route is another record', () => {
    const id = idempotencyRecordId(scope, 'k1');
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(idempotencyRecordId({ ...scope, method: 'POST' }, 'k1')).toBe(id);
    expect(idempotencyRecordId({ ...scope, caller: callerOf({ sub: 'agent-2' }) }, 'k1')).not.toBe(id);
    expect(idempotencyRecordId({ ...scope, path: '/support' }, 'k1')).not.toBe(id);
    expect(idempotencyRecordId(scope, 'k2')).not.toBe(id);
    expect(id).not.toContain('k1');
  });

  it('gives the operation a requestKey bound to the record and the fingerprint', () => {
    const id = idempotencyRecordId(scope, 'k1');
    expect(requestKeyOf(id, 'fp-a')).toBe(requestKeyOf(id, 'fp-a'));
    expect(requestKeyOf(id, 'fp-a')).not.toBe(requestKeyOf(id, 'fp-b'));
  });

  it('derives the same valid UUID from the same requestKey, another for another kind or key', () => {
    const id = uuidFromRequestKey('rk-1', 'bulk-operation');
    expect(z.uuid().safeParse(id).success).toBe(true);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidFromRequestKey('rk-1', 'bulk-operation')).toBe(id);
    expect(uuidFromRequestKey('rk-1', 'news-import')).not.toBe(id);
    expect(uuidFromRequestKey('rk-2', 'bulk-operation')).not.toBe(id);
  });
});
