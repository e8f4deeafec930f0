import type { IssuanceContext, issuanceMachine } from '../../../machines/issuance.ts';
import type { ActorRuntime } from '../../actors/runtime.ts';
import type { Clock } from '../../clock.ts';
import type { VerifiedProof } from '../../dpop/proof.ts';
import type { AttestedClient } from '../attestation.ts';
import type { PresentedRequest } from '../service.ts';
import type { MintOptions, TokenResponse } from './mint.ts';

/** What a grant handler of the issuer's token endpoint uses. */
export interface GrantContext {
  offers: ActorRuntime<typeof issuanceMachine>;
  clock: Clock;
  /** The client attestation of the request, when it carries one (its PoP jti spent on first sight). */
  attestedClient(request: PresentedRequest): Promise<AttestedClient | undefined>;
  /** The DPoP proof at the AS side; a nonce challenge it answers is recorded on the offer, when known. */
  dpop(offerId: string | undefined, request: PresentedRequest): Promise<VerifiedProof | undefined>;
  recordLapse(offerId: string): Promise<void>;
  requireHaipClient(
    configurationIds: string[],
    attested: AttestedClient | undefined,
    proof: VerifiedProof | undefined,
  ): void;
  mintToken(offerId: string, c: IssuanceContext, options: MintOptions): Promise<TokenResponse | undefined>;
}

export type GrantHandler = (
  ctx: GrantContext,
  form: Record<string, string | undefined>,
  request: PresentedRequest,
) => Promise<TokenResponse>;
