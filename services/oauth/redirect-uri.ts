/**
 * Whether `uri` is one of the client's registered redirect URIs: the same string, or (RFC 8252 §7.3)
 * a loopback IP literal over http that differs from a registered loopback one only in its port,
 * since a native app listens on whatever port the system gives it.
 */
export function isRegisteredRedirectUri(registered: readonly string[], uri: string): boolean {
  if (registered.includes(uri)) return true;
  const presented = loopbackWithoutPort(uri);
  return presented !== undefined && registered.some((r) => loopbackWithoutPort(r) === presented);
}

const LOOPBACK_LITERALS = new Set(['127.0.0.1', '[::1]']);

/** The URI with its port dropped, when it is http to a loopback IP literal; otherwise undefined. */
function loopbackWithoutPort(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || !LOOPBACK_LITERALS.has(url.hostname)) return undefined;
  url.port = '';
  return url.href;
}
