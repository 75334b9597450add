/** The polite fetcher's pure rules: the SSRF guard's URL and address checks, Retry-After, back-off, retry classes. */
import {
  addressRefusal,
  backoffMs,
  codingsToUndo,
  describeUrl,
  FetchError,
  hasZlibHeader,
  ipLiteral,
  isAllowlisted,
  parseFetchUrl,
  parseRetryAfter,
  RETRY_AFTER_CAP_MS,
  retryable,
  urlRefusal,
  visitKey,
} from '../../models/infra/polite-fetch.rules';
import { deflateRawSync, deflateSync } from 'node:zlib';

describe('addressRefusal', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['192.0.2.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    // IPv4-mapped IPv6 is judged as the IPv4 address it carries.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:a00:1', 'private'],
    // NAT64 and 6to4 carry IPv4 addresses too: not plain unicast, refused.
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::1', '6to4'],
  ])('refuses %s (%s)', (address, range) => {
    expect(addressRefusal(address, false)).toBe(range);
  });

  it('allows public unicast, IPv4 and IPv6, mapped or not', () => {
    for (const a of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(addressRefusal(a, false)).toBeNull();
  });

  it('lets allow-listed hosts use loopback and private networks, never unspecified, broadcast or multicast', () => {
    for (const a of ['127.0.0.1', '::1', '10.0.0.5', '169.254.1.1', 'fd00::1']) expect(addressRefusal(a, true)).toBeNull();
    for (const a of ['0.0.0.0', '255.255.255.255', '224.0.0.1', '::']) expect(addressRefusal(a, true)).not.toBeNull();
  });

  it('refuses what is not an address', () => {
    expect(addressRefusal('example.com', true)).toBe('not an IP address');
  });
});

describe('URL checks', () => {
  it('accepts http and https only, without credentials', () => {
    expect(urlRefusal(new URL('https://example.com/feed'))).toBeNull();
    expect(urlRefusal(new URL('http://example.com:8080/feed'))).toBeNull();
    expect(urlRefusal(new URL('file:///etc/passwd'))).toBe('scheme file: is not allowed');
    expect(urlRefusal(new URL('ftp://example.com/x'))).toBe('scheme ftp: is not allowed');
    expect(urlRefusal(new URL('gopher://example.com/x'))).toBe('scheme gopher: is not allowed');
    expect(urlRefusal(new URL('https://user:pw@example.com/'))).toBe('credentials in the URL are not allowed');
    expect(urlRefusal(new URL('https://user@example.com/'))).toBe('credentials in the URL are not allowed');
  });

  it('refuses an unparseable URL without echoing it', () => {
    expect(() => parseFetchUrl('not a url secret=abc')).toThrow(new FetchError('refused', 'refused: not a valid URL'));
  });

  it('finds IP literals, including the spellings the URL parser normalises', () => {
    expect(ipLiteral(new URL('http://127.0.0.1/'))).toBe('127.0.0.1');
    expect(ipLiteral(new URL('http://[::1]:8080/'))).toBe('::1');
    expect(ipLiteral(new URL('http://2130706433/'))).toBe('127.0.0.1');
    expect(ipLiteral(new URL('http://0x7f.1/'))).toBe('127.0.0.1');
    expect(ipLiteral(new URL('http://[::ffff:10.0.0.1]/'))).toBe('::ffff:a00:1');
    expect(ipLiteral(new URL('http://example.com/'))).toBeNull();
  });

  it('matches the allow-list by host or host:port, the default port included', () => {
    expect(isAllowlisted(new URL('http://127.0.0.1:9000/'), ['127.0.0.1'])).toBe(true);
    expect(isAllowlisted(new URL('http://127.0.0.1:9000/'), ['127.0.0.1:9000'])).toBe(true);
    expect(isAllowlisted(new URL('http://127.0.0.1:9001/'), ['127.0.0.1:9000'])).toBe(false);
    expect(isAllowlisted(new URL('http://Feeds.Local/'), ['feeds.local:80'])).toBe(true);
    expect(isAllowlisted(new URL('https://feeds.local/'), ['feeds.local:80'])).toBe(false);
    expect(isAllowlisted(new URL('http://[::1]:81/'), ['::1'])).toBe(true);
    expect(isAllowlisted(new URL('http://[::1]:81/'), ['[::1]:81'])).toBe(true);
    expect(isAllowlisted(new URL('http://127.0.0.2/'), ['127.0.0.1'])).toBe(false);
    expect(isAllowlisted(new URL('http://127.0.0.1/'), [])).toBe(false);
  });

  it('allows a range of ports and nothing beside it', () => {
    const doubles = ['127.0.0.1:20001-20015'];
    expect(isAllowlisted(new URL('http://127.0.0.1:20001/'), doubles)).toBe(true);
    expect(isAllowlisted(new URL('http://127.0.0.1:20015/feed'), doubles)).toBe(true);
    expect(isAllowlisted(new URL('http://127.0.0.1:20000/'), doubles)).toBe(false);
    expect(isAllowlisted(new URL('http://127.0.0.1:20016/'), doubles)).toBe(false);
    expect(isAllowlisted(new URL('http://127.0.0.1/'), doubles)).toBe(false);
    expect(isAllowlisted(new URL('http://localhost:20001/'), doubles)).toBe(false);
    expect(isAllowlisted(new URL('http://[::1]:81/'), ['[::1]:80-81'])).toBe(true);
    expect(isAllowlisted(new URL('http://127.0.0.1:80/'), ['127.0.0.1:90-80'])).toBe(false);
  });

  it('describes URLs without credentials or query', () => {
    expect(describeUrl('https://u:p@example.com:8443/feed.xml?token=secret#x')).toBe('https://example.com:8443/feed.xml');
    expect(describeUrl('::')).toBe('(invalid URL)');
  });

  it('identifies a visited URL without its fragment', () => {
    expect(visitKey(new URL('http://a.example/x#one'))).toBe(visitKey(new URL('http://a.example/x#two')));
    expect(visitKey(new URL('http://a.example/x?b=1'))).not.toBe(visitKey(new URL('http://a.example/x?b=2')));
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP-date, a past one as 0', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:05:00 GMT', now)).toBe(300_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('caps long waits', () => {
    expect(parseRetryAfter('999999', now)).toBe(RETRY_AFTER_CAP_MS);
    expect(parseRetryAfter('Fri, 01 Jan 2027 12:00:00 GMT', now)).toBe(RETRY_AFTER_CAP_MS);
    expect(parseRetryAfter('7200', now, 60_000)).toBe(60_000);
  });

  it('is undefined when absent or unreadable', () => {
    for (const v of [undefined, null, '', '  ', 'soon', '-5', '1.5']) expect(parseRetryAfter(v, now)).toBeUndefined();
  });
});

describe('backoffMs', () => {
  it('draws between 0 and an exponential ceiling capped at capMs', () => {
    const top = () => 0.999999;
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffMs(a, { baseMs: 100, capMs: 1_000, random: top }))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(backoffMs(3, { baseMs: 100, capMs: 1_000, random: () => 0 })).toBe(0);
    expect(backoffMs(3, { baseMs: 100, capMs: 1_000, random: () => 0.5 })).toBe(200);
  });

  it('stays finite for huge attempt numbers and defaults to Math.random', () => {
    expect(backoffMs(10_000, { baseMs: 100, capMs: 5_000, random: () => 0.5 })).toBe(2_500);
    for (let i = 0; i < 50; i += 1) {
      const ms = backoffMs(4, { baseMs: 10, capMs: 1_000 });
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(80);
    }
  });
});

