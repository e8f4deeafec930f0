import { verifyAccessTokenJwt, type AccessTokenRules, type VerifiedAccessToken } from './access-token-verifier.ts';
import { jwtVerify, type JWTPayload } from 'jose';
import { signJwt } from '../crypto/jws.ts';
import { createHash } from 'node:crypto';
import { verifierOf, type KeyRing } from '../keys.ts';
import { randomToken } from '../crypto/random.ts';
import { ACCESS_TOKEN_TTL_S, type IssuerProfile } from './issuers.ts';

export interface AccessTokenClaims extends VerifiedAccessToken {
  sub: string;
  client_id: string;
  scope: string;
  jti: string;
  cnf?: { jkt: string };
  auth_time?: number;
}

/** Left half of the SHA-256 of a token, base64url (OpenID Connect Core 3.1.3.6 at_hash / c_hash). */
const halfHash = (value: string) => createHash('sha256').update(value).digest().subarray(0, 16).toString('base64url');

/** Mints and checks the tokens of one issuer: RFC 9068 access tokens (ES256) and ID tokens (RS256). */
export class IssuerTokens {
  constructor(
    private readonly keys: KeyRing,
    readonly profile: IssuerProfile,
  ) {}

  async accessToken(input: {
    sub: string;
    clientId: string;
    scope: string;
    nowMs: number;
    authTime?: number;
    jkt?: string;
    /** RFC 8707: the resource the token is for; the issuer's default audience otherwise. */
    resource?: string;
  }): Promise<{ token: string; jti: string; expiresIn: number }> {
    const key = this.keys.signing(this.profile.keySet, 'ES256');
    const iat = Math.floor(input.nowMs / 1000);
    const jti = randomToken(16);
    const token = signJwt(
      key,
      { typ: 'at+jwt' },
      {
        iss: this.profile.issuer,
        sub: input.sub,
        aud: input.resource ?? this.profile.accessTokenAudience,
        iat,
        exp: iat + ACCESS_TOKEN_TTL_S,
        jti,
        client_id: input.clientId,
        scope: input.scope,
        ...(input.authTime !== undefined ? { auth_time: input.authTime } : {}),
        ...(input.jkt ? { cnf: { jkt: input.jkt } } : {}),
      },
    );
    return { token, jti, expiresIn: ACCESS_TOKEN_TTL_S };
  }

  async idToken(input: {
    sub: string;
    clientId: string;
    nowMs: number;
    authTime: number;
    nonce?: string;
    accessToken?: string;
    code?: string;
    claims?: Record<string, unknown>;
  }): Promise<string> {
    const key = this.keys.signing(this.profile.keySet, 'RS256');
    const iat = Math.floor(input.nowMs / 1000);
    return signJwt(
      key,
      { typ: 'JWT' },
      {
        ...input.claims,
        iss: this.profile.issuer,
        sub: input.sub,
        aud: input.clientId,
        iat,
        exp: iat + ACCESS_TOKEN_TTL_S,
        auth_time: Math.floor(input.authTime / 1000),
        ...(input.nonce !== undefined ? { nonce: input.nonce } : {}),
        ...(input.accessToken ? { at_hash: halfHash(input.accessToken) } : {}),
        ...(input.code ? { c_hash: halfHash(input.code) } : {}),
      },
    );
  }

  /** What makes an access token this issuer's own (access-token-verifier.ts). */
  get accessTokenRules(): AccessTokenRules {
    return {
      issuer: this.profile.issuer,
      audience: this.profile.accessTokenAudience,
      typ: 'at+jwt',
      keySet: this.profile.keySet,
      requiredClaims: ['jti', 'client_id'],
    };
  }

  /** A valid access token of this issuer (signature, typ, iss, aud, exp), or undefined. */
  verifyAccessToken(
    token: string,
    nowMs: number,
    audience: string | string[] = this.profile.accessTokenAudience,
  ): Promise<AccessTokenClaims | undefined> {
    return verifyAccessTokenJwt<AccessTokenClaims>(this.keys, this.accessTokenRules, token, nowMs, audience);
  }

  /** An ID token this issuer signed for `clientId`, expired or not (RP-initiated logout hints). */
  async verifyIdTokenHint(token: string): Promise<JWTPayload | undefined> {
    try {
      const { payload } = await jwtVerify(token, verifierOf(this.keys, this.profile.keySet, 'RS256'), {
        algorithms: ['RS256'],
        issuer: this.profile.issuer,
        currentDate: new Date(0),
      });
      return payload;
    } catch {
      return undefined;
    }
  }
}
