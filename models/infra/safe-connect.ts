/**
 * Connecting only where the SSRF guard allows, for every adapter that sends requests to a URL that
 * someone else chose (the polite fetcher's news sites, the webhook sender's endpoints). A host is
 * resolved once, every address it has is checked (a single private address refuses the whole
 * host, since the connection could go to any of them), and the connection is made through a
 * lookup that answers only with those checked addresses: a second DNS answer, as a rebinding
 * attack would give, is never asked for.
 */
import { type LookupAddress, promises as dns } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { addressRefusal, describeUrl, FetchError, ipLiteral, isAllowlisted } from './polite-fetch.rules';

/** Resolves a host name to every address it has (tests substitute their own). */
export type Lookup = (hostname: string) => Promise<LookupAddress[]>;

/** The operating system's resolver, asked for every address of the host. */
export const systemLookup: Lookup = (hostname) => dns.lookup(hostname, { all: true });

export interface AddressCheckOptions {
  /** Hosts (or host:port) that may be on loopback or private networks: development doubles only. */
  allowHosts: readonly string[];
  lookup?: Lookup;
  signal: AbortSignal;
}

/** Waits for `work`, or rejects with the signal's reason when it aborts first. */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err as Error);
      },
    );
  });
}

/**
 * Every address the URL's host has, each checked. Throws a FetchError: `refused` naming the first
 * address that may not be reached, or `network` when the host does not resolve. An abort of the
 * signal rejects with the signal's own reason, so the caller can tell its timeout from DNS.
 */
export async function checkedAddresses(url: URL, options: AddressCheckOptions): Promise<LookupAddress[]> {
  const { signal } = options;
  const lookup = options.lookup ?? systemLookup;
  const allowlisted = isAllowlisted(url, options.allowHosts);
  const literal = ipLiteral(url);
  let addresses: LookupAddress[];
  if (literal) {
    addresses = [{ address: literal, family: literal.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await abortable(lookup(url.hostname), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      throw new FetchError('network', `could not resolve ${url.hostname}`, { cause: err });
    }
    if (addresses.length === 0) throw new FetchError('network', `could not resolve ${url.hostname}`);
  }
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, allowlisted);
    if (refusal) throw new FetchError('refused', `refused ${describeUrl(url)}: ${literal ? 'address' : 'resolves to'} ${address} (${refusal})`);
  }
  return addresses;
}

/**
 * A lookup that answers only with the addresses already checked, so the connection cannot go
 * anywhere else. Node asks for all addresses (happy eyeballs) or one, of a family or any.
 */
export function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    const fitting = family ? addresses.filter((a) => a.family === family) : addresses;
    if (fitting.length === 0) return callback(Object.assign(new Error('no checked address of that family'), { code: 'ENOTFOUND' }), '', 0);
    if (options.all) return (callback as (err: null, addresses: LookupAddress[]) => void)(null, fitting);
    callback(null, fitting[0]!.address, fitting[0]!.family);
  };
}

/**
 * An undici agent whose only way to a host is the checked addresses. No pooled connection may
 * outlive the check it was made under: the polite fetcher makes one per request and destroys it;
 * the webhook sender keeps one per origin and address set, used only by deliveries whose own check
 * found those same addresses.
 */
export function pinnedAgent(addresses: LookupAddress[]): Agent {
  return new Agent({ connect: { lookup: pinnedLookup(addresses) } });
}
