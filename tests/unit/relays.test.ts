/** The trusted relays' list (models/infra/relays.ts): addresses and CIDR blocks, v4 and v6; anything else refused by the configuration. */
import { relayMatcher, validRelay } from '../../models/infra/relays';
import { parseConfig } from '../../models/config';

describe('trusted relays', () => {
  it('matches addresses and blocks, v4 and v6, and an IPv4 client on an IPv6 socket', () => {
    const trusted = relayMatcher(['10.0.0.5', '172.20.0.0/16', '2001:db8::/32']);
    expect(['10.0.0.5', '172.20.3.4', '::ffff:172.20.9.9', '2001:db8::25'].map(trusted)).toEqual([true, true, true, true]);
    expect(['10.0.0.6', '172.21.0.1', '2001:db9::1', '', 'mx.example.org', '::ffff:8.8.8.8'].map(trusted)).toEqual([false, false, false, false, false, false]);
    expect(relayMatcher([])('10.0.0.5')).toBe(false);
  });

  it('the configuration refuses what is not an address or a block', () => {
    expect(['10.0.0.0/8', '192.0.2.1', '::1', '2001:db8::/128'].every(validRelay)).toBe(true);
    expect(['10.0.0.0/33', '10.0.0.0/8/1', 'mx.example.org', '10.0.0.0/', '2001:db8::/129', '10.0.0.0/-1'].some(validRelay)).toBe(false);
    expect(parseConfig({ SUPPORT_MAIL_TRUSTED_RELAYS: '10.0.0.5, 172.20.0.0/16' }).support.mail.inbound.trustedRelays).toEqual(['10.0.0.5', '172.20.0.0/16']);
    expect(parseConfig({}).support.mail.inbound.trustedRelays).toEqual([]);
    expect(() => parseConfig({ SUPPORT_MAIL_TRUSTED_RELAYS: '10.0.0.5,mx.example.org' })).toThrow(/SUPPORT_MAIL_TRUSTED_RELAYS/);
  });
});
