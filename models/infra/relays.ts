/**
 * The MTAs trusted to say who handed them a mail (SUPPORT_MAIL_TRUSTED_RELAYS): IP addresses and
 * CIDR blocks, v4 or v6, matched with node:net's BlockList.
 */
import { BlockList, isIP } from 'node:net';

/** `10.0.0.5`, `10.0.0.0/8`, `2001:db8::25` or `2001:db8::/32`. */
function parse(entry: string): { address: string; prefix: number | null; family: 'ipv4' | 'ipv6' } | null {
  const [address = '', prefix, ...rest] = entry.split('/');
  const v = isIP(address);
  if (!v || rest.length > 0) return null;
  if (prefix === undefined) return { address, prefix: null, family: v === 4 ? 'ipv4' : 'ipv6' };
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  return bits >= 0 && bits <= (v === 4 ? 32 : 128) ? { address, prefix: bits, family: v === 4 ? 'ipv4' : 'ipv6' } : null;
}

export const validRelay = (entry: string): boolean => parse(entry) !== null;

/** Whether an address is one of `relays` (entries that do not parse are left out: config refuses them). */
export function relayMatcher(relays: readonly string[]): (address: string) => boolean {
  if (relays.length === 0) return () => false;
  const list = new BlockList();
  for (const entry of relays) {
    const r = parse(entry);
    if (!r) continue;
    if (r.prefix === null) list.addAddress(r.address, r.family);
    else list.addSubnet(r.address, r.prefix, r.family);
  }
  return (address) => {
    const v = isIP(address);
    if (!v) return false;
    // An IPv4 client seen on an IPv6 socket (::ffff:10.0.0.5) is that IPv4 address.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    return mapped ? list.check(mapped, 'ipv4') : list.check(address, v === 4 ? 'ipv4' : 'ipv6');
  };
}
