import { decodeJwt, decodeProtectedHeader } from 'jose';
import { accessTokenFromHeader } from '../oauth/authorization-header.ts';

/**
 * A token met in an exchange, kept readable without being replayable: its header and payload, the
 * signature removed (and saying so), an SD-JWT's disclosures as [name, value] (salts dropped).
 */
export interface FoundToken {
  /** Where it was: a response member's name (`access_token`), else its place (`request.body.proofs.jwt.0`). */
  name: string;
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  signature: 'removed';
  disclosures?: unknown[][];
}

/** Response members whose token is named by the member alone (what the run page and diffs have always used). */
const TOKEN_FIELDS = ['access_token', 'id_token', 'identity_assertion', 'logout_token', 'svid', 'request_object'];
const MAX_TOKENS = 24;
const MAX_DEPTH = 8;

function decodeJws(value: string): Pick<FoundToken, 'header' | 'payload'> | undefined {
  if (value.split('.').length !== 3) return undefined;
  try {
    return {
      header: decodeProtectedHeader(value) as Record<string, unknown>,
      payload: decodeJwt(value) as Record<string, unknown>,
    };
  } catch {
    return undefined; // not a JWS with a JSON payload: left as it is
  }
}

/** An SD-JWT's disclosures, each [claim name, value] (array element disclosures: [value]); the salt is dropped. */
function disclosuresOf(parts: string[]): unknown[][] {
  const out: unknown[][] = [];
  for (const part of parts) {
    try {
      const decoded = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
      if (Array.isArray(decoded) && (decoded.length === 2 || decoded.length === 3)) out.push(decoded.slice(1));
    } catch {
      // not a disclosure
    }
  }
  return out;
}

class Finder {
  readonly found: FoundToken[] = [];

  /** A compact JWS, an SD-JWT (issuer JWT, disclosures, KB-JWT), or a JSON text holding some. */
  text(value: string, name: string, depth: number): void {
    if (this.found.length >= MAX_TOKENS) return;
    const token = accessTokenFromHeader(value)?.token ?? value;
    if (token.includes('~')) {
      const parts = token.split('~');
      const issuer = decodeJws(parts[0]!);
      if (issuer)
        this.found.push({ name, ...issuer, signature: 'removed', disclosures: disclosuresOf(parts.slice(1, -1)) });
      const keyBinding = decodeJws(parts.at(-1)!);
      if (issuer && keyBinding) this.found.push({ name: `${name}.kb_jwt`, ...keyBinding, signature: 'removed' });
      if (issuer) return;
    }
    const jws = decodeJws(token);
    if (jws) return void this.found.push({ name, ...jws, signature: 'removed' });
    if (/^\s*[[{]/.test(value)) {
      try {
        this.value(JSON.parse(value), name, depth + 1);
      } catch {
        // ordinary text
      }
    }
  }

  value(value: unknown, name: string, depth: number): void {
    if (depth > MAX_DEPTH || this.found.length >= MAX_TOKENS) return;
    if (typeof value === 'string') return this.text(value, name, depth);
    if (value && typeof value === 'object')
      for (const [key, child] of Object.entries(value)) this.value(child, `${name}.${key}`, depth + 1);
  }
}

/**
 * Every JWT of an exchange, decoded: the response's token members by their names first (in that order),
 * then tokens anywhere else in the request headers and body and the response body, by their place.
 */
export function findTokens(exchange: {
  request: { headers: Record<string, string>; body?: unknown };
  response: { body?: unknown };
}): FoundToken[] {
  const finder = new Finder();
  const response = exchange.response.body;
  const members = response && typeof response === 'object' && !Array.isArray(response) ? response : undefined;
  for (const field of TOKEN_FIELDS) {
    const value = (members as Record<string, unknown> | undefined)?.[field];
    const jws = typeof value === 'string' ? decodeJws(value) : undefined;
    if (jws) finder.found.push({ name: field, ...jws, signature: 'removed' });
  }
  for (const header of ['authorization', 'dpop'])
    if (exchange.request.headers[header])
      finder.text(exchange.request.headers[header]!, `request.headers.${header}`, 0);
  finder.value(exchange.request.body, 'request.body', 0);
  if (members) {
    for (const [key, child] of Object.entries(members))
      if (!TOKEN_FIELDS.includes(key)) finder.value(child, `response.body.${key}`, 1);
  } else if (typeof response === 'string') finder.text(response, 'response.body', 0);
  return finder.found;
}
