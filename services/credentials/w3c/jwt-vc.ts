import { CLOCK_SKEW_S } from '../../crypto/time-claims.ts';
import { SignJWT, compactVerify, createLocalJWKSet, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { randomUUID } from 'node:crypto';
import { DidResolutionError } from '../keys/did-document.ts';
import { resolveVerificationKey } from '../keys/resolve.ts';
import { MAX_NESTING, withinNesting } from '../../untrusted/depth.ts';
import { CheckFailed, runChecks, type Result, type CheckTrail } from '../result.ts';
import type { SigningKey } from '../sd-jwt/types.ts';
import { canonizeJsonLd } from './canonize.ts';
import { createDocumentLoader } from './document-loader.ts';

export type JwtVcFormat = 'jwt_vc_json' | 'jwt_vc_json-ld';
export type JwtVcCheck =
  | 'format'
  | 'signature'
  | 'validity'
  | 'vc_claim'
  | 'iss'
  | 'jsonld'
  | 'aud'
  | 'nonce'
  | 'vp_claim'
  | 'credential'
  | 'holder_binding'
  | 'freshness';

type JsonObject = Record<string, unknown>;
const ALGS = ['ES256', 'ES384', 'EdDSA', 'RS256'];
const idOf = (v: unknown) =>
  typeof v === 'string' ? v : v && typeof v === 'object' ? (v as { id?: unknown }).id : undefined;
const seconds = (iso: unknown) =>
  typeof iso === 'string' && !Number.isNaN(Date.parse(iso)) ? Math.floor(Date.parse(iso) / 1000) : undefined;

/**
 * A JWT-secured VC in the VC-JWT 1.1 style OpenID4VCI calls `jwt_vc_json` / `jwt_vc_json-ld`:
 * the credential in the `vc` claim; `iss` = issuer, `sub` = credentialSubject.id, `nbf` =
 * issuanceDate / validFrom, `exp` = expirationDate / validUntil, `jti` = id. The `-ld` variant must
 * be valid JSON-LD against the bundled contexts (checked by canonicalizing it).
 */
export async function issueJwtVc(input: {
  format: JwtVcFormat;
  credential: JsonObject;
  issuer: SigningKey;
  now: number;
  expiresIn?: number;
}): Promise<string> {
  const vc = input.credential;
  const iss = idOf(vc.issuer);
  if (typeof iss !== 'string') throw new Error('the credential needs an issuer');
  if (input.format === 'jwt_vc_json-ld') await canonizeJsonLd(vc, createDocumentLoader());
  const sub = idOf(vc.credentialSubject);
  const nbf = seconds(vc.validFrom ?? vc.issuanceDate) ?? input.now;
  const exp =
    seconds(vc.validUntil ?? vc.expirationDate) ??
    (input.expiresIn !== undefined ? input.now + input.expiresIn : undefined);
  const payload: JsonObject = {
    iss,
    ...(typeof sub === 'string' ? { sub } : {}),
    nbf,
    iat: input.now,
    ...(exp !== undefined ? { exp } : {}),
    ...(typeof vc.id === 'string' ? { jti: vc.id } : {}),
    vc,
  };
  return new SignJWT(payload)
    .setProtectedHeader({ alg: input.issuer.alg, typ: 'JWT', ...(input.issuer.kid ? { kid: input.issuer.kid } : {}) })
    .sign(input.issuer.privateKey);
}

/** Key lookup: a DID URL in `kid` (or a DID `iss`) resolves offline; otherwise the given JWKS. */
async function verifyWithIssuerKey(
  trail: CheckTrail,
  jwt: string,
  header: JsonObject,
  iss: unknown,
  jwks: { keys: JWK[] } | undefined,
  check: JwtVcCheck,
): Promise<JsonObject> {
  try {
    const kid = typeof header.kid === 'string' ? header.kid : undefined;
    const didUrl = kid?.startsWith('did:')
      ? kid
      : typeof iss === 'string' && iss.startsWith('did:')
        ? kid?.startsWith('#')
          ? iss + kid
          : iss
        : undefined;
    const key = didUrl
      ? await importJWK(resolveVerificationKey(didUrl), String(header.alg))
      : jwks
        ? createLocalJWKSet(jwks)
        : undefined;
    trail.ensure(key, check, 'no key: the issuer is not a DID and no JWKS was given');
    const { payload } =
      typeof key === 'function'
        ? await compactVerify(jwt, key, { algorithms: ALGS })
        : await compactVerify(jwt, key, { algorithms: ALGS });
    return JSON.parse(new TextDecoder().decode(payload)) as JsonObject;
  } catch (error) {
    if (error instanceof CheckFailed) throw error;
    throw new CheckFailed(
      check,
      error instanceof DidResolutionError
        ? error.message
        : `the signature does not verify (${(error as Error).message})`,
    );
  }
}

export interface VerifyJwtVcOptions {
  now: number;
  clockSkew?: number;
  /** Issuer keys when the issuer is not a DID (its jwks_uri document). */
  issuerJwks?: { keys: JWK[] };
  format?: JwtVcFormat;
  /** Where the checks that held are noted, when the caller reports them. */
  trail?: CheckTrail;
}

export interface VerifiedJwtVc {
  header: JsonObject;
  payload: JsonObject;
  credential: JsonObject;
}

/** Header and claims of a JWT before any check; anything else is a `format` failure. */
function decodeUnverified(trail: CheckTrail, jwt: string): { header: JsonObject; claims: JsonObject } {
  let decoded: { header: JsonObject; claims: JsonObject };
  try {
    decoded = { header: decodeProtectedHeader(jwt) as JsonObject, claims: decodeJwt(jwt) as JsonObject };
  } catch {
    throw new CheckFailed('format', 'not a JWT');
  }
  trail.ensure(withinNesting(decoded.claims), 'format', `the claims nest deeper than ${MAX_NESTING} levels`);
  return decoded;
}

export function verifyJwtVc(jwt: string, options: VerifyJwtVcOptions): Promise<Result<VerifiedJwtVc, JwtVcCheck>> {
  return runChecks<VerifiedJwtVc, JwtVcCheck>(options.trail, async (trail: CheckTrail) => {
    const { header, claims } = decodeUnverified(trail, jwt);
    const payload = await verifyWithIssuerKey(trail, jwt, header, claims.iss, options.issuerJwks, 'signature');
    const skew = options.clockSkew ?? CLOCK_SKEW_S;
    trail.ensure(
      typeof payload.exp !== 'number' || options.now < payload.exp + skew,
      'validity',
      'the credential has expired (exp)',
    );
    trail.ensure(
      typeof payload.nbf !== 'number' || options.now >= payload.nbf - skew,
      'validity',
      'the credential is not yet valid (nbf)',
    );
    const vc = payload.vc as JsonObject | undefined;
    trail.ensure(
      vc &&
        typeof vc === 'object' &&
        Array.isArray(vc.type) &&
        vc.type.includes('VerifiableCredential') &&
        vc.credentialSubject,
      'vc_claim',
      'the vc claim needs a type including VerifiableCredential and a credentialSubject',
    );
    trail.ensure(vc.issuer === undefined || idOf(vc.issuer) === payload.iss, 'iss', 'iss differs from vc.issuer');
    trail.ensure(
      vc.id === undefined || payload.jti === undefined || vc.id === payload.jti,
      'vc_claim',
      'jti differs from vc.id',
    );
    if (options.format === 'jwt_vc_json-ld') {
      trail.ensure(vc['@context'] !== undefined, 'jsonld', 'jwt_vc_json-ld needs an @context');
      try {
        await canonizeJsonLd(vc, createDocumentLoader());
      } catch (error) {
        throw new CheckFailed('jsonld', (error as Error).message);
      }
    }
    return { header, payload, credential: vc };
  });
}

/** A VP JWT (`vp` claim) carrying credentials, with `aud` = client_id and `nonce` from the request. */
export async function createJwtVp(input: {
  holder: SigningKey & { did: string };
  credentials: string[];
  aud: string;
  nonce: string;
  now: number;
  expiresIn?: number;
}): Promise<string> {
  const vp = {
    '@context': ['https://www.w3.org/2018/credentials/v1'],
    type: ['VerifiablePresentation'],
    holder: input.holder.did,
    verifiableCredential: input.credentials,
  };
  return new SignJWT({ vp, nonce: input.nonce })
    .setProtectedHeader({ alg: input.holder.alg, typ: 'JWT', kid: input.holder.kid ?? input.holder.did })
    .setIssuer(input.holder.did)
    .setAudience(input.aud)
    .setIssuedAt(input.now)
    .setNotBefore(input.now)
    .setExpirationTime(input.now + (input.expiresIn ?? 300))
    .setJti(randomUUID())
    .sign(input.holder.privateKey);
}

/**
 * Verifies a VP JWT: holder signature (DID in iss/kid), `aud`, `nonce`, freshness, then each
 * credential, and that every credential's subject (`sub`) is the presenting holder.
 */
export function verifyJwtVp(
  jwt: string,
  options: VerifyJwtVcOptions & { aud: string; nonce: string; maxAge?: number },
): Promise<Result<{ holder: string; credentials: VerifiedJwtVc[] }, JwtVcCheck>> {
  return runChecks<{ holder: string; credentials: VerifiedJwtVc[] }, JwtVcCheck>(
    options.trail,
    async (trail: CheckTrail) => {
      const { header, claims } = decodeUnverified(trail, jwt);
      trail.ensure(
        typeof claims.iss === 'string' && claims.iss.startsWith('did:'),
        'holder_binding',
        'the VP iss must be the holder DID',
      );
      const payload = await verifyWithIssuerKey(trail, jwt, header, claims.iss, undefined, 'signature');
      const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
      trail.ensure(aud.includes(options.aud), 'aud', 'the VP aud is not this verifier');
      trail.ensure(payload.nonce === options.nonce, 'nonce', 'the VP nonce is not the one the verifier sent');
      const skew = options.clockSkew ?? CLOCK_SKEW_S;
      trail.ensure(
        typeof payload.iat === 'number' &&
          payload.iat <= options.now + skew &&
          payload.iat >= options.now - (options.maxAge ?? 300) - skew,
        'freshness',
        'the VP iat is outside the freshness window',
      );
      trail.ensure(
        typeof payload.exp !== 'number' || options.now < payload.exp + skew,
        'validity',
        'the VP has expired',
      );
      const vp = payload.vp as JsonObject | undefined;
      trail.ensure(
        vp && Array.isArray(vp.type) && vp.type.includes('VerifiablePresentation'),
        'vp_claim',
        'the vp claim needs type VerifiablePresentation',
      );
      trail.ensure(
        vp.holder === undefined || vp.holder === payload.iss,
        'holder_binding',
        'vp.holder differs from iss',
      );
      const list = (
        Array.isArray(vp.verifiableCredential) ? vp.verifiableCredential : [vp.verifiableCredential]
      ).filter((c) => c !== undefined);
      const credentials: VerifiedJwtVc[] = [];
      for (const [i, credential] of list.entries()) {
        trail.ensure(typeof credential === 'string', 'credential', `credential ${i} is not a JWT`);
        const r = await verifyJwtVc(credential, { ...options, trail });
        trail.ensure(r.valid, 'credential', r.valid ? '' : `credential ${i}: ${r.check}: ${r.reason}`);
        trail.ensure(
          r.payload.sub === undefined || r.payload.sub === payload.iss,
          'holder_binding',
          `credential ${i} is about ${String(r.payload.sub)}, not the presenting holder`,
        );
        credentials.push(r);
      }
      return { holder: payload.iss as string, credentials };
    },
  );
}
