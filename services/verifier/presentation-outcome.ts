import type { JWK } from 'jose';
import type { DisclosedPresentation } from '../../machines/presentation.ts';
import type { StoredCredential } from '../credentials/dcql/types.ts';
import type { StatusChecker } from '../status/check.ts';
import type { References } from '../status/references.ts';
import type { CredentialTrust } from './settings.ts';

/** Everything a presentation is checked against: the request it answers and whom we trust. */
export interface PresentationContext {
  /** The request's client_id (bound into the redirect handover); empty for an unsigned DC API request. */
  clientId: string;
  /** Whom key bindings must name: the client_id, or over the DC API `origin:<origin>` (Appendix A.4). */
  audience: string;
  /** DC API answers: the browser's origin (the mdoc handover is then OpenID4VPDCAPIHandover). */
  origin?: string;
  nonce: string;
  responseUri: string;
  /** direct_post.jwt: the verifier's encryption key, bound into the mdoc handover. */
  encryptionJwk?: JWK;
  now: number;
  trust: CredentialTrust;
  /** Resolves credentials' status references (docs/status.md); without it no status is checked. */
  status?: StatusChecker;
}

/** One verified credential out of a presentation. */
export interface Presented {
  stored: StoredCredential;
  disclosed: DisclosedPresentation;
  /** Its status references, checked once the presentation itself holds. */
  references: References;
  /** What its key binding (SD-JWT VC) or device signature (mdoc) said of transaction data, if anything. */
  transactions?: { hashes: unknown; alg: unknown };
}
export type PresentationOutcome = { ok: true; credentials: Presented[] } | { ok: false; check: string; reason: string };

/** One check the verifier ran on a presentation, and how it went. */
export interface CheckVerdict {
  check: string;
  verdict: 'passed' | 'failed';
}

/** How long a key-binding proof (KB-JWT, VP JWT) may be old. */
export const FRESHNESS_S = 300;
export const fail = (check: string, reason: string): PresentationOutcome => ({ ok: false, check, reason });

/** A codec check name as the result document reports it: a malformed presentation is `vp_token`. */
export const reportedCheck = (check: string, format: string) =>
  check === 'format' ? 'vp_token' : format === 'mso_mdoc' && check === 'signature' ? 'issuer_signature' : check;
