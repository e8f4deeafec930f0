import type { KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { MAX_NESTING, withinNesting } from '../../untrusted/depth.ts';
import { runChecks, type Result, type CheckTrail } from '../result.ts';
import {
  addDataIntegrityProof,
  verifyDataIntegrityProof,
  type Cryptosuite,
  type DataIntegrityCheck,
} from './data-integrity.ts';

type JsonObject = Record<string, unknown>;
export type LdpCheck = DataIntegrityCheck | 'credential_format' | 'validity' | 'issuer' | 'credential';

const isoSeconds = (seconds: number) => new Date(Math.floor(seconds) * 1000).toISOString().replace('.000Z', 'Z');
const idOf = (v: unknown) =>
  typeof v === 'string' ? v : v && typeof v === 'object' ? (v as { id?: unknown }).id : undefined;
/** The controller part of a verification method URL (`did:key:z..#z..` -> `did:key:z..`). */
const controllerOf = (vm: string) => vm.split('#')[0];

export interface SignerKey {
  cryptosuite: Cryptosuite;
  privateKey: CryptoKey | KeyObject;
  verificationMethod: string;
}

/** An `ldp_vc`: the credential secured with a DataIntegrityProof (proofPurpose assertionMethod). */
export function issueLdpVc(
  credential: JsonObject,
  signer: SignerKey,
  now: number,
  extraContexts?: Record<string, unknown>,
): Promise<JsonObject> {
  return addDataIntegrityProof(credential, {
    ...signer,
    proofPurpose: 'assertionMethod',
    created: isoSeconds(now),
    extraContexts,
  });
}

export interface VerifyLdpOptions {
  now: number;
  resolveVerificationMethod?: (url: string) => JWK | Promise<JWK>;
  extraContexts?: Record<string, unknown>;
  /** Where the checks that held are noted, when the caller reports them. */
  trail?: CheckTrail;
}

function checkCredentialShape(trail: CheckTrail, vc: JsonObject, now: number): void {
  trail.ensure(
    Array.isArray(vc.type) && vc.type.includes('VerifiableCredential'),
    'credential_format',
    'type must include VerifiableCredential',
  );
  trail.ensure(
    vc.credentialSubject && typeof vc.credentialSubject === 'object',
    'credential_format',
    'credentialSubject is required',
  );
  trail.ensure(typeof idOf(vc.issuer) === 'string', 'credential_format', 'issuer (or issuer.id) is required');
  const from = vc.validFrom ?? vc.issuanceDate;
  const until = vc.validUntil ?? vc.expirationDate;
  trail.ensure(
    from === undefined || (typeof from === 'string' && Date.parse(from) / 1000 <= now),
    'validity',
    'the credential is not yet valid',
  );
  trail.ensure(
    until === undefined || (typeof until === 'string' && Date.parse(until) / 1000 > now),
    'validity',
    'the credential has expired',
  );
}

/** Verifies an `ldp_vc`: shape, validity period, proof, and that the proof's key belongs to the issuer. */
export function verifyLdpVc(
  vc: JsonObject,
  options: VerifyLdpOptions,
): Promise<Result<{ credential: JsonObject; publicJwk: JWK }, LdpCheck>> {
  return runChecks<{ credential: JsonObject; publicJwk: JWK }, LdpCheck>(options.trail, async (trail: CheckTrail) => {
    trail.ensure(withinNesting(vc), 'credential_format', `the credential nests deeper than ${MAX_NESTING} levels`);
    checkCredentialShape(trail, vc, options.now);
    const result = await verifyDataIntegrityProof(vc, { ...options, trail, expectedProofPurpose: 'assertionMethod' });
    trail.ensure(result.valid, result.valid ? 'proof_signature' : result.check, result.valid ? '' : result.reason);
    trail.ensure(
      controllerOf(result.proof.verificationMethod) === idOf(vc.issuer),
      'issuer',
      'the proof key is not controlled by the credential issuer',
    );
    return { credential: vc, publicJwk: result.publicJwk };
  });
}

/**
 * An `ldp_vc` presentation (OpenID4VP 1.0 Appendix B.1.3.2.4): a VerifiablePresentation holding
 * the credentials, proved with proofPurpose authentication, `challenge` = the request nonce and
 * `domain` = the client_id.
 */
export function createLdpVp(input: {
  credentials: JsonObject[];
  holder: string;
  signer: SignerKey;
  challenge: string;
  domain: string;
  now: number;
  context?: string[];
  extraContexts?: Record<string, unknown>;
}): Promise<JsonObject> {
  const vp = {
    '@context': input.context ?? ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiablePresentation'],
    holder: input.holder,
    verifiableCredential: input.credentials,
  };
  return addDataIntegrityProof(vp, {
    ...input.signer,
    proofPurpose: 'authentication',
    created: isoSeconds(input.now),
    challenge: input.challenge,
    domain: input.domain,
    extraContexts: input.extraContexts,
  });
}

/** Verifies an `ldp_vc` presentation: its proof (challenge, domain, holder key) and each credential. */
export function verifyLdpVp(
  vp: JsonObject,
  options: VerifyLdpOptions & { challenge: string; domain: string },
): Promise<Result<{ credentials: JsonObject[] }, LdpCheck>> {
  return runChecks<{ credentials: JsonObject[] }, LdpCheck>(options.trail, async (trail: CheckTrail) => {
    trail.ensure(withinNesting(vp), 'credential_format', `the presentation nests deeper than ${MAX_NESTING} levels`);
    trail.ensure(
      Array.isArray(vp.type) && vp.type.includes('VerifiablePresentation'),
      'credential_format',
      'type must include VerifiablePresentation',
    );
    const proof = await verifyDataIntegrityProof(vp, { ...options, trail, expectedProofPurpose: 'authentication' });
    trail.ensure(proof.valid, proof.valid ? 'proof_signature' : proof.check, proof.valid ? '' : proof.reason);
    trail.ensure(
      vp.holder === undefined || controllerOf(proof.proof.verificationMethod) === idOf(vp.holder),
      'issuer',
      'the presentation proof key is not controlled by the holder',
    );
    const credentials = (
      Array.isArray(vp.verifiableCredential) ? vp.verifiableCredential : [vp.verifiableCredential]
    ).filter(Boolean) as JsonObject[];
    const { challenge: _challenge, domain: _domain, ...credentialOptions } = options;
    for (const [i, vc] of credentials.entries()) {
      const r = await verifyLdpVc(vc, { ...credentialOptions, trail });
      trail.ensure(r.valid, 'credential', r.valid ? '' : `credential ${i}: ${r.check}: ${r.reason}`);
    }
    return { credentials };
  });
}
