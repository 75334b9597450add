/** The desk's Message-IDs and reply tokens (models/support/mail-ids.ts; issue 39). */
import { MAC_CHARS, messageIdOf, newReplyToken, ourMessageId, REPLY_TOKEN } from '../../models/support/mail-ids';

/** The secret the fixtures' Message-IDs were minted with (tests/fixtures/mail/README.md). */
const FIXTURE_SECRET = 'fixture-secret-issue-39-not-for-production';
const SECRET = 'another-secret-of-at-least-32-characters!';
const DOMAIN = 'localhost';

describe('messageIdOf', () => {
  it('mints <t{ticket}.m{message}.{mac}@{domain}> with a 20-character lowercase base32 mac', () => {
    const id = messageIdOf(SECRET, DOMAIN, 123, 45);
    expect(id).toMatch(/^<t123\.m45\.[a-z2-7]{20}@localhost>$/);
    expect(MAC_CHARS).toBe(20);
    // Deterministic: a retried send has the same id.
    expect(messageIdOf(SECRET, DOMAIN, 123, 45)).toBe(id);
  });

  it('gives the acknowledgement message 0, and a different mac to every ticket, message and secret', () => {
    const ack = messageIdOf(SECRET, DOMAIN, 123, 0);
    expect(ack).toMatch(/^<t123\.m0\.[a-z2-7]{20}@localhost>$/);
    const macs = new Set([ack, messageIdOf(SECRET, DOMAIN, 123, 45), messageIdOf(SECRET, DOMAIN, 124, 45), messageIdOf(SECRET, DOMAIN, 12, 345), messageIdOf(FIXTURE_SECRET, DOMAIN, 123, 45)].map((id) => id.split('.')[2]));
    expect(macs.size).toBe(5);
  });

  it('lowercases the domain', () => {
    expect(messageIdOf(SECRET, 'Support.Example.COM', 1, 2)).toMatch(/@support\.example\.com>$/);
  });

  it('refuses a short secret, a bad domain and ids that are not whole numbers', () => {
    expect(() => messageIdOf('too-short', DOMAIN, 1, 1)).toThrow(/32/);
    expect(() => messageIdOf(SECRET, 'evil>\r\nBcc: x@evil', 1, 1)).toThrow(/domain/);
    expect(() => messageIdOf(SECRET, DOMAIN, 0, 1)).toThrow(/ticket/);
    expect(() => messageIdOf(SECRET, DOMAIN, 1.5, 1)).toThrow(/ticket/);
    expect(() => messageIdOf(SECRET, DOMAIN, 1, -1)).toThrow(/message/);
  });

  it('mints the ids the fixtures carry (README.md documents them)', () => {
    expect(messageIdOf(FIXTURE_SECRET, DOMAIN, 123, 0)).toBe('<t123.m0.swkzgm6p2sis7vcyswjv@localhost>');
    expect(messageIdOf(FIXTURE_SECRET, DOMAIN, 123, 45)).toBe('<t123.m45.mtz66qpaqrvsjpb5l2re@localhost>');
    expect(messageIdOf(FIXTURE_SECRET, DOMAIN, 77, 0)).toBe('<t77.m0.5l3n2ffxcxamp5gikbxp@localhost>');
    expect(messageIdOf(FIXTURE_SECRET, DOMAIN, 77, 12)).toBe('<t77.m12.epxknhiobqqjple45qlg@localhost>');
    expect(messageIdOf(FIXTURE_SECRET, DOMAIN, 91, 0)).toBe('<t91.m0.qjzg3glajuuf4grbesmc@localhost>');
  });
});

