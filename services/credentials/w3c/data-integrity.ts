import { KeyObject, createPublicKey, sign, verify } from 'node:crypto';
import type { JWK } from 'jose';
import { concatBytes, sha256, utf8 } from '../bytes.ts';
import { multibaseDecode, multibaseEncode } from '../keys/base58.ts';
import { DidResolutionError } from '../keys/did-document.ts';
import { resolveDid, resolveVerificationKey } from '../keys/resolve.ts';
import { CheckFailed, runChecks, type Result, type CheckTrail } from '../result.ts';
import { canonizeJsonLd } from './canonize.ts';
import { DATA_INTEGRITY_V2_CONTEXT, VC_V2_CONTEXT, createDocumentLoader } from './document-loader.ts';

export type Cryptosuite = 'ecdsa-rdfc-2019' | 'eddsa-rdfc-2022';
export type DataIntegrityCheck =
  | 'proof_format'
  | 'cryptosuite'
  | 'context'
  | 'verification_method'
  | 'proof_purpose'
  | 'canonicalization'
  | 'proof_signature'
  | 'challenge'
  | 'domain'
  | 'proof_time';

export interface DataIntegrityProof {
  type: 'DataIntegrityProof';
  cryptosuite: Cryptosuite;
  created?: string;
  expires?: string;
  verificationMethod: string;
  proofPurpose: string;
  challenge?: string;
  domain?: string;
  proofValue: string;
}

type JsonObject = Record<string, unknown>;

const SUITES: Record<Cryptosuite, { kty: string; crv: string; hash: string | null }> = {
  'ecdsa-rdfc-2019': { kty: 'EC', crv: 'P-256', hash: 'sha256' },
  'eddsa-rdfc-2022': { kty: 'OKP', crv: 'Ed25519', hash: null },
};

const contextsOf = (doc: JsonObject) =>
  Array.isArray(doc['@context'])
    ? (doc['@context'] as unknown[])
    : doc['@context'] === undefined
      ? []
      : [doc['@context']];

/** Adds the Data Integrity v2 context when the document's contexts do not define DataIntegrityProof. */
function withDataIntegrityContext(doc: JsonObject): JsonObject {
  const contexts = contextsOf(doc);
  if (contexts.includes(VC_V2_CONTEXT) || contexts.includes(DATA_INTEGRITY_V2_CONTEXT)) return doc;
  return { ...doc, '@context': [...contexts, DATA_INTEGRITY_V2_CONTEXT] };
}

/**
 * The bytes a proof signs (vc-di-ecdsa / vc-di-eddsa "hashing"): SHA-256 of the canonical proof
 * configuration (the proof without `proofValue`, carrying the document's `@context`), followed by
 * SHA-256 of the canonical document without its proof.
 */
async function hashData(
  unsecured: JsonObject,
  proofConfig: JsonObject,
  extraContexts: Record<string, unknown>,
): Promise<Uint8Array> {
  const loader = createDocumentLoader(extraContexts);
  let canonicalDocument: string;
  let canonicalProof: string;
  try {
    canonicalDocument = await canonizeJsonLd(unsecured, loader);
    canonicalProof = await canonizeJsonLd({ ...proofConfig, '@context': unsecured['@context'] }, loader);
  } catch (error) {
    throw new CheckFailed('canonicalization', (error as Error).message);
  }
  return concatBytes(sha256(utf8(canonicalProof)), sha256(utf8(canonicalDocument)));
}

export interface ProofOptions {
  cryptosuite: Cryptosuite;
  privateKey: CryptoKey | KeyObject;
  /** A DID URL (e.g. did:key:z...#z...) or any URL the verifier can resolve to the public key. */
  verificationMethod: string;
  proofPurpose?: 'assertionMethod' | 'authentication';
  /** ISO date-time of creation (whole seconds). */
  created: string;
  expires?: string;
  challenge?: string;
  domain?: string;
  extraContexts?: Record<string, unknown>;
}

/** Secures `document` with a DataIntegrityProof (`ecdsa-rdfc-2019` on P-256, `eddsa-rdfc-2022` on Ed25519). */
export async function addDataIntegrityProof(document: JsonObject, options: ProofOptions): Promise<JsonObject> {
  const { proof: _existing, ...rest } = document;
  const unsecured = withDataIntegrityContext(rest);
  const proofConfig: JsonObject = {
    type: 'DataIntegrityProof',
    cryptosuite: options.cryptosuite,
    created: options.created,
    ...(options.expires ? { expires: options.expires } : {}),
    verificationMethod: options.verificationMethod,
    proofPurpose: options.proofPurpose ?? 'assertionMethod',
    ...(options.challenge !== undefined ? { challenge: options.challenge } : {}),
    ...(options.domain !== undefined ? { domain: options.domain } : {}),
  };
  const data = await hashData(unsecured, proofConfig, options.extraContexts ?? {});
  const key = options.privateKey instanceof KeyObject ? options.privateKey : KeyObject.from(options.privateKey);
  const signature = sign(SUITES[options.cryptosuite].hash, data, { key, dsaEncoding: 'ieee-p1363' });
  return { ...unsecured, proof: { ...proofConfig, proofValue: multibaseEncode(new Uint8Array(signature)) } };
}

export interface VerifyProofOptions {
  expectedProofPurpose: 'assertionMethod' | 'authentication';
  /** Resolves a non-DID verification method to its public JWK (DID URLs resolve offline by default). */
  resolveVerificationMethod?: (url: string) => JWK | Promise<JWK>;
  challenge?: string;
  domain?: string;
  /** Seconds since the epoch, for `expires`. */
  now: number;
  extraContexts?: Record<string, unknown>;
  /** Where the checks that held are noted, when the caller reports them. */
  trail?: CheckTrail;
}

