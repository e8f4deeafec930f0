import { X509Certificate } from 'node:crypto';
import { x509Hash } from '../credentials/x509/chain.ts';
import { validateX5c } from '../credentials/x509/x5c.ts';
import {
  compactVerify,
  createLocalJWKSet,
  decodeProtectedHeader,
  EmbeddedJWK,
  type JWK,
  type JWTHeaderParameters,
} from 'jose';
import { oauthError } from '../errors.ts';
import { MAX_NESTING, withinNesting } from '../untrusted/depth.ts';
import { CLAIM_MEANINGS, TIME_CLAIMS, TOKEN_KINDS } from './claim-meanings.ts';
import { describeTime } from './time.ts';
import { explainEvents } from '../ssf/event-meanings.ts';

interface DecodedClaim {
  name: string;
  value: unknown;
  meaning: string;
  reference: string;
  date?: string;
  relative?: string;
}

export interface JwtDecoding {
  format: 'jwt';
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /**
   * `verified` means: verified with a key we trust (ours, or the JWKS the caller supplied). A token
   * that verifies only with the key in its own `jwk` header is `self_signed_valid`, never `verified`.
   */
  signature: { verified: boolean; self_signed_valid?: boolean; key_source: string; detail: string };
  /** What the token is, when its `typ` says so. */
  kind?: { typ: string; kind: string; reference: string };
  claims: DecodedClaim[];
  warnings: string[];
}

export interface KnownIssuerKeys {
  /** A public key of our own issuers by `kid`, imported once, with the name of its key set. */
  byKid(kid: unknown, alg: string): Promise<{ set: string; key: CryptoKey | Uint8Array } | undefined>;
  /** The key set of one of our issuers, when `iss` names it. */
  keySetOf(iss: unknown): string | undefined;
  /** CA certificates (PEM) of this origin an `x5c` chain may lead to (the verifier's CA, the IACA). */
  trustAnchorsPem?: () => string[];
  /** Epoch seconds, for certificate validity. */
  nowS?: number;
}

const b64json = (part: string): Record<string, unknown> => {
  const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
  if (!withinNesting(value)) throw new NestingError();
  return value as Record<string, unknown>;
};

class NestingError extends Error {}

const invalidToken = (detail: string) => oauthError('invalid_token:undecodable', `Not a decodable JWT: ${detail}`);

/** Splits and parses a compact JWS without verifying it. */
export function parseCompactJws(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const parts = token.trim().split('.');
  if (parts.length === 5)
    throw invalidToken('this is an encrypted JWT (JWE); its payload cannot be read without the key');
  if (parts.length !== 3) throw invalidToken('a compact JWS has three base64url parts separated by dots');
  if (!parts.slice(0, 2).every((p) => /^[A-Za-z0-9_-]+$/.test(p)) || !/^[A-Za-z0-9_-]*$/.test(parts[2]))
    throw invalidToken('parts must be base64url');
  try {
    return { header: b64json(parts[0]), payload: b64json(parts[1]) };
  } catch (error) {
    if (error instanceof NestingError)
      throw invalidToken(`header and payload must not nest deeper than ${MAX_NESTING} levels`);
    throw invalidToken('header and payload must be base64url-encoded JSON objects');
  }
}

/**
 * A token whose `iss` names one of this origin's issuers verifies with that issuer's keys and no
 * others: neither a key in its own header nor a JWKS the caller supplies can vouch for our issuers.
 */
async function verifyAsOurIssuer(
  token: string,
  header: Record<string, unknown>,
  set: string,
  known: KnownIssuerKeys,
): Promise<JwtDecoding['signature']> {
  const source = `portico ${set} keys`;
  const ours = await known.byKid(header.kid, String(header.alg ?? ''));
  if (!ours || ours.set !== set) {
    return {
      verified: false,
      key_source: source,
      detail: `iss names this origin's ${set} issuer, but the token is not signed by one of that issuer's keys: it is forged`,
    };
  }
  try {
    await compactVerify(token, ours.key);
    return {
      verified: true,
      key_source: source,
      detail: `Signature verified with this origin's ${set} key ${String(header.kid)}`,
    };
  } catch {
    return {
      verified: false,
      key_source: source,
      detail: `The signature does NOT verify with this origin's ${set} key ${String(header.kid)}: the token was altered`,
    };
  }
}

