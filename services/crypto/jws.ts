import { type KeyObject, createHash, sign, verify } from 'node:crypto';
import type { SigningKey } from '../keys.ts';
import { asKeyObject, publicKeyOfJwk } from './key-object.ts';

const encodeJson = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A JWT in JWS compact serialization, signed with one of our own issuer keys. node:crypto makes the
 * signature synchronously: an ES256 signature costs about 25 µs on the event loop, less than handing a
 * WebCrypto job to the thread pool costs, which matters on endpoints that sign on every request.
 * Tokens are verified with jose like any other JWT.
 */
/** What signing needs of a key: its algorithm and private half; a `kid` when the key has one (an x5c signer has none). */
export type JwsSigner = Pick<SigningKey, 'alg' | 'privateKey'> & { kid?: string };

export function signJwt(key: JwsSigner, header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const input = Buffer.from(`${encodeJson({ alg: key.alg, ...header, kid: key.kid })}.${encodeJson(payload)}`);
  const privateKey = asKeyObject(key.privateKey as KeyObject | CryptoKey);
  const signature =
    key.alg === 'ES256'
      ? sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' })
      : key.alg === 'RS256'
        ? sign('sha256', input, privateKey)
        : sign(null, input, privateKey);
  return `${input.toString('latin1')}.${signature.toString('base64url')}`;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** The curve each synchronously verified algorithm requires of its key (RFC 7518 §3.4, RFC 8037 §3.1). */
const SYNC_VERIFY_CURVES: ReadonlyMap<string, readonly string[]> = new Map([
  ['ES256', ['P-256']],
  ['EdDSA', ['Ed25519', 'Ed448']],
]);

/**
 * Whether `alg` over `jwk` can be verified by `verifyJwsSync`: ES256 and EdDSA on their own curves, and
 * no `crit` or `b64` header (those go to jose, which applies RFC 7515 §4.1.11 and RFC 7797).
 */
export function canVerifySync(
  header: Record<string, unknown>,
  jwk: { kty?: unknown; crv?: unknown },
  alg: string,
): boolean {
  const curves = SYNC_VERIFY_CURVES.get(alg);
  return (
    curves !== undefined &&
    typeof jwk.crv === 'string' &&
    curves.includes(jwk.crv) &&
    header.alg === alg &&
    headerVerifiableSync(header)
  );
}

/**
 * Whether a JWS with this header can go to node:crypto (`verifyJwsWithKeyAsync`) once a key fitting its
 * `alg` is found (by jose's key-set selection, which checks the curve): ES256 or EdDSA, no `crit`, no `b64`.
 */
export function headerVerifiableSync(header: Record<string, unknown>): header is { alg: string } {
  return (
    typeof header.alg === 'string' &&
    SYNC_VERIFY_CURVES.has(header.alg) &&
    header.crit === undefined &&
    header.b64 === undefined
  );
}

/** The bytes a compact JWS signs and its signature, or undefined when it is not three base64url parts. */
function signedParts(jws: string): { input: Buffer; signature: Buffer } | undefined {
  const parts = jws.split('.');
  if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p))) return undefined;
  return { input: Buffer.from(`${parts[0]}.${parts[1]}`), signature: Buffer.from(parts[2], 'base64url') };
}

/** node:crypto's digest and key for a JWS `alg` (ES256 signatures are r || s, IEEE P1363, as JWS carries them). */
const verifierOf = (alg: string, key: KeyObject) =>
  alg === 'ES256' ? { digest: 'sha256', key: { key, dsaEncoding: 'ieee-p1363' as const } } : { digest: null, key };

/** A JWK's public key, or undefined when it does not import. */
function importedKey(jwk: Record<string, unknown>): KeyObject | undefined {
  try {
    return publicKeyOfJwk(jwk);
  } catch {
    return undefined;
  }
}

/**
 * Verifies a JWS compact serialization with a public JWK on the event loop (see `signJwt` for why).
 * Callers check `canVerifySync` first; anything malformed is simply not verified. Used for the issuer's
 * key proofs: through jose the SD-JWT VC issuance bench fell from 1,028 to 774 flows/s (issue 46 §5);
 * jose's `compactVerify` costs about 144 µs of CPU per ES256 verification on this machine (73 of them on
 * the event loop) against 81 here. `test/unit/crypto/verify-sync.test.ts` holds it to jose.
 */
export function verifyJwsSync(jws: string, jwk: Record<string, unknown>, alg: string): boolean {
  const key = importedKey(jwk);
  const signed = signedParts(jws);
  if (!key || !signed) return false;
  const verifier = verifierOf(alg, key);
  try {
    return verify(verifier.digest, signed.input, verifier.key, signed.signature);
  } catch {
    return false;
  }
}

/**
 * The same check on libuv's thread pool, with a key already imported (one that fits `alg`): node:crypto's
 * callback form keeps about 17 µs of an ES256 verification on the event loop instead of 81 (WebCrypto
 * through jose keeps about 70), for about 98 µs of CPU in all. Used by the verifier's SD-JWT VC checks
 * (issuer JWT and KB-JWT), where the event loop, not the machine, sets the pace (issue 45 item 40).
 */
export function verifyJwsWithKeyAsync(jws: string, key: KeyObject, alg: string): Promise<boolean> {
  const signed = signedParts(jws);
  if (!signed) return Promise.resolve(false);
  const verifier = verifierOf(alg, key);
  return new Promise((resolve) => {
    try {
      verify(verifier.digest, signed.input, verifier.key, signed.signature, (error, valid) =>
        resolve(error === null && valid),
      );
    } catch {
      resolve(false);
    }
  });
}

/** `verifyJwsSync` on libuv's thread pool (see `verifyJwsWithKeyAsync`). */
export function verifyJwsAsync(jws: string, jwk: Record<string, unknown>, alg: string): Promise<boolean> {
  const key = importedKey(jwk);
  return key ? verifyJwsWithKeyAsync(jws, key, alg) : Promise.resolve(false);
}

/** RFC 7638 thumbprint (SHA-256, base64url) of an EC, OKP or RSA public JWK, computed synchronously. */
export function jwkThumbprintSync(jwk: Record<string, unknown>): string {
  const members =
    jwk.kty === 'EC'
      ? ['crv', 'kty', 'x', 'y']
      : jwk.kty === 'OKP'
        ? ['crv', 'kty', 'x']
        : jwk.kty === 'RSA'
          ? ['e', 'kty', 'n']
          : undefined;
  if (!members || members.some((m) => typeof jwk[m] !== 'string'))
    throw new TypeError('unsupported JWK for a thumbprint');
  const canonical = `{${members.map((m) => `${JSON.stringify(m)}:${JSON.stringify(jwk[m])}`).join(',')}}`;
  return createHash('sha256').update(canonical).digest('base64url');
}
