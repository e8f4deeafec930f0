import { KeyObject, X509Certificate } from 'node:crypto';
import type { JWK } from 'jose';
import { Tag, decodeCbor } from '../credentials/mdoc/cbor.ts';
import { verifyCoseSign1 } from '../credentials/mdoc/cose-sign1.ts';
import { CheckFailed } from '../credentials/result.ts';
import { countStatuses, statusAt, statusTypeName, bitAt } from '../credentials/status-list/bits.ts';
import { readBitstringListCredential } from '../credentials/status-list/bitstring-credential.ts';
import {
  STATUS_LIST_CWT_MEDIA,
  readStatusListCwt,
  readStatusListJwt,
  type StatusListContents,
} from '../credentials/status-list/token.ts';
import { verifyJwtVc } from '../credentials/w3c/jwt-vc.ts';
import { oauthError } from '../errors.ts';
import { chainToOurCa, decodeJwt, parseCompactJws, type KnownIssuerKeys } from './decode-jwt.ts';
import { describeTime } from './time.ts';

const invalid = (detail: string) => oauthError('invalid_request', detail);

type Options = { jwks?: { keys: JWK[] }; known: KnownIssuerKeys; nowMs: number; idx?: number };

/** What the looking glass shows of any status list: its size, the count of each value, one index. */
function summary(bytes: Uint8Array, bits: number, idx: number | undefined, valueAt: (i: number) => number | undefined) {
  const counts = countStatuses(bytes, bits);
  const size = Math.floor((bytes.length * 8) / bits);
  const value = idx === undefined ? undefined : valueAt(idx);
  return {
    bits,
    size,
    counts: Object.fromEntries(counts.map((n, v) => [statusTypeName(v), n]).filter(([, n]) => n !== 0 || bits === 2)),
    ...(idx !== undefined
      ? {
          at: {
            idx,
            ...(value === undefined
              ? { detail: `index ${idx} is outside the list (${size} entries): no statement can be made (§8.3)` }
              : { value, status: statusTypeName(value) }),
          },
        }
      : {}),
  };
}

const tokenTimes = (c: StatusListContents, nowMs: number) => ({
  iat: describeTime(c.iat, nowMs),
  ...(c.exp !== undefined ? { exp: describeTime(c.exp, nowMs) } : {}),
  ...(c.ttl !== undefined ? { ttl: { seconds: c.ttl, detail: 'a reader may cache the list this long (§12.5)' } } : {}),
});

/** Whether the input is a status list this decoder reads: a statuslist JWT, a CWT, or a W3C list credential. */
export function looksLikeStatusList(text: string): boolean {
  const t = text.trim();
  if (t.split('.').length === 3) {
    try {
      const { header, payload } = parseCompactJws(t);
      const vc = payload.vc as { type?: unknown } | undefined;
      return (
        header.typ === 'statuslist+jwt' ||
        (Array.isArray(vc?.type) && vc.type.includes('BitstringStatusListCredential'))
      );
    } catch {
      return false;
    }
  }
  return /^[A-Za-z0-9_\-+/=]+$/.test(t);
}

/** A Status List Token (JWT or CWT) or a W3C BitstringStatusListCredential, decoded and explained. */
export async function decodeStatusList(text: string, options: Options) {
  const t = text.trim();
  if (!looksLikeStatusList(t))
    throw invalid(
      'not a status list: a JWT with typ statuslist+jwt, a BitstringStatusListCredential JWT, or a CWT as base64url or hex',
    );
  try {
    if (t.split('.').length === 3) {
      const { header, payload } = parseCompactJws(t);
      const jwt = await decodeJwt(t, options);
      if (header.typ === 'statuslist+jwt') {
        const { contents } = readStatusListJwt(t);
        return {
          format: 'statuslist+jwt',
          reference: 'draft-ietf-oauth-status-list §5.1',
          sub: contents.sub,
          ...tokenTimes(contents, options.nowMs),
          ...summary(contents.bytes, contents.bits, options.idx, (i) => statusAt(contents.bytes, contents.bits, i)),
          signature: jwt.signature,
          header,
        };
      }
      const list = readBitstringListCredential(payload.vc as Record<string, unknown>);
      return {
        format: 'BitstringStatusListCredential',
        reference: 'W3C Bitstring Status List v1.0 §2.2',
        id: list.id,
        issuer: list.issuer,
        status_purpose: list.purpose,
        ...(list.ttl !== undefined ? { ttl: { milliseconds: list.ttl } } : {}),
        ...(list.validUntil ? { valid_until: list.validUntil } : {}),
        ...summary(list.bytes, 1, options.idx, (i) => bitAt(list.bytes, i)),
        detail: `A set bit means the credential's ${list.purpose} status holds (index 0 is the leftmost bit).`,
        signature: jwt.signature.verified ? jwt.signature : await didSignature(t, options.nowMs, jwt.signature),
        header,
      };
    }
    return await decodeCwt(t, options);
  } catch (error) {
    if (error instanceof CheckFailed) throw invalid(`${error.check}: ${error.reason}`);
    throw error;
  }
}

