/**
 * RFC 9110 §11.6.1: a `WWW-Authenticate` challenge, the scheme then its auth-params as quoted strings.
 * The one builder for every challenge Portico sends: Basic at the token endpoint (RFC 6749 §5.2),
 * Bearer (RFC 6750 §3) and DPoP (RFC 9449 §7.1) at resources, with RFC 9728's `resource_metadata`.
 */
export function challenge(scheme: 'Basic' | 'Bearer' | 'DPoP', params: Array<[string, string | undefined]>): string {
  const present = params.filter((p): p is [string, string] => p[1] !== undefined);
  // A quoted-string may not hold a bare double quote; descriptions are ours, so a swap is enough.
  return `${scheme} ${present.map(([name, value]) => `${name}="${value.replace(/"/g, "'")}"`).join(', ')}`;
}

/** The auth-params of a `WWW-Authenticate` challenge a server sent, by name (a Map: the names are the server's). */
export function challengeParams(header: string | null | undefined): Map<string, string> {
  return new Map([...(header ?? '').matchAll(/([A-Za-z_]+)="([^"]*)"/g)].map((m) => [m[1].toLowerCase(), m[2]]));
}
