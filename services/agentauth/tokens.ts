import { verifyAccessTokenJwt, type VerifiedAccessToken } from '../oauth/access-token-verifier.ts';
import { jwtVerify, type JWTPayload } from 'jose';
import { signJwt } from '../crypto/jws.ts';
import type { IssuedAssertion } from '../../machines/agent.ts';
import { oauthError } from '../errors.ts';
import { verifierOf, type KeyRing } from '../keys.ts';
import { randomToken, sha256 } from '../crypto/random.ts';
import { ACCESS_TOKEN_LIFETIME_S, ASSERTION_LIFETIME_S, type AgentAuthSettings } from './settings.ts';

export const KEY_SET = 'agentauth';

/** The one description every failed assertion gets: it never says which check failed. */
export const INVALID_ASSERTION = 'The identity assertion is invalid, expired, or already used';

export interface AgentAccessClaims extends VerifiedAccessToken {
  sub: string;
  scope: string;
}

/** Signs and checks identity assertions and agent access tokens (ES256, agentauth key). */
export class AgentTokens {
  constructor(
    private readonly keys: KeyRing,
    private readonly settings: AgentAuthSettings,
  ) {}

  private sign(payload: JWTPayload): string {
    return signJwt(this.keys.signing(KEY_SET, 'ES256'), { typ: 'JWT' }, payload);
  }

  /** A fresh assertion for `agentId`; the log keeps only the jti's hash. */
  async issueAssertion(
    agentId: string,
    claimed: boolean,
    nowMs: number,
    assertionVersion: number,
  ): Promise<{ jwt: string; record: IssuedAssertion }> {
    const iat = Math.floor(nowMs / 1000);
    const jti = randomToken(18);
    const exp = iat + ASSERTION_LIFETIME_S;
    const jwt = this.sign({
      iss: this.settings.issuer,
      sub: agentId,
      aud: this.settings.issuer,
      iat,
      nbf: iat,
      exp,
      jti,
      claimed,
      assertion_version: assertionVersion,
    });
    return { jwt, record: { jtiHash: sha256(jti), exp, nbf: iat } };
  }

  /** Signature, typ, iss, aud, exp and nbf; the single-use rule is the agent machine's. */
  async verifyAssertion(jwt: string, nowMs: number): Promise<{ agentId: string; jtiHash: string }> {
    try {
      const { payload } = await jwtVerify(jwt, verifierOf(this.keys, KEY_SET, 'ES256'), {
        algorithms: ['ES256'],
        typ: 'JWT',
        issuer: this.settings.issuer,
        audience: this.settings.issuer,
        currentDate: new Date(nowMs),
        requiredClaims: ['sub', 'jti', 'exp', 'nbf'],
      });
      return { agentId: payload.sub!, jtiHash: sha256(payload.jti!) };
    } catch {
      throw oauthError('invalid_grant', INVALID_ASSERTION);
    }
  }

  async issueAccessToken(agentId: string, scope: string, nowMs: number): Promise<string> {
    const iat = Math.floor(nowMs / 1000);
    return this.sign({
      iss: this.settings.issuer,
      sub: agentId,
      aud: this.settings.resourceAudience,
      iat,
      exp: iat + ACCESS_TOKEN_LIFETIME_S,
      jti: randomToken(18),
      scope,
      client_id: agentId,
    });
  }

  /** A usable agent access token, or undefined. */
  verifyAccessToken(jwt: string, nowMs: number): Promise<AgentAccessClaims | undefined> {
    return verifyAccessTokenJwt<AgentAccessClaims>(
      this.keys,
      { issuer: this.settings.issuer, audience: this.settings.resourceAudience, typ: 'JWT', keySet: KEY_SET },
      jwt,
      nowMs,
    );
  }
}