async function keyFor(trail: CheckTrail, vm: string, purpose: string, options: VerifyProofOptions): Promise<JWK> {
  try {
    if (vm.startsWith('did:')) {
      const doc = resolveDid(vm);
      // The verification relationships a proof purpose may name (DID Core §5.3).
      const relationships: Record<string, string[] | undefined> = {
        authentication: doc.authentication,
        assertionMethod: doc.assertionMethod,
        capabilityInvocation: doc.capabilityInvocation,
        capabilityDelegation: doc.capabilityDelegation,
        keyAgreement: doc.keyAgreement,
      };
      const related = Object.hasOwn(relationships, purpose) ? relationships[purpose] : undefined;
      trail.ensure(
        Array.isArray(related) && related.includes(vm),
        'verification_method',
        `${vm} is not listed under ${purpose} in its DID document`,
      );
      return resolveVerificationKey(vm);
    }
    trail.ensure(options.resolveVerificationMethod, 'verification_method', `cannot resolve verification method ${vm}`);
    return await options.resolveVerificationMethod(vm);
  } catch (error) {
    if (error instanceof CheckFailed) throw error;
    throw new CheckFailed(
      'verification_method',
      error instanceof DidResolutionError ? error.message : `cannot resolve ${vm}: ${(error as Error).message}`,
    );
  }
}

/** Verifies the (single) DataIntegrityProof of `document`; the result names the failing check. */
export function verifyDataIntegrityProof(
  document: JsonObject,
  options: VerifyProofOptions,
): Promise<Result<{ proof: DataIntegrityProof; publicJwk: JWK }, DataIntegrityCheck>> {
  return runChecks(options.trail, async (trail: CheckTrail) => {
    const { proof, ...unsecured } = document;
    trail.ensure(
      proof && typeof proof === 'object' && !Array.isArray(proof),
      'proof_format',
      'the document needs exactly one proof object',
    );
    const p = proof as JsonObject;
    trail.ensure(
      p.type === 'DataIntegrityProof',
      'proof_format',
      `proof type ${JSON.stringify(p.type)} is not DataIntegrityProof`,
    );
    trail.ensure(
      typeof p.cryptosuite === 'string' && p.cryptosuite in SUITES,
      'cryptosuite',
      `unsupported cryptosuite ${JSON.stringify(p.cryptosuite)}`,
    );
    trail.ensure(
      typeof p.proofValue === 'string' &&
        typeof p.verificationMethod === 'string' &&
        typeof p.proofPurpose === 'string',
      'proof_format',
      'proofValue, verificationMethod and proofPurpose must be strings',
    );
    trail.ensure(
      p.created === undefined || (typeof p.created === 'string' && !Number.isNaN(Date.parse(p.created))),
      'proof_format',
      'created must be a date-time',
    );
    const contexts = contextsOf(unsecured);
    trail.ensure(
      contexts.includes(VC_V2_CONTEXT) ||
        contexts.includes(DATA_INTEGRITY_V2_CONTEXT) ||
        contexts.includes('https://w3id.org/security/data-integrity/v1'),
      'context',
      'the document @context does not define DataIntegrityProof',
    );
    trail.ensure(
      p.proofPurpose === options.expectedProofPurpose,
      'proof_purpose',
      `proofPurpose ${String(p.proofPurpose)} is not ${options.expectedProofPurpose}`,
    );
    trail.ensure(
      options.challenge === undefined || p.challenge === options.challenge,
      'challenge',
      'the proof challenge is not the expected nonce',
    );
    trail.ensure(
      options.domain === undefined || p.domain === options.domain,
      'domain',
      'the proof domain is not the expected client_id',
    );
    trail.ensure(
      p.expires === undefined || (typeof p.expires === 'string' && Date.parse(p.expires) / 1000 > options.now),
      'proof_time',
      'the proof has expired',
    );
    const suite = SUITES[p.cryptosuite as Cryptosuite];
    const jwk = await keyFor(trail, p.verificationMethod as string, p.proofPurpose as string, options);
    trail.ensure(
      jwk.kty === suite.kty && jwk.crv === suite.crv,
      'verification_method',
      `${p.cryptosuite} needs a ${suite.crv} key, the verification method is ${String(jwk.crv ?? jwk.kty)}`,
    );
    let signature: Uint8Array;
    try {
      signature = multibaseDecode(p.proofValue as string);
    } catch (error) {
      throw new CheckFailed('proof_format', `proofValue: ${(error as Error).message}`);
    }
    const { proofValue: _value, ...proofConfig } = p;
    const data = await hashData(unsecured, proofConfig, options.extraContexts ?? {});
    const ok = verify(
      suite.hash,
      data,
      {
        key: createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' }),
        dsaEncoding: 'ieee-p1363',
      },
      signature,
    );
    trail.ensure(
      ok,
      'proof_signature',
      'the proof signature does not verify over the canonical document and proof configuration',
    );
    return { proof: checkedProof(p), publicJwk: jwk };
  });
}

/** A proof whose members the checks above held: read into its type, each optional member only when a string. */
function checkedProof(p: JsonObject): DataIntegrityProof {
  const text = (name: string) => (typeof p[name] === 'string' ? { [name]: p[name] as string } : {});
  return {
    type: 'DataIntegrityProof',
    cryptosuite: p.cryptosuite as Cryptosuite,
    verificationMethod: p.verificationMethod as string,
    proofPurpose: p.proofPurpose as string,
    proofValue: p.proofValue as string,
    ...text('created'),
    ...text('expires'),
    ...text('challenge'),
    ...text('domain'),
  };
}