/** A W3C list signed by its issuer's DID (did:jwk, did:key): verified with the key the DID names. */
async function didSignature(jwt: string, nowMs: number, fallback: Record<string, unknown>) {
  const result = await verifyJwtVc(jwt, { now: Math.floor(nowMs / 1000), format: 'jwt_vc_json' });
  return result.valid
    ? { verified: true, key_source: "the issuer's DID document" }
    : { ...fallback, detail: `${result.check}: ${result.reason}` };
}

async function decodeCwt(text: string, options: Options) {
  const raw =
    /^[0-9a-fA-F]+$/.test(text) && text.length % 2 === 0
      ? Buffer.from(text, 'hex')
      : Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  let tagged: unknown;
  try {
    tagged = decodeCbor(raw);
  } catch {
    throw invalid('not a status list: a JWT, or a CWT as base64url, base64 or hex');
  }
  if (!(tagged instanceof Tag)) throw invalid('a Status List CWT is a COSE_Sign1_Tagged (18)');
  const { header, kid, x5c, sign1, contents } = readStatusListCwt(raw);
  const typ = header.get(16);
  const signature = x5c ? await cwtSignatureByX5chain(sign1, x5c, options.known) : await cwtSignatureByKid();
  return {
    format: 'statuslist+cwt',
    reference: 'draft-ietf-oauth-status-list §5.2',
    typ,
    ...(typ !== STATUS_LIST_CWT_MEDIA ? { warnings: [`typ (16) should be ${STATUS_LIST_CWT_MEDIA}`] } : {}),
    sub: contents.sub,
    ...tokenTimes(contents, options.nowMs),
    ...summary(contents.bytes, contents.bits, options.idx, (i) => statusAt(contents.bytes, contents.bits, i)),
    signature,
  };

  async function cwtSignatureByKid() {
    const key = kid ? await options.known.byKid(kid, 'ES256') : undefined;
    const given = options.jwks?.keys.find((k) => k.kid === kid);
    let verified = false;
    try {
      verified = key
        ? verifyCoseSign1(sign1, KeyObject.from(key.key as CryptoKey))
        : given
          ? verifyCoseSign1(sign1, given)
          : false;
    } catch {
      verified = false;
    }
    return {
      verified,
      ...(kid ? { kid } : {}),
      key_source: key ? `this origin (${key.set})` : given ? 'the jwks given' : 'none',
    };
  }
}

/** A CWT carrying its certificate (COSE x5chain): the leaf's key checks it, a chain to our CA makes it verified. */
async function cwtSignatureByX5chain(
  sign1: ReturnType<typeof readStatusListCwt>['sign1'],
  x5c: string[],
  known: KnownIssuerKeys,
) {
  let valid = false;
  try {
    valid = verifyCoseSign1(sign1, new X509Certificate(Buffer.from(x5c[0]!, 'base64')).publicKey);
  } catch {
    valid = false;
  }
  if (!valid)
    return { verified: false, key_source: 'x5chain leaf certificate', detail: 'The COSE signature does NOT verify' };
  const chain = await chainToOurCa(x5c, known);
  return chain.valid
    ? {
        verified: true,
        key_source: 'x5chain leaf certificate',
        detail: "Signature verified with the x5chain leaf, which chains to this origin's CA",
      }
    : {
        verified: false,
        self_signed_valid: true,
        key_source: 'x5chain leaf certificate',
        detail: `Valid with the x5chain leaf, but the chain is not trusted here: ${chain.reason}`,
      };
}
