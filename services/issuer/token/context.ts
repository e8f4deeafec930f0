import type { IssuanceContext, issuanceMachine } from '../../../machines/issuance.ts';
import type { ActorRuntime } from '../../actors/runtime.ts';
import type { Clock } from '../../clock.ts';
import type { VerifiedProof } from '../../dpop/proof.ts';
import type { GrantHandler } from '../../oauth/token/endpoint.ts';
import type { AttestedClient } from '../attestation.ts';
import type { MintOptions, TokenResponse } from './mint.ts';

/** What a grant handler of the issuer's token endpoint is given: the issuer and the checked request. */
export interface IssuerGrantContext {
  offers: ActorRuntime<typeof issuanceMachine>;
  clock: Clock;
  /** The request's client attestation, when it carried one (its PoP jti already spent). */
  attested: AttestedClient | undefined;
  /** The request's DPoP proof at the authorization server, when it carried one. */
  proof: VerifiedProof | undefined;
  recordLapse(offerId: string): Promise<void>;
  requireHaipClient(
    configurationIds: string[],
    attested: AttestedClient | undefined,
    proof: VerifiedProof | undefined,
  ): void;
  mintToken(offerId: string, c: IssuanceContext, options: MintOptions): Promise<TokenResponse | undefined>;
}

export type IssuerGrantHandler = GrantHandler<IssuerGrantContext, TokenResponse>;