async function verify(
  token: string,
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  jwks: { keys: JWK[] } | undefined,
  known: KnownIssuerKeys,
): Promise<JwtDecoding['signature']> {
  const alg = String(header.alg ?? '');
  if (alg === 'none') return { verified: false, key_source: 'none', detail: 'alg "none": the token is unsigned' };
  if (alg.startsWith('HS'))
    return {
      verified: false,
      key_source: 'none',
      detail: 'HMAC tokens need the shared secret, which is never sent here',
    };
  const ourIssuer = known.keySetOf(payload.iss);
  if (ourIssuer) return verifyAsOurIssuer(token, header, ourIssuer, known);
  try {
    if (jwks) {
      await compactVerify(token, createLocalJWKSet(jwks));
      return {
        verified: true,
        key_source: 'supplied jwks',
        detail: 'Signature verified with a key from the JWKS you supplied',
      };
    }
    const kid = header.kid;
    const ours = await known.byKid(kid, alg);
    if (ours) {
      await compactVerify(token, ours.key);
      return {
        verified: true,
        key_source: `portico ${ours.set} keys`,
        detail: `Signature verified with this origin's ${ours.set} key ${String(kid)}`,
      };
    }
    if (Array.isArray(header.x5c) && typeof header.x5c[0] === 'string')
      return verifyWithX5c(token, header.x5c as unknown[], known);
    if (header.jwk) {
      await compactVerify(token, EmbeddedJWK);
      return {
        verified: false,
        self_signed_valid: true,
        key_source: 'embedded jwk',
        detail:
          'Self-signed: the signature is valid with the key the token carries in its own header, which proves possession of that key but not who issued the token. Not verified with any key we trust',
      };
    }
    return { verified: false, key_source: 'none', detail: 'No key to check against: supply the issuer JWKS as "jwks"' };
  } catch {
    return {
      verified: false,
      key_source: jwks ? 'supplied jwks' : 'portico keys',
      detail: 'The signature does NOT verify: the token was altered or signed by another key',
    };
  }
}

/** Whether a certificate chain (base64 DER, leaf first) leads to a CA of this origin, and why not. */
export async function chainToOurCa(
  x5c: string[],
  known: KnownIssuerKeys,
): Promise<{ valid: true } | { valid: false; reason: string }> {
  const anchors = known.trustAnchorsPem?.() ?? [];
  if (anchors.length === 0 || known.nowS === undefined)
    return { valid: false, reason: 'no CA of this origin is known here' };
  const chain = await validateX5c(x5c, { trustAnchors: anchors, now: known.nowS });
  return chain.valid ? { valid: true } : { valid: false, reason: chain.reason };
}

/**
 * A token carrying its certificate (`x5c`, e.g. an OpenID4VP request object): the leaf's key checks the
 * signature, and the chain decides trust. Only a chain to a CA this origin trusts makes it `verified`;
 * a signature valid with the leaf alone is `self_signed_valid`, like an embedded `jwk`.
 */
async function verifyWithX5c(token: string, x5c: unknown[], known: KnownIssuerKeys): Promise<JwtDecoding['signature']> {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(Buffer.from(String(x5c[0]), 'base64'));
  } catch {
    return { verified: false, key_source: 'x5c leaf certificate', detail: 'The first x5c entry is not a certificate' };
  }
  try {
    await compactVerify(token, leaf.publicKey);
  } catch {
    return {
      verified: false,
      key_source: 'x5c leaf certificate',
      detail: 'The signature does NOT verify with the key of the x5c leaf certificate',
    };
  }
  const leafName = `subject ${leaf.subject.replace(/\n/g, ', ')}; x509_hash ${x509Hash(leaf.raw)}`;
  const chain = await chainToOurCa(x5c as string[], known);
  if (chain.valid)
    return {
      verified: true,
      key_source: 'x5c chain',
      detail: `Verified with the key of the x5c leaf (${leafName}), whose chain leads to a CA of this origin`,
    };
  return {
    verified: false,
    self_signed_valid: true,
    key_source: 'x5c leaf certificate',
    detail: `Valid with the key of the x5c leaf (${leafName}), but its chain leads to no CA this origin trusts (${chain.reason}): check it against a CA you trust`,
  };
}

