import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { destinationNotAllowed } from '../../services/outbound.ts';

/**
 * Where outbound requests may go (decisions section 10): host names, addresses and URLs, checked before
 * and while dialling. The guarded client (guarded-http.ts) applies them.
 */

/** Resolves a host name to its addresses (A and AAAA). Injected in tests. */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** How to reach a server on this machine, named in every refusal of one (docs/flows.md). */
const LOOPBACK_HINT =
  'a server on this machine is reached only when Portico runs with OUTBOUND_ALLOW_LOOPBACK=true (a test hook, off by default)';

const isLocalhostName = (host: string) => {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
};

/** Host names that never leave the machine or the site (decisions section 10); localhost passes the test hook. */
function checkHostName(host: string, allowLoopback = false): void {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (isLocalhostName(name)) {
    if (allowLoopback) return;
    throw destinationNotAllowed(`localhost names are refused: ${LOOPBACK_HINT}`);
  }
  if (name.endsWith('.local')) throw destinationNotAllowed('.local names are refused');
  if (name.endsWith('.internal')) throw destinationNotAllowed('.internal names are refused');
}

/** Verdicts per address text (the same few addresses come back on every dial); bounded. */
const verdicts = new Map<string, string | null>();
const MAX_VERDICTS = 1024;

/** Why an address is refused, or null: only ipaddr.js's `unicast` range passes (IPv4-mapped IPv6 judged as the IPv4 address). */
function addressRefusal(address: string): string | null {
  const known = verdicts.get(address);
  if (known !== undefined) return known;
  let verdict: string | null;
  try {
    const parsed = ipaddr.process(address);
    const range = parsed.range();
    verdict = range === 'unicast' ? null : `${parsed.toString()} is in the ${range} range`;
  } catch {
    verdict = `${address} is not an IP address`;
  }
  if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
  verdicts.set(address, verdict);
  return verdict;
}

/** Whether `address` is a loopback address (127.0.0.0/8, ::1, or IPv4-mapped loopback). */
function isLoopback(address: string): boolean {
  try {
    return ipaddr.process(address.replace(/^\[|\]$/g, '')).range() === 'loopback';
  } catch {
    return false;
  }
}

export function checkAddress(address: string, allowLoopback = false): void {
  if (allowLoopback && isLoopback(address)) return;
  const refusal = addressRefusal(address);
  if (refusal) throw destinationNotAllowed(isLoopback(address) ? `${refusal}: ${LOOPBACK_HINT}` : refusal);
}

/** The rules of an external URL that need no DNS: https, no userinfo, an acceptable host name or IP literal. */
export function checkExternalUrl(url: URL, allowLoopback = false): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = /^[\d.]+$/.test(host) || host.includes(':');
  // The test hook lets plain http reach a loopback address literal or a localhost name, and nothing else.
  const local = literal ? isLoopback(host) : isLocalhostName(host);
  const loopbackHttp = allowLoopback && url.protocol === 'http:' && local;
  if (url.protocol !== 'https:' && !loopbackHttp)
    throw destinationNotAllowed(
      local ? `external destinations must use https; ${LOOPBACK_HINT}` : 'external destinations must use https',
    );
  if (url.username || url.password) throw destinationNotAllowed('URLs with userinfo are refused');
  // IP literals are judged as addresses; anything else is a name (parsing every name as an IP costs).
  if (literal) return checkAddress(host, allowLoopback);
  checkHostName(host, allowLoopback);
}

/**
 * Resolves `host` (overrides first) and vets every answer: one refused address refuses the host, so
 * a name that answers both a public and a private address never connects.
 */
export async function vettedAddresses(
  host: string,
  resolver: Resolver,
  overrides?: ReadonlyMap<string, string[]>,
  allowLoopback = false,
): Promise<string[]> {
  const name = host.toLowerCase();
  let addresses: string[];
  try {
    addresses = overrides?.get(name) ?? (await resolver(name));
  } catch {
    throw destinationNotAllowed(`${name} does not resolve`);
  }
  if (addresses.length === 0) throw destinationNotAllowed(`${name} does not resolve`);
  for (const address of addresses) checkAddress(address, allowLoopback);
  return addresses;
}

/**
 * The lookup undici's connector calls when it dials: it resolves and vets in the same step and hands
 * the connection exactly the vetted addresses, so DNS rebinding between a check and the dial cannot
 * switch the destination.
 */
export function checkedLookup(resolver: Resolver, overrides?: ReadonlyMap<string, string[]>, allowLoopback = false) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    vettedAddresses(hostname, resolver, overrides, allowLoopback).then(
      (addresses) => {
        const entries = addresses.map((address) => ({
          address,
          family: ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4,
        }));
        if (options.all) callback(null, entries);
        else callback(null, entries[0].address, entries[0].family);
      },
      (error: Error) => callback(error, ''),
    );
  };
}
