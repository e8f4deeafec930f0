import { SignJWT, decodeProtectedHeader, type JWTHeaderParameters } from 'jose';
import type { SigningKey } from '../../keys.ts';
import { Tag, decodeCbor, encodeCbor, isMap } from '../mdoc/cbor.ts';
import {
  COSE_ALGS,
  HEADER_ALG,
  HEADER_KID,
  HEADER_X5CHAIN,
  parseCoseSign1,
  signCoseSign1,
} from '../mdoc/cose-sign1.ts';
import { CheckFailed, CheckTrail } from '../result.ts';
import { inflateTokenList, isAllowedBits } from './bits.ts';

/**
 * Status List Tokens (draft-ietf-oauth-status-list §5): a signed JWT (`typ: statuslist+jwt`) or CWT
 * (COSE_Sign1, protected `typ` 16 = `application/statuslist+cwt`) whose subject is the list's own URI
 * and whose `status_list` holds `bits` and the ZLIB-compressed bytes.
 */

export const STATUS_LIST_JWT_TYP = 'statuslist+jwt';
export const STATUS_LIST_JWT_MEDIA = 'application/statuslist+jwt';
export const STATUS_LIST_CWT_MEDIA = 'application/statuslist+cwt';

/** CWT claim keys (RFC 8392 §4, and the draft's requested 65533/65534) and the COSE `typ` header (RFC 9596). */
const CWT_SUB = 2;
const CWT_EXP = 4;
const CWT_IAT = 6;
const CWT_TTL = 65534;
const CWT_STATUS_LIST = 65533;
export const COSE_TYP = 16;

export interface StatusListClaims {
  sub: string;
  iat: number;
  exp?: number;
  ttl?: number;
  bits: number;
  /** The compressed list, as carried. */
  lst: Uint8Array;
}

/** What a reader learns from a token: its claims and the decompressed bytes. */
export interface StatusListContents extends StatusListClaims {
  bytes: Uint8Array;
}

export type StatusListCheck =
  'status_list_format' | 'status_list_typ' | 'status_list_signature' | 'status_list_sub' | 'status_list_expiry';

/**
 * The key a list is signed with, and the trust material its header carries: the same as the credentials
 * pointing at the list carry (`kid` for a `jwks_uri`, `x5c` for a certificate chain), so a verifier that
 * trusts a credential verifies its list with that same trust.
 */
export type StatusListSigner = Pick<SigningKey, 'alg' | 'privateKey'> & {
  kid?: string;
  /** Base64 DER certificates, the signer's first (JWT `x5c`; the CWT's COSE `x5chain`). */
  x5c?: string[];
};

export async function signStatusListJwt(claims: StatusListClaims, key: StatusListSigner): Promise<string> {
  return new SignJWT({
    sub: claims.sub,
    iat: claims.iat,
    ...(claims.exp !== undefined ? { exp: claims.exp } : {}),
    ...(claims.ttl !== undefined ? { ttl: claims.ttl } : {}),
    status_list: { bits: claims.bits, lst: Buffer.from(claims.lst).toString('base64url') },
  })
    .setProtectedHeader({
      alg: key.alg,
      ...(key.kid ? { kid: key.kid } : {}),
      ...(key.x5c ? { x5c: key.x5c } : {}),
      typ: STATUS_LIST_JWT_TYP,
    })
    .sign(key.privateKey);
}

/** RFC 9360 §2: one certificate as a bstr, several as an array of them. */
const x5chainOf = (x5c: string[]) =>
  x5c.length === 1 ? Buffer.from(x5c[0], 'base64') : x5c.map((c) => Buffer.from(c, 'base64'));

/** The CWT form: COSE_Sign1_Tagged (18), never the CWT tag (§5.2). */
export function signStatusListCwt(claims: StatusListClaims, key: StatusListSigner): Uint8Array {
  if (key.alg !== 'ES256') throw new Error('status list CWTs are signed with ES256');
  const payload = new Map<number, unknown>([
    [CWT_SUB, claims.sub],
    [CWT_IAT, claims.iat],
    ...(claims.exp !== undefined ? [[CWT_EXP, claims.exp] as [number, unknown]] : []),
    ...(claims.ttl !== undefined ? [[CWT_TTL, claims.ttl] as [number, unknown]] : []),
    [
      CWT_STATUS_LIST,
      new Map<string, unknown>([
        ['bits', claims.bits],
        ['lst', claims.lst],
      ]),
    ],
  ]);
  const sign1 = signCoseSign1({
    alg: 'ES256',
    privateKey: key.privateKey as CryptoKey,
    payload: encodeCbor(payload),
    protectedHeaders: new Map<number, unknown>([
      [HEADER_ALG, COSE_ALGS.ES256],
      [COSE_TYP, STATUS_LIST_CWT_MEDIA],
      ...(key.kid ? [[HEADER_KID, new TextEncoder().encode(key.kid)] as [number, unknown]] : []),
      ...(key.x5c ? [[HEADER_X5CHAIN, x5chainOf(key.x5c)] as [number, unknown]] : []),
    ]),
  });
  return encodeCbor(new Tag(sign1, 18));
}

const fail = (check: StatusListCheck, reason: string): never => {
  throw new CheckFailed(check, reason);
};

