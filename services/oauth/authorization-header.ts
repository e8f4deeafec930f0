/**
 * RFC 6750 §2.1 and RFC 9449 §7.1: the scheme and token of an `Authorization` header. The scheme is
 * matched without regard to case (RFC 9110 §11.1). Undefined when the header is absent or malformed.
 */
export function accessTokenFromHeader(
  header: string | undefined,
): { scheme: 'Bearer' | 'DPoP'; token: string } | undefined {
  if (!header) return undefined;
  const m = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
  if (!m) return undefined;
  return { scheme: m[1].toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: m[2] };
}

/** The token of an `Authorization: Bearer` header, or undefined (another scheme, or none). */
export const bearerToken = (header: string | undefined): string | undefined => {
  const presented = accessTokenFromHeader(header);
  return presented?.scheme === 'Bearer' ? presented.token : undefined;
};
