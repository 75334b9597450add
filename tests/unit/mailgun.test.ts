/**
 * Mailgun's inbound webhook (issue 39): the signature rule (models/support/mailgun.ts), written as
 * the attacks it stops first (no signature, a forged one, another key's, an old or future
 * timestamp, a malformed field), then the envelope and the client read from Mailgun's Received
 * header; and the operation (operations/support/inbound-mailgun.ts) with fakes: the order of its
 * refusals, none of which stores or claims anything, the token taken once, and given back when the
 * message could not be kept.
 */
import { createHmac } from 'node:crypto';
import { AppError } from '../../models/errors';
import {
  MAILGUN_TIMESTAMP_TOLERANCE_MS,
  mailgunRecipients,
  mailgunSender,
  mailgunSignature,
  mailgunTokenKey,
  receivedClient,
  verifyMailgunSignature,
} from '../../models/support/mailgun';
import { acceptMailgunMail, type MailgunDelivery, type MailgunMailDeps } from '../../operations/support/inbound-mailgun';

const KEY = 'key-3ax6xnjp29jd6fds4gc373sgvjxteol0';
const now = new Date('2026-11-24T12:41:18Z');
const ts = (d: Date) => String(Math.floor(d.getTime() / 1000));
const token = 'c9f4a1e07b3d5f28a6e1c0b94d7f3a2e8b5c1d6f0a9e4b7c3d';
const signed = (at = now, t = token, key = KEY) => ({ timestamp: ts(at), token: t, signature: mailgunSignature(key, ts(at), t) });

