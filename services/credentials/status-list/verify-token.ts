import { compactVerify, type JWK } from 'jose';
import { isExpired, isFromTheFuture } from '../../crypto/time-claims.ts';
import { verifyCoseSign1 } from '../mdoc/cose-sign1.ts';
import { CheckFailed, runChecks, type CheckTrail, type Result } from '../result.ts';
import {
  COSE_TYP,
  STATUS_LIST_CWT_MEDIA,
  STATUS_LIST_JWT_TYP,
  readStatusListCwt,
  readStatusListJwt,
  type StatusListCheck,
  type StatusListContents,
} from './token.ts';

/** Status List Token verification (draft-ietf-oauth-status-list §8.3), JWT and CWT, against a trusted key. */

/**
 * Resolves the key that must have signed a token, from its header (`kid`, `x5c`); throws a CheckFailed
 * otherwise. Checks it makes on the way (an x5c chain) join `trail`.
 */
export type StatusListKeyResolver = (header: { kid?: string; x5c?: string[] }, trail: CheckTrail) => Promise<JWK>;

export interface StatusListExpectations {
  /** The `uri` of the reference: the token's subject must equal it. */
  uri: string;
  nowS: number;
  keyFor: StatusListKeyResolver;
  /** Where the checks that held are noted, when the caller reports them. */
  trail?: CheckTrail;
}

/** The time rules of §8.3: `iat` not from the future, `exp` (when present) not passed. */
function checkTimes(trail: CheckTrail, contents: StatusListContents, nowS: number): void {
  trail.ensure(!isFromTheFuture(contents.iat, nowS), 'status_list_expiry', 'the token was issued in the future');
  trail.ensure(
    contents.exp === undefined || !isExpired(contents.exp, nowS),
    'status_list_expiry',
    'the Status List Token has expired',
  );
}

/** §8.3 on a JWT: typ, signature by a trusted key, sub = the referenced uri, not expired. */
export function verifyStatusListJwt(
  jwt: string,
  expect: StatusListExpectations,
): Promise<Result<{ contents: StatusListContents }, StatusListCheck>> {
  return runChecks(expect.trail, async (trail: CheckTrail) => {
    const { header, contents } = readStatusListJwt(jwt, trail);
    trail.ensure(header.typ === STATUS_LIST_JWT_TYP, 'status_list_typ', `typ must be ${STATUS_LIST_JWT_TYP}`);
    const jwk = await expect.keyFor({ kid: header.kid, x5c: header.x5c }, trail);
    try {
      await compactVerify(jwt, jwk, { algorithms: ['ES256', 'ES384', 'EdDSA'] });
    } catch {
      throw new CheckFailed(
        'status_list_signature',
        'the signature does not verify with the key trusted for this issuer',
      );
    }
    trail.held('status_list_signature');
    trail.ensure(contents.sub === expect.uri, 'status_list_sub', 'sub is not the uri the credential references');
    checkTimes(trail, contents, expect.nowS);
    return { contents };
  });
}

/** §8.3 on a CWT: typ, signature, subject, times. */
export function verifyStatusListCwt(
  token: Uint8Array,
  expect: StatusListExpectations,
): Promise<Result<{ contents: StatusListContents }, StatusListCheck>> {
  return runChecks(expect.trail, async (trail: CheckTrail) => {
    const { header, kid, x5c, sign1, contents } = readStatusListCwt(token, trail);
    trail.ensure(
      header.get(COSE_TYP) === STATUS_LIST_CWT_MEDIA,
      'status_list_typ',
      `typ must be ${STATUS_LIST_CWT_MEDIA}`,
    );
    const jwk = await expect.keyFor({ kid, x5c }, trail);
    let valid = false;
    try {
      valid = verifyCoseSign1(sign1, jwk);
    } catch {
      valid = false;
    }
    trail.ensure(
      valid,
      'status_list_signature',
      'the COSE signature does not verify with the key trusted for this issuer',
    );
    trail.ensure(
      contents.sub === expect.uri,
      'status_list_sub',
      'the subject is not the uri the credential references',
    );
    checkTimes(trail, contents, expect.nowS);
    return { contents };
  });
}
