/**
 * Signing webhooks (Standard Webhooks v1): the specification's own library verifies what we sign,
 * with either secret during a rotation, and refuses a changed body, a wrong secret and a
 * timestamp outside its five minutes. The signature is also checked against an HMAC computed here
 * from the specification's text, so the library and our use of it cannot be wrong together.
 */
import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { newWebhookMessageId, newWebhookSecret, signWebhook, webhookHeaders, WEBHOOK_USER_AGENT } from '../../models/events/webhook-signing';

const body = JSON.stringify({ type: 'article.published', timestamp: '2026-11-26T22:40:00.000Z', data: { id: 'a1', title: 'Petrobras anuncia dividendos' } });

/** The library's verification, returning its error instead of throwing. */
function verifyError(secret: string, payload: string, headers: Record<string, string>): Error | null {
  try {
    new Webhook(secret).verify(payload, headers);
    return null;
  } catch (err) {
    return err as Error;
  }
}

describe('newWebhookSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes, different each time', () => {
    const a = newWebhookSecret();
    const b = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});

describe('newWebhookMessageId', () => {
  it('is msg_ and base64url, with no "." to confuse the signed content', () => {
    const id = newWebhookMessageId();
    expect(id).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(newWebhookMessageId()).not.toBe(id);
  });
});

describe('signWebhook and webhookHeaders', () => {
  it('are verified by the standardwebhooks library, which returns the body', () => {
    const secret = newWebhookSecret();
    const headers = webhookHeaders({ msgId: newWebhookMessageId(), timestamp: new Date(), body, secrets: [secret] });
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('compute the HMAC-SHA256 of id.timestamp.body with the decoded secret, as the specification says', () => {
    const secret = newWebhookSecret();
    const timestamp = new Date('2026-11-26T22:40:05.789Z');
    const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`msg_abc.${Math.floor(timestamp.getTime() / 1000)}.${body}`)
      .digest('base64');
    expect(signWebhook({ msgId: 'msg_abc', timestamp, body, secrets: [secret] })).toBe(`v1,${expected}`);
  });

  it('carry the id, whole Unix seconds with no ".", JSON and our User-Agent', () => {
    const secret = newWebhookSecret();
    const headers = webhookHeaders({ msgId: 'msg_1', timestamp: new Date('2026-11-26T22:40:05.789Z'), body, secrets: [secret] });
    expect(headers).toEqual({
      'webhook-id': 'msg_1',
      'webhook-timestamp': '1795732805',
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
    });
    expect(webhookHeaders({ msgId: 'msg_1', timestamp: new Date(), body, secrets: [secret], userAgent: 'Other/2' })['user-agent']).toBe('Other/2');
  });

  it('sign with both secrets during a rotation, and a receiver holding either verifies', () => {
    const previous = newWebhookSecret();
    const next = newWebhookSecret();
    const headers = webhookHeaders({ msgId: newWebhookMessageId(), timestamp: new Date(), body, secrets: [next, previous] });
    const parts = headers['webhook-signature'].split(' ');
    expect(parts).toHaveLength(2);
    for (const part of parts) expect(part).toMatch(/^v1,/);
    expect(verifyError(previous, body, headers)).toBeNull();
    expect(verifyError(next, body, headers)).toBeNull();
    expect(verifyError(newWebhookSecret(), body, headers)).toBeInstanceOf(WebhookVerificationError);
  });

  it('fail verification when the body was changed', () => {
    const secret = newWebhookSecret();
    const headers = webhookHeaders({ msgId: newWebhookMessageId(), timestamp: new Date(), body, secrets: [secret] });
    const tampered = body.replace('dividendos', 'prejuízo');
    expect(verifyError(secret, tampered, headers)).toMatchObject({ name: 'WebhookVerificationError', message: 'No matching signature found' });
  });

  it('fail verification with a wrong secret, or another id', () => {
    const secret = newWebhookSecret();
    const headers = webhookHeaders({ msgId: 'msg_1', timestamp: new Date(), body, secrets: [secret] });
    expect(verifyError(newWebhookSecret(), body, headers)).toMatchObject({ message: 'No matching signature found' });
    expect(verifyError(secret, body, { ...headers, 'webhook-id': 'msg_2' })).toMatchObject({ message: 'No matching signature found' });
  });

  it('fail verification when the timestamp is more than five minutes away, either way', () => {
    const secret = newWebhookSecret();
    const at = (offsetMs: number) => webhookHeaders({ msgId: 'msg_1', timestamp: new Date(Date.now() + offsetMs), body, secrets: [secret] });
    expect(verifyError(secret, body, at(-6 * 60_000))).toMatchObject({ message: 'Message timestamp too old' });
    expect(verifyError(secret, body, at(6 * 60_000))).toMatchObject({ message: 'Message timestamp too new' });
    expect(verifyError(secret, body, at(-4 * 60_000))).toBeNull();
  });

  it('refuse an id with a "." or whitespace, an invalid date and no secret', () => {
    const secret = newWebhookSecret();
    expect(() => signWebhook({ msgId: 'msg.1', timestamp: new Date(), body, secrets: [secret] })).toThrow(/no "\."/);
    expect(() => signWebhook({ msgId: 'msg 1', timestamp: new Date(), body, secrets: [secret] })).toThrow(/whitespace/);
    expect(() => signWebhook({ msgId: '', timestamp: new Date(), body, secrets: [secret] })).toThrow(/non-empty/);
    expect(() => signWebhook({ msgId: 'msg_1', timestamp: new Date(Number.NaN), body, secrets: [secret] })).toThrow(/valid date/);
    expect(() => signWebhook({ msgId: 'msg_1', timestamp: new Date(), body, secrets: [] })).toThrow(/at least one secret/);
  });
});
