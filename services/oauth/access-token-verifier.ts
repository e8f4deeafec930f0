import { jwtVerify, type JWTPayload } from 'jose';
import { CLOCK_SKEW_S } from '../crypto/time-claims.ts';
import { verifierOf, type KeyRing } from '../keys.ts';

/** What makes a JWT access token one of an authorization server's own, for one resource. */
export interface AccessTokenRules {
  issuer: string;
  /** RFC 8707 / RFC 9068 §4: the audience (or one of them) the token must name. */
  audience: string | string[];
  /** The JOSE `typ`: `at+jwt` (RFC 9068) or AgentAuth's `JWT`. */
  typ: 'at+jwt' | 'JWT';
  /** The key set whose ES256 keys sign the tokens. */
  keySet: string;
  /** Claims the token must carry besides `exp`, `sub` and `scope`, which every access token here carries. */
  requiredClaims?: string[];
}

/** Every access token here has a subject, a scope, and a lifetime. */
export interface VerifiedAccessToken extends JWTPayload {
  sub: string;
  scope: string;
  exp: number;
}

/**
 * The one access-token verifier of every resource: jose's `jwtVerify` with ES256 only, the token's
 * `typ`, issuer and audience, and a required `exp`, all time claims allowing the project's 15 s skew.
 * A token that fails any check is `undefined`: the resource says why in its own words.
 */
export async function verifyAccessTokenJwt<C extends VerifiedAccessToken>(
  keys: KeyRing,
  rules: AccessTokenRules,
  token: string,
  nowMs: number,
  audience: string | string[] = rules.audience,
): Promise<C | undefined> {
  try {
    const { payload } = await jwtVerify(token, verifierOf(keys, rules.keySet, 'ES256'), {
      algorithms: ['ES256'],
      typ: rules.typ,
      issuer: rules.issuer,
      audience,
      currentDate: new Date(nowMs),
      clockTolerance: CLOCK_SKEW_S,
      requiredClaims: ['exp', 'sub', ...(rules.requiredClaims ?? [])],
    });
    if (typeof payload.sub !== 'string' || typeof payload.scope !== 'string') return undefined;
    return payload as C;
  } catch {
    return undefined;
  }
}
