/**
 * A web origin as a browser serializes it (`https://host[:port]`): what the Digital Credentials API
 * reports and what `expected_origins` lists (OpenID4VP 1.0 Appendix A.2). Only http(s): the schemes
 * the specification forbids (ftp, javascript, data, ws, wss) never are one.
 */
export function isWebOrigin(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.origin === value && (url.protocol === 'https:' || url.protocol === 'http:');
}
