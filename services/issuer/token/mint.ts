import type { IssuanceContext, issuanceMachine } from '../../../machines/issuance.ts';
import type { ActorRuntime } from '../../actors/runtime.ts';
import type { Clock } from '../../clock.ts';
import { signJwt } from '../../crypto/jws.ts';
import { randomToken } from '../../crypto/random.ts';
import type { VerifiedProof } from '../../dpop/proof.ts';
import type { KeyRing } from '../../keys.ts';
import type { AttestedClient } from '../attestation.ts';
import { hash } from '../request-rules.ts';
import { TOKEN_TTL_S, type IssuerSettings } from '../settings.ts';

const KEY_SET = 'oid4vci';

export interface MintDeps {
  keys: KeyRing;
  settings: IssuerSettings;
  clock: Clock;
  offers: ActorRuntime<typeof issuanceMachine>;
}

export interface MintOptions {
  proof?: VerifiedProof;
  clientId?: string;
  attested?: AttestedClient;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'DPoP' | 'Bearer';
  expires_in: number;
  scope: string;
  authorization_details?: Array<{
    type: string;
    credential_configuration_id: string;
    credential_identifiers: string[];
  }>;
}

/**
 * An access token for the offer (at+jwt, ES256, aud = issuer, cnf.jkt when DPoP-bound), recorded as
 * the token_issued transition; undefined when that transition was refused (code already used).
 * With authorization_details the token carries credential_identifiers (`<configuration>#1`).
 */
export async function mintAccessToken(
  deps: MintDeps,
  offerId: string,
  c: IssuanceContext,
  options: MintOptions,
): Promise<TokenResponse | undefined> {
  const at = deps.clock.now();
  const scope = c.configurationIds.map((id) => deps.settings.configurations.get(id)!.scope).join(' ');
  const identifiers = c.par?.authorizationDetails
    ? c.configurationIds.map((id) => ({
        type: 'openid_credential',
        credential_configuration_id: id,
        credential_identifiers: [`${id}#1`],
      }))
    : undefined;
  const iat = Math.floor(at / 1000);
  const token = signJwt(
    deps.keys.signing(KEY_SET, 'ES256'),
    { typ: 'at+jwt' },
    {
      iss: deps.settings.issuer,
      aud: deps.settings.issuer,
      sub: c.user,
      iat,
      exp: iat + TOKEN_TTL_S,
      jti: randomToken(16),
      scope,
      issuance: offerId,
      ...(options.clientId ? { client_id: options.clientId } : {}),
      ...(identifiers ? { authorization_details: identifiers } : {}),
      ...(options.proof ? { cnf: { jkt: options.proof.jkt } } : {}),
    },
  );
  const outcome = await deps.offers.execute(offerId, {
    type: 'issuance.token_issued',
    at,
    token_hash: hash(token),
    token_type: options.proof ? 'DPoP' : 'Bearer',
    ...(options.proof ? { dpop_jkt: options.proof.jkt } : {}),
    ...(options.clientId ? { client_id: options.clientId } : {}),
    scope,
    ...(options.attested ? { attested: true, challenge_used: options.attested.challengeUsed } : {}),
  });
  if (!outcome.accepted) return undefined;
  return {
    access_token: token,
    token_type: options.proof ? 'DPoP' : 'Bearer',
    expires_in: TOKEN_TTL_S,
    scope,
    ...(identifiers ? { authorization_details: identifiers } : {}),
  };
}