describe('ourMessageId', () => {
  const id = messageIdOf(SECRET, DOMAIN, 123, 45);

  it('reads back the ticket and message of an id it minted', () => {
    expect(ourMessageId(SECRET, DOMAIN, id)).toEqual({ ticketId: 123, messageId: 45 });
    expect(ourMessageId(SECRET, DOMAIN, messageIdOf(SECRET, DOMAIN, 9, 0))).toEqual({ ticketId: 9, messageId: 0 });
  });

  it('accepts it without angle brackets, with spaces around, and in any case', () => {
    expect(ourMessageId(SECRET, DOMAIN, id.slice(1, -1))).toEqual({ ticketId: 123, messageId: 45 });
    expect(ourMessageId(SECRET, DOMAIN, `  ${id}\r\n`)).toEqual({ ticketId: 123, messageId: 45 });
    expect(ourMessageId(SECRET, DOMAIN, id.toUpperCase())).toEqual({ ticketId: 123, messageId: 45 });
    expect(ourMessageId(SECRET, 'LocalHost', id)).toEqual({ ticketId: 123, messageId: 45 });
  });

  it('rejects a guessed id: the right shape with a made-up mac', () => {
    expect(ourMessageId(SECRET, DOMAIN, '<t123.m45.aaaaaaaaaaaaaaaaaaaa@localhost>')).toBeNull();
    expect(ourMessageId(SECRET, DOMAIN, '<t123.m45.abcdefghijklmnopqrst@localhost>')).toBeNull();
  });

  it('rejects an altered id: another ticket or message under the same mac, or one character of the mac changed', () => {
    const mac = id.split('.')[2]!.split('@')[0]!;
    expect(ourMessageId(SECRET, DOMAIN, `<t124.m45.${mac}@localhost>`)).toBeNull();
    expect(ourMessageId(SECRET, DOMAIN, `<t123.m46.${mac}@localhost>`)).toBeNull();
    const flipped = (mac[0] === 'a' ? 'b' : 'a') + mac.slice(1);
    expect(ourMessageId(SECRET, DOMAIN, `<t123.m45.${flipped}@localhost>`)).toBeNull();
  });

  it('rejects another secret, another domain, and anything not of the shape', () => {
    expect(ourMessageId(FIXTURE_SECRET, DOMAIN, id)).toBeNull();
    expect(ourMessageId(SECRET, 'example.com', id)).toBeNull();
    expect(ourMessageId(SECRET, DOMAIN, id.replace('@localhost', '@localhost.evil'))).toBeNull();
    expect(ourMessageId(SECRET, DOMAIN, `<${id.slice(1, -1)}`)).toBeNull(); // one bracket
    expect(ourMessageId(SECRET, DOMAIN, id.replace('.m45.', '.m045.'))).toBeNull(); // leading zero
    expect(ourMessageId(SECRET, DOMAIN, id.replace(/\.([a-z2-7]{20})@/, '.$1a@'))).toBeNull(); // 21 characters
    expect(ourMessageId(SECRET, DOMAIN, id.replace(/\.([a-z2-7]{19})[a-z2-7]@/, '.$1@'))).toBeNull(); // 19 characters
    expect(ourMessageId(SECRET, DOMAIN, '<CAFk2x7QpN3vYt8mR5wJ0hZ=eXb9uLs4dKqT1aG6cV2nM8yW3rA@mail.gmail.com>')).toBeNull();
    expect(ourMessageId(SECRET, DOMAIN, '')).toBeNull();
    expect(ourMessageId(SECRET, DOMAIN, `${id} ${'x'.repeat(1_000)}`)).toBeNull();
    expect(ourMessageId(SECRET, DOMAIN, undefined as unknown as string)).toBeNull();
  });

  it('refuses to verify with a short secret', () => {
    expect(() => ourMessageId('short', DOMAIN, id)).toThrow(/32/);
  });
});

describe('newReplyToken', () => {
  it('is 24 lowercase base32 characters, and new every time', () => {
    const tokens = Array.from({ length: 1_000 }, () => newReplyToken());
    for (const t of tokens) expect(t).toMatch(REPLY_TOKEN);
    expect(tokens[0]).toHaveLength(24);
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('REPLY_TOKEN refuses other shapes', () => {
    expect(REPLY_TOKEN.test('q4wbt7zk2mh5ra3xnyv6cdpe')).toBe(true);
    expect(REPLY_TOKEN.test('q4wbt7zk2mh5ra3xnyv6cdp')).toBe(false);
    expect(REPLY_TOKEN.test('q4wbt7zk2mh5ra3xnyv6cdpe1')).toBe(false);
    expect(REPLY_TOKEN.test('Q4WBT7ZK2MH5RA3XNYV6CDPE')).toBe(false);
    expect(REPLY_TOKEN.test('q4wbt7zk2mh5ra3xnyv6cdp1')).toBe(false); // 1 is not base32
  });
});