describe('retryable', () => {
  it('refusals, robots and the size cap are final; timeouts, the network and retry-later are not', () => {
    expect(retryable(new FetchError('refused', 'x'))).toBe(false);
    expect(retryable(new FetchError('robots', 'x'))).toBe(false);
    expect(retryable(new FetchError('too-large', 'x'))).toBe(false);
    expect(retryable(new FetchError('timeout', 'x'))).toBe(true);
    expect(retryable(new FetchError('network', 'x'))).toBe(true);
    expect(retryable(new FetchError('retry-later', 'x', { status: 429, retryAfterMs: 1_000 }))).toBe(true);
  });

  it('HTTP statuses: 5xx and 408 again, other 4xx never', () => {
    expect(retryable(new FetchError('http', 'x', { status: 500 }))).toBe(true);
    expect(retryable(new FetchError('http', 'x', { status: 502 }))).toBe(true);
    expect(retryable(new FetchError('http', 'x', { status: 408 }))).toBe(true);
    expect(retryable(new FetchError('http', 'x', { status: 404 }))).toBe(false);
    expect(retryable(new FetchError('http', 'x', { status: 410 }))).toBe(false);
  });

  it('leaves other errors to the retry policy', () => {
    expect(retryable(new Error('lease wait ran out'))).toBe(true);
  });
});

describe('content codings', () => {
  it('undoes the last coding first and skips identity', () => {
    expect(codingsToUndo('gzip')).toEqual(['gzip']);
    expect(codingsToUndo('deflate, GZIP')).toEqual(['gzip', 'deflate']);
    expect(codingsToUndo('identity')).toEqual([]);
    expect(codingsToUndo(null)).toEqual([]);
  });

  it('tells zlib-wrapped deflate from raw deflate', () => {
    const text = Buffer.from('<rss>hello</rss>'.repeat(20));
    expect(hasZlibHeader(deflateSync(text))).toBe(true);
    expect(hasZlibHeader(deflateRawSync(text))).toBe(false);
  });
});