describe('the signature', () => {
  it("is the hex HMAC-SHA256 of timestamp and token, joined, under the signing key (Mailgun's documented rule)", () => {
    expect(mailgunSignature(KEY, '1764150725', token)).toBe(createHmac('sha256', KEY).update(`1764150725${token}`).digest('hex'));
    expect(mailgunSignature(KEY, '1764150725', token)).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyMailgunSignature(KEY, signed(), now)).toBe('ok');
    // Mailgun's hex is lowercase; an uppercase one is the same bytes.
    expect(verifyMailgunSignature(KEY, { ...signed(), signature: signed().signature.toUpperCase() }, now)).toBe('ok');
  });

  it('refuses a delivery without its three fields, or with any of them malformed', () => {
    const s = signed();
    expect(verifyMailgunSignature(KEY, {}, now)).toBe('missing');
    expect(verifyMailgunSignature(KEY, { ...s, signature: undefined }, now)).toBe('missing');
    expect(verifyMailgunSignature(KEY, { ...s, token: '' }, now)).toBe('missing');
    expect(verifyMailgunSignature(KEY, { ...s, timestamp: undefined }, now)).toBe('missing');
    expect(verifyMailgunSignature(KEY, { ...s, timestamp: `${s.timestamp}.5` }, now)).toBe('missing');
    expect(verifyMailgunSignature(KEY, { ...s, timestamp: '-1' }, now)).toBe('missing');
    expect(verifyMailgunSignature(KEY, { ...s, signature: s.signature.slice(1) }, now)).toBe('missing');
    expect(verifyMailgunSignature(KEY, { ...s, signature: `${s.signature}00` }, now)).toBe('missing');
    expect(verifyMailgunSignature(KEY, { ...s, signature: `sha256=${s.signature}` }, now)).toBe('missing');
    expect(verifyMailgunSignature(KEY, { ...s, token: 'a b' }, now)).toBe('missing');
    expect(verifyMailgunSignature(KEY, { ...s, token: 'x'.repeat(257) }, now)).toBe('missing');
  });

  it('refuses a forged signature: another key, another token or timestamp under the same signature, one digit changed', () => {
    const s = signed();
    expect(verifyMailgunSignature(KEY, signed(now, token, 'key-of-someone-else-0000000000'), now)).toBe('bad-signature');
    expect(verifyMailgunSignature(KEY, { ...s, token: `${token.slice(0, -1)}e` }, now)).toBe('bad-signature');
    expect(verifyMailgunSignature(KEY, { ...s, timestamp: String(Number(s.timestamp) + 1) }, now)).toBe('bad-signature');
    const flipped = (s.signature[0] === '0' ? '1' : '0') + s.signature.slice(1);
    expect(verifyMailgunSignature(KEY, { ...s, signature: flipped }, now)).toBe('bad-signature');
    expect(verifyMailgunSignature(KEY, { ...s, signature: '0'.repeat(64) }, now)).toBe('bad-signature');
    // The documented rule joins them without a separator, so digits moved from the timestamp to the
    // token (or back) sign the same bytes: a new token, but a timestamp 10 times off, refused as stale.
    const split = { timestamp: s.timestamp.slice(0, -1), token: s.timestamp.slice(-1) + token, signature: s.signature };
    expect(verifyMailgunSignature(KEY, split, now)).toBe('stale');
    const joined = { timestamp: `${s.timestamp}1`, token: token.slice(1), signature: mailgunSignature(KEY, s.timestamp, `1${token.slice(1)}`) };
    expect(verifyMailgunSignature(KEY, joined, now)).toBe('stale');
  });

  it('refuses a timestamp more than 9 hours from now, either way, and only after the signature held', () => {
    const edge = MAILGUN_TIMESTAMP_TOLERANCE_MS;
    expect(verifyMailgunSignature(KEY, signed(new Date(now.getTime() - edge)), now)).toBe('ok');
    expect(verifyMailgunSignature(KEY, signed(new Date(now.getTime() + edge)), now)).toBe('ok');
    expect(verifyMailgunSignature(KEY, signed(new Date(now.getTime() - edge - 1000)), now)).toBe('stale');
    expect(verifyMailgunSignature(KEY, signed(new Date(now.getTime() + edge + 1000)), now)).toBe('stale');
    expect(verifyMailgunSignature(KEY, signed(new Date(0)), now)).toBe('stale');
    // An old timestamp with a wrong signature says nothing of the clock.
    expect(verifyMailgunSignature(KEY, { ...signed(new Date(0)), signature: '0'.repeat(64) }, now)).toBe('bad-signature');
  });

  it('keeps a used token as its SHA-256, never as itself', () => {
    expect(mailgunTokenKey(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(mailgunTokenKey(token)).not.toContain(token);
    expect(mailgunTokenKey(token)).toBe(mailgunTokenKey(token));
  });
});

describe('the envelope and the client', () => {
  it('reads the recipients comma-separated, brackets off, empty ones dropped; the sender likewise', () => {
    expect(mailgunRecipients('support@newsletter.dev')).toEqual(['support@newsletter.dev']);
    expect(mailgunRecipients(' <support+abc@newsletter.dev>, support@newsletter.dev ,, ')).toEqual(['support+abc@newsletter.dev', 'support@newsletter.dev']);
    expect(mailgunRecipients('')).toEqual([]);
    expect(mailgunSender('<renata@example.com>')).toBe('renata@example.com');
    expect(mailgunSender('')).toBe('');
    expect(mailgunSender(undefined)).toBe('');
  });

  const message = (...headers: string[]) => Buffer.from([...headers, 'From: Renata <renata@example.com>', 'Subject: oi', '', 'Received: from body [8.8.8.8] by nowhere', 'corpo'].join('\r\n'));

  it("takes the client from the topmost Received header, the one Mailgun's MX prepends", () => {
    const raw = message(
      'Received: from mail-ed1-f54.google.com (mail-ed1-f54.google.com [209.85.208.54])\r\n\tby mxa.mailgun.org with ESMTP id 6744a1d2; Tue, 24 Nov 2026 12:41:17 +0000',
      'Received: from forged.example (forged.example [203.0.113.9]) by mx.example with SMTP',
    );
    expect(receivedClient(raw)).toEqual({ address: '209.85.208.54', hostname: 'mail-ed1-f54.google.com', helo: 'mail-ed1-f54.google.com' });
    expect(receivedClient(message('Received: from [2a00:1450:4864:20::52f] (helo=mail.example.org) by mxb.mailgun.org'))).toEqual({ address: '2a00:1450:4864:20::52f', hostname: '[2a00:1450:4864:20::52f]', helo: '' });
    expect(receivedClient(message('Received: from mx.example.org (mx.example.org [IPv6:2001:db8::25]) by mxa.mailgun.org'))!.address).toBe('2001:db8::25');
  });

  it('names no client (SPF unchecked) when the topmost Received gives no public address, whatever lies below it', () => {
    expect(receivedClient(message())).toBeNull();
    expect(receivedClient(message('Received: by mxa.mailgun.org with HTTP; Tue, 24 Nov 2026 12:41:17 +0000', 'Received: from x (x [8.8.8.8]) by y'))).toBeNull();
    for (const ip of ['10.1.2.3', '172.16.0.1', '192.168.1.1', '127.0.0.1', '100.64.0.1', '169.254.1.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '999.1.1.1', '1.2.3']) {
      expect(receivedClient(message(`Received: from internal (internal [${ip}]) by mxa.mailgun.org`, 'Received: from x (x [8.8.8.8]) by y'))).toBeNull();
    }
    // An address after "by" is the receiving host's, not the client's.
    expect(receivedClient(message('Received: from unknown by mxa.mailgun.org ([34.1.2.3])'))).toBeNull();
  });

  it('reads boundedly: a huge or endless header, or a body without headers, takes no time', () => {
    const started = performance.now();
    expect(receivedClient(Buffer.from(`Received: from ${'['.repeat(500_000)}`))).toBeNull();
    expect(receivedClient(Buffer.from(`Received: from a\r\n${' ['.repeat(300_000)}\r\n\r\n`))).toBeNull();
    expect(receivedClient(Buffer.from(`X: ${'a'.repeat(1_000_000)}\r\nReceived: from a (a [8.8.8.8]) by b\r\n\r\n`))).toBeNull();
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('acceptMailgunMail', () => {
  const DESK = 'support@newsletter.dev';
  const MAX = 1_000;
  const raw = Buffer.from('Received: from mail.example.org (mail.example.org [198.51.100.7]) by mxa.mailgun.org\r\nFrom: renata@example.com\r\nSubject: oi\r\n\r\nolá\r\n');

  function fakes(options: { putFails?: boolean; recordFails?: boolean } = {}) {
    const calls: string[] = [];
    const records: Record<string, unknown>[] = [];
    const taken = new Map<string, string | null>();
    const deps: MailgunMailDeps = {
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      now: () => now,
      tokens: {
        claim: async (t) => {
          calls.push(`claim ${t}`);
          if (!taken.has(t)) return (taken.set(t, null), { state: 'claimed' as const });
          const recordId = taken.get(t);
          return recordId ? { state: 'stored' as const, recordId } : { state: 'in-flight' as const };
        },
        stored: async (t, id) => void taken.set(t, id),
        release: async (t) => void (calls.push(`release ${t}`), taken.delete(t)),
      },
      accept: {
        logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
        newId: () => 'rec-1',
        now: () => now,
        handOver: async (id) => void calls.push(`hand over ${id}`),
        inbound: {
          record: async (m) => {
            calls.push('record');
            if (options.recordFails) throw new AppError('DEPENDENCY_UNAVAILABLE', 'mongodb is unavailable, please retry later');
            records.push(m as unknown as Record<string, unknown>);
            return m as never;
          },
          remove: async () => void calls.push('remove'),
        },
        storage: {
          bucket: 'b',
          client: {
            putObject: async (_b: string, key: string) => {
              calls.push(`put ${key}`);
              if (options.putFails) throw new AppError('DEPENDENCY_UNAVAILABLE', 'minio is unavailable, please retry later');
              return {};
            },
            removeObject: async (_b: string, key: string) => void calls.push(`delete ${key}`),
          },
        } as never,
      },
    };
    return { deps, calls, records };
  }
  const delivery = (over: Partial<MailgunDelivery> = {}): MailgunDelivery => ({ ...signed(), recipient: 'support+k7q2m4xw9r3tz6bn8vcy5hpd@newsletter.dev', sender: '<renata@example.com>', mime: { chunks: [raw], bytes: raw.length, tooLarge: false }, ...over });
  const accept = (deps: MailgunMailDeps, d: MailgunDelivery) => acceptMailgunMail(deps, { delivery: d, signingKey: KEY, deskAddress: DESK, maxBytes: MAX });
  const refusal = async (p: Promise<unknown>) => {
    const err = await p.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  };

  it('stores and records a signed delivery (via mailgun, the envelope, the client from Received), then hands it over', async () => {
    const { deps, calls, records } = fakes();
    expect(await accept(deps, delivery())).toEqual({ id: 'rec-1', repeated: false });
    expect(calls).toEqual([`claim ${token}`, 'put inbound-mail/2026/11/24/rec-1.eml', 'record', 'hand over rec-1']);
    expect(records[0]).toMatchObject({
      via: 'mailgun',
      size: raw.length,
      envelope: { mailFrom: 'renata@example.com', rcptTo: ['support+k7q2m4xw9r3tz6bn8vcy5hpd@newsletter.dev'] },
      remote: { address: '198.51.100.7', hostname: 'mail.example.org', helo: 'mail.example.org' },
    });
  });

  it('refuses, in this order and with nothing claimed or stored: the signature (401), body-mime (400, 406), the recipients (400, 406)', async () => {
    const { deps, calls } = fakes();
    const cases: [Partial<MailgunDelivery>, string, RegExp][] = [
      // Unsigned comes first, whatever else is wrong.
      [{ signature: undefined, mime: undefined, recipient: 'x@evil.example' }, 'UNAUTHENTICATED', /Missing Mailgun signature/],
      [{ signature: '0'.repeat(64), mime: { chunks: [], bytes: 5_000, tooLarge: true } }, 'UNAUTHENTICATED', /Invalid Mailgun signature/],
      [signed(new Date(now.getTime() - 10 * 3_600_000)), 'UNAUTHENTICATED', /more than 9 hours/],
      [{ mime: undefined }, 'VALIDATION_FAILED', /body-mime is missing/],
      [{ mime: { chunks: [], bytes: 0, tooLarge: false } }, 'VALIDATION_FAILED', /body-mime is missing/],
      [{ mime: { chunks: [], bytes: MAX + 1, tooLarge: true }, recipient: 'x@evil.example' }, 'MESSAGE_REFUSED', /exceeds the limit of 1000 bytes/],
      [{ recipient: undefined }, 'VALIDATION_FAILED', /recipient is missing/],
      [{ recipient: ' , ' }, 'VALIDATION_FAILED', /recipient is missing/],
      [{ recipient: Array.from({ length: 51 }, (_, i) => `support+${i}@newsletter.dev`).join(',') }, 'VALIDATION_FAILED', /At most 50/],
      [{ recipient: 'support@newsletter.dev, someone@newsletter.dev' }, 'MESSAGE_REFUSED', /1 of 2 recipients/],
      [{ recipient: 'support@evil.example' }, 'MESSAGE_REFUSED', /Not for this desk/],
      [{ recipient: 'supportx@newsletter.dev' }, 'MESSAGE_REFUSED', /Not for this desk/],
    ];
    for (const [over, code, message] of cases) {
      const err = await refusal(accept(deps, delivery(over)));
      expect({ code: err.code, message: err.message }).toEqual({ code, message: expect.stringMatching(message) });
    }
    expect(calls).toEqual([]);
  });

  it('takes a token once: the same delivery again is answered as the first was (its record), nothing stored twice', async () => {
    const { deps, calls } = fakes();
    expect(await accept(deps, delivery())).toEqual({ id: 'rec-1', repeated: false });
    expect(await accept(deps, delivery())).toEqual({ id: 'rec-1', repeated: true });
    expect(calls.filter((c) => c.startsWith('put'))).toHaveLength(1);
  });

  it('the same delivery while the first is still being stored: 409, to be tried again', async () => {
    const { deps } = fakes();
    await deps.tokens.claim(token, now, 1_000);
    expect(await refusal(accept(deps, delivery()))).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/being received/) });
  });

  it('a storage or database fault is a 503 with nothing kept, and the token given back so that the retry is no replay', async () => {
    for (const fault of [{ putFails: true }, { recordFails: true }]) {
      const { deps, calls } = fakes(fault);
      const err = await refusal(accept(deps, delivery()));
      expect(err.code).toBe('DEPENDENCY_UNAVAILABLE');
      expect(calls).toContain(`release ${token}`);
      if (fault.recordFails) expect(calls).toEqual(expect.arrayContaining(['remove', 'delete inbound-mail/2026/11/24/rec-1.eml']));
      expect(calls.some((c) => c.startsWith('hand over'))).toBe(false);
    }
  });
});
