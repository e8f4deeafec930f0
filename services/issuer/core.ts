import type { ResourceGuard } from '../oauth/resource-guard.ts';
import type { IssuerAccessClaims } from './credential-guard.ts';
import type { issuanceMachine } from '../../machines/issuance.ts';
import type { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { VerifiedProof } from '../dpop/proof.ts';
import type { KeyRing } from '../keys.ts';
import type { AttestationTrust } from './attestation.ts';
import type { IssuerPki, IssuerSettings } from './settings.ts';
import type { StatelessValues } from './stateless-values.ts';
import type { ListSigner } from '../status/signers.ts';

export interface PresentedRequest {
  method: string;
  url: string;
  authorization?: string;
  dpop?: string | string[];
  /** `x-fapi-interaction-id`, when the wallet sent one (a UUID). */
  interactionId?: string;
  /** `OAuth-Client-Attestation` and `OAuth-Client-Attestation-PoP` headers. */
  clientAttestation?: string | string[];
  clientAttestationPop?: string | string[];
}

/** Where issued credentials get their status slots, and the URLs the slots are written as. */
export interface StatusSlots {
  /** A slot in a list signed by `signer`: the key that signs the credential (services/status/signers.ts). */
  allocate(signer: ListSigner): Promise<{ listId: string; idx: number }>;
  tokenUri(listId: string): string;
  bitstringUrl(purpose: 'revocation' | 'suspension', listId: string): string;
}

export type DemoUser = { id: string; claims: Record<string, unknown> };

/** What the issuer's endpoint modules (offers, credential, deferred, notification) use of the issuer. */
export interface IssuerCore {
  readonly offers: ActorRuntime<typeof issuanceMachine>;
  readonly keys: KeyRing;
  readonly pki: IssuerPki;
  readonly settings: IssuerSettings;
  readonly clock: Clock;
  readonly users: ReadonlyMap<string, DemoUser>;
  /** c_nonces and attestation challenges. */
  readonly values: StatelessValues;
  /** Credential status (docs/status.md): each credential issued gets a slot. */
  readonly statusSlots: StatusSlots;
  attestationTrust(): AttestationTrust;
  /** A DPoP proof at the issuer's authorization server (PAR): verified, nonce when required, single use. */
  dpop(request: PresentedRequest): Promise<VerifiedProof | undefined>;
  /** The guard of the credential, deferred and notification endpoints (credential-guard.ts). */
  readonly resource: ResourceGuard<IssuerAccessClaims, DemoUser>;
  recordLapse(offerId: string): Promise<void>;
}
