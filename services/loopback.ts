/** Loopback host names of a URL (`new URL(…).hostname`): RFC 8252 §7.3's addresses and `localhost`. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

export const isLoopbackHost = (hostname: string): boolean => LOOPBACK_HOSTS.has(hostname);