/** Decodes, verifies and explains a JWT (JWS compact serialization). */
export async function decodeJwt(
  token: string,
  options: { jwks?: { keys: JWK[] }; known: KnownIssuerKeys; nowMs: number },
): Promise<JwtDecoding> {
  const { header, payload } = parseCompactJws(token);
  let signature: JwtDecoding['signature'];
  try {
    decodeProtectedHeader(token);
    signature = await verify(token, header as JWTHeaderParameters, payload, options.jwks, options.known);
  } catch {
    signature = { verified: false, key_source: 'none', detail: 'The header could not be used for verification' };
  }
  const typ = typeof header.typ === 'string' ? header.typ : undefined;
  const kind = typ !== undefined && Object.hasOwn(TOKEN_KINDS, typ) ? TOKEN_KINDS[typ] : undefined;
  const claims: DecodedClaim[] = Object.entries(payload).map(([name, value]) => {
    const specific = kind?.claims && Object.hasOwn(kind.claims, name) ? kind.claims[name] : undefined;
    const known = specific ??
      (Object.hasOwn(CLAIM_MEANINGS, name) ? CLAIM_MEANINGS[name] : undefined) ?? {
        meaning: 'Private or unregistered claim',
        reference: 'RFC 7519 §4.3',
      };
    const time = TIME_CLAIMS.has(name) && typeof value === 'number' ? describeTime(value, options.nowMs) : undefined;
    return { name, value, ...known, ...time };
  });
  const found = warnings(header, payload, signature, options);
  if (typ === 'openid4vci-proof+jwt' && payload.nonce === undefined)
    found.push('a key proof without nonce: issuers with a nonce endpoint refuse it (invalid_proof)');
  return {
    format: 'jwt',
    header,
    payload,
    signature,
    ...(kind && typ ? { kind: { typ, kind: kind.kind, reference: kind.reference } } : {}),
    claims,
    // A Security Event Token (RFC 8417): each event of its events claim explained (SSF, CAEP, RISC).
    ...(payload.events && typeof payload.events === 'object' ? { security_events: explainEvents(payload.events) } : {}),
    warnings: found,
  };
}

function warnings(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  signature: JwtDecoding['signature'],
  options: { jwks?: { keys: JWK[] }; nowMs: number },
): string[] {
  const out: string[] = [];
  const now = options.nowMs / 1000;
  const alg = String(header.alg ?? '');
  if (alg === 'none') out.push('alg "none": anyone can forge this token; never accept it');
  if (alg.startsWith('HS') && (options.jwks?.keys.some((k) => k.kty !== 'oct') || header.jwk || header.kid)) {
    out.push(
      'HS* with public key material around: a verifier that uses a public key as an HMAC secret can be fooled (algorithm confusion)',
    );
  }
  if (!signature.verified && alg !== 'none' && !signature.self_signed_valid) out.push('signature not verified');
  if (signature.key_source === 'embedded jwk')
    out.push(
      'self-signed: the only key that verifies it is the one embedded in its header, so anyone could have made it; trust it only if you know that key',
    );
  if (!signature.verified && signature.key_source.startsWith('portico '))
    out.push(`claims to come from this origin (iss ${String(payload.iss)}) but is not signed by that issuer's keys`);
  if (typeof payload.exp !== 'number') out.push('no exp: the token never expires');
  else if (payload.exp <= now) out.push('expired');
  if (typeof payload.nbf === 'number' && payload.nbf > now) out.push('not yet valid (nbf is in the future)');
  if (typeof payload.iat === 'number' && payload.iat > now + 60) out.push('iat is in the future');
  if (payload.aud === undefined && header.typ !== 'dpop+jwt')
    out.push('no aud: any service could be made to accept it');
  if (typeof payload.exp === 'number' && typeof payload.iat === 'number' && payload.exp - payload.iat > 86_400)
    out.push('lifetime longer than a day');
  if (header.jwk && typeof header.jwk === 'object' && 'd' in (header.jwk as object))
    out.push('the header carries a PRIVATE key');
  return out;
}
