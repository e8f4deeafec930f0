import { SignJWT, jwtVerify, type JWTPayload } from 'jose';
import type { IssuedAssertion } from '../../machines/agent.ts';
import { OAuthError } from '../errors.ts';
import type { KeyRing } from '../keys.ts';
import { randomToken, sha256 } from '../crypto/random.ts';
import { ACCESS_TOKEN_LIFETIME_S, ASSERTION_LIFETIME_S, type AgentAuthSettings } from './settings.ts';

export const KEY_SET = 'agentauth';

/** The one description every failed assertion gets: it never says which check failed. */
export const INVALID_ASSERTION = 'The identity assertion is invalid, expired, or already used';

export interface AgentAccessClaims extends JWTPayload {
  sub: string;
  scope: string;
}

/** Signs and checks identity assertions and agent access tokens (ES256, agentauth key). */
export class AgentTokens {
  constructor(
    private readonly keys: KeyRing,
    private readonly settings: AgentAuthSettings,
  ) {}

  private sign(payload: JWTPayload): SignJWT {
    const key = this.keys.signing(KEY_SET, 'ES256');
    return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' });
  }

  /** A fresh assertion for `agentId`; the log keeps only the jti's hash. */
  async issueAssertion(agentId: string, claimed: boolean, nowMs: number, assertionVersion: number): Promise<{ jwt: string; record: IssuedAssertion }> {
    const iat = Math.floor(nowMs / 1000);
    const jti = randomToken(18);
    const exp = iat + ASSERTION_LIFETIME_S;
    const jwt = await this.sign({ claimed, assertion_version: assertionVersion })
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.issuer)
      .setSubject(agentId)
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(exp)
      .setJti(jti)
      .sign(this.keys.signing(KEY_SET, 'ES256').privateKey);
    return { jwt, record: { jtiHash: sha256(jti), exp, nbf: iat } };
  }

  /** Signature, typ, iss, aud, exp and nbf; the single-use rule is the agent machine's. */
  async verifyAssertion(jwt: string, nowMs: number): Promise<{ agentId: string; jtiHash: string }> {
    try {
      const { payload } = await jwtVerify(jwt, this.keys.signing(KEY_SET, 'ES256').publicKey, {
        algorithms: ['ES256'],
        typ: 'JWT',
        issuer: this.settings.issuer,
        audience: this.settings.issuer,
        currentDate: new Date(nowMs),
        requiredClaims: ['sub', 'jti', 'exp', 'nbf'],
      });
      return { agentId: payload.sub!, jtiHash: sha256(payload.jti!) };
    } catch {
      throw new OAuthError('invalid_grant', INVALID_ASSERTION);
    }
  }

  async issueAccessToken(agentId: string, scope: string, nowMs: number): Promise<string> {
    const iat = Math.floor(nowMs / 1000);
    return this.sign({ scope, client_id: agentId })
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.resourceAudience)
      .setSubject(agentId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ACCESS_TOKEN_LIFETIME_S)
      .setJti(randomToken(18))
      .sign(this.keys.signing(KEY_SET, 'ES256').privateKey);
  }

  /** A usable agent access token, or undefined. */
  async verifyAccessToken(jwt: string, nowMs: number): Promise<AgentAccessClaims | undefined> {
    try {
      const { payload } = await jwtVerify(jwt, this.keys.signing(KEY_SET, 'ES256').publicKey, {
        algorithms: ['ES256'],
        typ: 'JWT',
        issuer: this.settings.issuer,
        audience: this.settings.resourceAudience,
        currentDate: new Date(nowMs),
        requiredClaims: ['sub', 'exp'],
      });
      return typeof payload.scope === 'string' ? (payload as AgentAccessClaims) : undefined;
    } catch {
      return undefined;
    }
  }
}