/** The `status_list` member, checked: allowed `bits`, and `lst` that inflates. */
function statusListOf(trail: CheckTrail, bits: unknown, lst: Uint8Array | undefined) {
  trail.ensure(isAllowedBits(bits), 'status_list_format', 'status_list.bits must be 1, 2, 4 or 8');
  if (!lst) return fail('status_list_format', 'status_list.lst is missing');
  try {
    return { bits, lst, bytes: new Uint8Array(inflateTokenList(lst)) };
  } catch {
    return fail('status_list_format', 'status_list.lst is not a ZLIB/DEFLATE stream of at most 4 MiB');
  }
}

const numberOrUndefined = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** A JWT token's header and contents, unverified (the looking glass shows what it says). */
export function readStatusListJwt(
  jwt: string,
  trail: CheckTrail = new CheckTrail(),
): { header: JWTHeaderParameters; contents: StatusListContents } {
  const parts = jwt.split('.');
  if (parts.length !== 3) fail('status_list_format', 'a Status List Token JWT has three parts');
  let header: JWTHeaderParameters;
  let payload: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(jwt) as JWTHeaderParameters;
    payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return fail('status_list_format', 'the JWT header or payload is not base64url JSON');
  }
  trail.ensure(payload && typeof payload === 'object', 'status_list_format', 'the JWT payload is not an object');
  const list = payload.status_list as { bits?: unknown; lst?: unknown } | undefined;
  trail.ensure(list && typeof list === 'object', 'status_list_format', 'the status_list claim is missing');
  trail.ensure(
    typeof list.lst === 'string' && /^[A-Za-z0-9_-]*$/.test(list.lst),
    'status_list_format',
    'lst is not base64url',
  );
  trail.ensure(typeof payload.sub === 'string', 'status_list_format', 'the sub claim is missing');
  trail.ensure(typeof payload.iat === 'number', 'status_list_format', 'the iat claim is missing');
  const { bits, lst, bytes } = statusListOf(trail, list.bits, Buffer.from(list.lst, 'base64url'));
  return {
    header,
    contents: {
      sub: payload.sub,
      iat: payload.iat,
      exp: numberOrUndefined(payload.exp),
      ttl: numberOrUndefined(payload.ttl),
      bits,
      lst,
      bytes,
    },
  };
}

/** A COSE `x5chain` value as base64 DER certificates; undefined when absent, a format failure when malformed. */
function x5cOf(trail: CheckTrail, x5chain: unknown): string[] | undefined {
  if (x5chain === undefined) return undefined;
  const certificates = Array.isArray(x5chain) ? x5chain : [x5chain];
  trail.ensure(
    certificates.length > 0 && certificates.every((c) => c instanceof Uint8Array),
    'status_list_format',
    'x5chain (33) is not a certificate or an array of them',
  );
  return certificates.map((c: Uint8Array) => Buffer.from(c).toString('base64'));
}

/** A CWT token's protected header and contents, unverified. */
export function readStatusListCwt(
  token: Uint8Array,
  trail: CheckTrail = new CheckTrail(),
): {
  header: Map<unknown, unknown>;
  kid?: string;
  /** The COSE `x5chain` (protected or unprotected), as base64 DER certificates. */
  x5c?: string[];
  contents: StatusListContents;
  sign1: ReturnType<typeof parseCoseSign1>;
} {
  let sign1: ReturnType<typeof parseCoseSign1>;
  let header: unknown;
  let claims: unknown;
  try {
    const decoded = decodeCbor(token);
    trail.ensure(decoded instanceof Tag && decoded.tag === 18, 'status_list_format', 'not a COSE_Sign1_Tagged (18)');
    sign1 = parseCoseSign1(decoded);
    header = sign1[0].length ? decodeCbor(sign1[0]) : new Map();
    claims = sign1[2] ? decodeCbor(sign1[2]) : undefined;
  } catch (error) {
    if (error instanceof CheckFailed) throw error;
    return fail('status_list_format', 'the token is not a CBOR COSE_Sign1');
  }
  trail.ensure(isMap(header), 'status_list_format', 'the protected header is not a map');
  trail.ensure(isMap(claims), 'status_list_format', 'the payload is not a CWT claims map');
  const list = claims.get(CWT_STATUS_LIST);
  trail.ensure(isMap(list), 'status_list_format', 'the status list claim (65533) is missing');
  const sub = claims.get(CWT_SUB);
  const iat = claims.get(CWT_IAT);
  trail.ensure(typeof sub === 'string', 'status_list_format', 'the subject claim (2) is missing');
  trail.ensure(typeof iat === 'number', 'status_list_format', 'the issued-at claim (6) is missing');
  const rawLst = list.get('lst');
  const { bits, lst, bytes } = statusListOf(trail, list.get('bits'), rawLst instanceof Uint8Array ? rawLst : undefined);
  const kid = header.get(HEADER_KID) ?? sign1[1].get(HEADER_KID);
  const x5c = x5cOf(trail, header.get(HEADER_X5CHAIN) ?? sign1[1].get(HEADER_X5CHAIN));
  return {
    header,
    kid: kid instanceof Uint8Array ? new TextDecoder().decode(kid) : typeof kid === 'string' ? kid : undefined,
    ...(x5c ? { x5c } : {}),
    sign1,
    contents: {
      sub,
      iat,
      exp: numberOrUndefined(claims.get(CWT_EXP)),
      ttl: numberOrUndefined(claims.get(CWT_TTL)),
      bits,
      lst,
      bytes,
    },
  };
}
