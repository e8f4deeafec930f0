import type { CheckTrail } from '../result.ts';
import type { JWK } from 'jose';
import type { KeyAuthorizations } from './device-signed.ts';

/** The named checks of mdoc verification (decisions §9 reason names). */
export type MdocCheck = 'format' | 'chain' | 'signature' | 'digest' | 'validity' | 'doctype' | 'device_authentication';

export interface VerifyIssuerSignedOptions {
  /** Trusted IACA roots (DER or PEM), e.g. WALLET_MDOC_IACA_ROOT_PEM. */
  trustedRoots: (Uint8Array | string)[];
  /** Verification time, seconds since the epoch. */
  now: number;
  expectedDocType?: string;
  /** Where the checks that held are noted, when the caller reports them. */
  trail?: CheckTrail;
}

export interface VerifiedMdoc {
  docType: string;
  /** Released element values per namespace (CBOR values as decoded: tags stay `Tag`, bytes stay Uint8Array). */
  claims: Record<string, Record<string, unknown>>;
  deviceKey: JWK;
  validity: { signed: number; validFrom: number; validUntil: number };
  /** The MSO's `status` (draft-ietf-oauth-status-list §6.3), as decoded, when it has one. */
  status?: unknown;
  signer: { subject: string; issuer: string };
  /** Device-signed elements per namespace (a DeviceResponse's, each authorized by the MSO's keyAuthorizations). */
  deviceSigned?: Record<string, Record<string, unknown>>;
  /** What the MSO lets the device sign (ISO 18013-5 §9.1.2.4): whole namespaces, or elements of one. */
  keyAuthorizations?: KeyAuthorizations;
}
