/**
 * safe-connect on its own, with a fake resolver: every address of a host is checked (one private
 * address refuses the host), allow-listed hosts may be on loopback, a timeout during resolution
 * is the caller's abort and not a DNS failure, and the pinned lookup answers only with the checked
 * addresses, in the forms Node asks for. The fetcher's and the sender's tests cover the same steps
 * through real connections.
 */
import type { LookupAddress } from 'node:dns';
import { FetchError } from '../../models/infra/polite-fetch.rules';
import { checkedAddresses, pinnedLookup, type Lookup } from '../../models/infra/safe-connect';

const resolvesTo =
  (...addresses: string[]): Lookup =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

const live = () => new AbortController().signal;

describe('checkedAddresses', () => {
  it('returns every address of a public host', async () => {
    const addresses = await checkedAddresses(new URL('https://hooks.customer.example/x'), { allowHosts: [], lookup: resolvesTo('93.184.216.34', '2606:2800:220:1::1'), signal: live() });
    expect(addresses.map((a) => a.address)).toEqual(['93.184.216.34', '2606:2800:220:1::1']);
  });

  it('refuses the whole host when any address is private, naming it', async () => {
    const err = await checkedAddresses(new URL('https://mixed.example/x'), { allowHosts: [], lookup: resolvesTo('93.184.216.34', '172.16.0.9'), signal: live() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect(err).toMatchObject({ code: 'refused', message: 'refused https://mixed.example/x: resolves to 172.16.0.9 (private)' });
  });

  it('lets an allow-listed host be on loopback, and checks a literal without resolving', async () => {
    const lookup = jest.fn(resolvesTo('127.0.0.1'));
    expect(await checkedAddresses(new URL('http://receiver.test:4000/'), { allowHosts: ['receiver.test'], lookup, signal: live() })).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await checkedAddresses(new URL('http://[::1]:4000/'), { allowHosts: ['::1'], lookup, signal: live() })).toEqual([{ address: '::1', family: 6 }]);
    expect(lookup).toHaveBeenCalledTimes(1);
    await expect(checkedAddresses(new URL('http://[::1]:4000/'), { allowHosts: [], lookup, signal: live() })).rejects.toMatchObject({ code: 'refused', message: 'refused http://[::1]:4000/: address ::1 (loopback)' });
  });

  it('reports a name that does not resolve, or resolves to nothing, as a network failure', async () => {
    const failing: Lookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
    };
    await expect(checkedAddresses(new URL('https://nowhere.example/'), { allowHosts: [], lookup: failing, signal: live() })).rejects.toMatchObject({ code: 'network', message: 'could not resolve nowhere.example' });
    await expect(checkedAddresses(new URL('https://empty.example/'), { allowHosts: [], lookup: resolvesTo(), signal: live() })).rejects.toMatchObject({ code: 'network', message: 'could not resolve empty.example' });
  });

  it('rejects with the signal’s reason when it aborts during resolution', async () => {
    const never: Lookup = () => new Promise<LookupAddress[]>(() => undefined);
    const signal = AbortSignal.timeout(20);
    const err = await checkedAddresses(new URL('https://slow-dns.example/'), { allowHosts: [], lookup: never, signal }).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(FetchError);
    expect(err).toMatchObject({ name: 'TimeoutError' });
  });
});

describe('pinnedLookup', () => {
  const addresses: LookupAddress[] = [
    { address: '93.184.216.34', family: 4 },
    { address: '2606:2800:220:1::1', family: 6 },
  ];

  /** Calls the lookup as Node's net.connect would, and returns what it answered. */
  function ask(options: { family?: number | 'IPv4' | 'IPv6'; all?: boolean }): Promise<{ err: NodeJS.ErrnoException | null; answer: unknown }> {
    return new Promise((resolve) => {
      pinnedLookup(addresses)('anything.example', options as never, ((err: NodeJS.ErrnoException | null, address: unknown, family?: number) =>
        resolve({ err, answer: options.all ? address : { address, family } })) as never);
    });
  }

  it('answers with the checked addresses only, whatever name is asked', async () => {
    expect(await ask({ all: true })).toEqual({ err: null, answer: addresses });
    expect(await ask({})).toEqual({ err: null, answer: { address: '93.184.216.34', family: 4 } });
  });

  it('answers by family, as a number or a name', async () => {
    expect(await ask({ family: 6 })).toEqual({ err: null, answer: { address: '2606:2800:220:1::1', family: 6 } });
    expect(await ask({ family: 'IPv4', all: true })).toEqual({ err: null, answer: [addresses[0]] });
  });

  it('fails with ENOTFOUND when no checked address is of the family asked', async () => {
    const onlyV4 = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      pinnedLookup([addresses[0]!])('anything.example', { family: 6 } as never, ((err: NodeJS.ErrnoException | null) => resolve(err)) as never);
    });
    expect(onlyV4).toMatchObject({ code: 'ENOTFOUND' });
  });
});
