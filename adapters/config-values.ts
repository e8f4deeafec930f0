import ipaddr from 'ipaddr.js';

/** How one environment variable is read: each reader returns its value or stops the start naming the variable. */
type Env = Record<string, string | undefined>;

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** A TCP port: an integer from 1 to 65535 (0 lets the system choose, for tests), or the start stops naming it. */
export function port(env: Env, name: string, fallback: number): number {
  const n = integer(env, name, fallback);
  if (n > 65_535) throw new Error(`${name} must be a port number from 0 to 65535, not "${env[name]}"`);
  return n;
}

/**
 * An origin-like URL (BASE_URL and its kin): `http` or `https`, a host, no userinfo, query or fragment;
 * the trailing slash is dropped. Anything else stops the start naming the variable.
 */
export function httpUrl(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash)
    throw new Error(`${name} must be an http or https URL without userinfo, query or fragment, not "${raw}"`);
  return trimSlash(raw);
}

/** One of a few words, or unset; anything else stops the start naming the variable and the words. */
export function oneOf<T extends string>(env: Env, name: string, words: readonly T[]) {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!(words as readonly string[]).includes(raw))
    throw new Error(`${name} must be one of ${words.join(', ')}, not "${raw}"`);
  return raw as T;
}

/** A SPIFFE trust domain (SPIFFE ID §2.1): lowercase letters, digits, dots, dashes and underscores. */
export function trustDomain(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^[a-z0-9._-]{1,255}$/.test(raw))
    throw new Error(`${name} must be a trust domain (lowercase letters, digits, ".", "-", "_"), not "${raw}"`);
  return raw;
}

export function integer(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, not "${raw}"`);
  return n;
}

/** A switch: unset or empty is `fallback`; otherwise exactly `true` or `false`, or the start stops naming it. */
export function boolean(env: Env, name: string, fallback = false): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'true' && raw !== 'false') throw new Error(`${name} must be true or false, not "${raw}"`);
  return raw === 'true';
}

/** TRUST_PROXY: a comma list of IP addresses or CIDR ranges; anything else stops the start naming it. */
export function trustProxy(raw: string | undefined): string[] | false {
  const entries = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const valid = entry.includes('/') ? isCidr(entry) : ipaddr.isValid(entry) && isDottedOrV6(entry);
    if (!valid)
      throw new Error(`TRUST_PROXY must be a comma list of IP addresses or CIDR ranges; "${entry}" is neither`);
  }
  return entries.length ? entries : false;
}

/** ipaddr.js takes `1.2` or `999` as IPv4 in other notations; an address here is four decimal octets or IPv6. */
const isDottedOrV6 = (text: string) => ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv6.isValid(text);

function isCidr(text: string): boolean {
  try {
    ipaddr.parseCIDR(text);
    return isDottedOrV6(text.split('/')[0]);
  } catch {
    return false;
  }
}
