import { CLOCK_SKEW_S, failedTimeClaim, isFreshIssuedAt } from '../crypto/time-claims.ts';
import { X509Certificate } from 'node:crypto';
import { calculateJwkThumbprint, compactVerify, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { publicJwkOf } from '../credentials/keys/index.ts';
import { validateX5c } from '../credentials/x509/index.ts';
import { OAuthError, oauthError } from '../errors.ts';
import type { KeyAttestationsRequired } from './settings.ts';

/**
 * Attestations of HAIP (decisions section 8), one named rule each: the OAuth client attestation and
 * its proof of possession (draft-ietf-oauth-attestation-based-client-auth) as client authentication,
 * and key attestations (OpenID4VCI 1.0 Appendix D) inside key proofs. Attestations are trusted when
 * their `x5c` leads to the demo attester CA (or OID4VCI_ATTESTATION_TRUST_ANCHOR_PEM).
 */
/** How old a client attestation PoP may be (its `iat`); the future is bounded by the service's clock skew. */
const POP_MAX_AGE_S = 300;
const invalidClient = (description: string) => oauthError('invalid_client', description);
const invalidProof = (description: string) => oauthError('invalid_proof', description);

export interface AttestationTrust {
  issuer: string;
  trustAnchors: string[];
  nowMs: number;
  /** Records a value as used; false when it was seen before. */
  useOnce(purpose: string, value: string): Promise<boolean>;
  /** Spends an attestation_challenge from the challenge endpoint; false when unknown, expired or used. */
  spendChallenge(challenge: string): Promise<boolean>;
}

export interface AttestedClient {
  clientId: string;
  challengeUsed: boolean;
}

function decoded(
  jwt: string,
  fail: (d: string) => OAuthError,
): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  try {
    return {
      header: decodeProtectedHeader(jwt) as Record<string, unknown>,
      claims: decodeJwt(jwt) as Record<string, unknown>,
    };
  } catch {
    throw fail('not a compact JWS');
  }
}

/** A JWT signed by the leaf of an `x5c` that chains to a trust anchor; returns its claims. */
async function verifyAttesterSigned(
  jwt: string,
  types: string[],
  trust: AttestationTrust,
  fail: (d: string) => OAuthError,
  what: string,
) {
  const { header, claims } = decoded(jwt, fail);
  if (typeof header.typ !== 'string' || !types.includes(header.typ)) throw fail(`${what}: typ must be ${types[0]}`);
  if (header.alg !== 'ES256') throw fail(`${what}: alg must be ES256`);
  const chain = await validateX5c(header.x5c, {
    trustAnchors: trust.trustAnchors,
    now: Math.floor(trust.nowMs / 1000),
  });
  if (!chain.valid) throw fail(`${what}: the x5c does not lead to a trusted attester (${chain.reason})`);
  try {
    await compactVerify(jwt, (chain.leaf as X509Certificate).publicKey);
  } catch {
    throw fail(`${what}: the signature does not verify with the attester certificate`);
  }
  if (typeof claims.exp !== 'number') throw fail(`${what}: exp is required`);
  const late = failedTimeClaim(claims, trust.nowMs / 1000);
  if (late === 'exp') throw fail(`${what}: expired`);
  if (late) throw fail(`${what}: ${late} is in the future (clock skew ${CLOCK_SKEW_S} s)`);
  return claims;
}

/** The client attestation: by a trusted attester, for `sub` = the client, with the client key in cnf.jwk. */
async function checkClientAttestationJwt(
  jwt: string,
  trust: AttestationTrust,
): Promise<{ clientId: string; cnf: JWK }> {
  const claims = await verifyAttesterSigned(
    jwt,
    ['oauth-client-attestation+jwt'],
    trust,
    invalidClient,
    'client attestation',
  );
  if (typeof claims.sub !== 'string' || claims.sub === '')
    throw invalidClient('client attestation: sub (the client_id) is required');
  const cnf = (claims.cnf as { jwk?: JWK } | undefined)?.jwk;
  if (!cnf || typeof cnf !== 'object') throw invalidClient('client attestation: cnf.jwk is required');
  try {
    return { clientId: claims.sub, cnf: publicJwkOf(cnf) };
  } catch {
    throw invalidClient('client attestation: cnf.jwk is not a public key');
  }
}

/**
 * The PoP: signed with cnf.jwk, `iss` the client, `aud` the issuer, `iat` within ±300 s; its `jti` is
 * spent on first sight (before any later check of the request), and a `challenge` (or the legacy
 * `nonce`) must be an unused attestation_challenge.
 */
async function checkClientAttestationPop(
  jwt: string,
  client: { clientId: string; cnf: JWK },
  trust: AttestationTrust,
): Promise<{ challengeUsed: boolean }> {
  const { header, claims } = decoded(jwt, invalidClient);
  if (header.typ !== 'oauth-client-attestation-pop+jwt')
    throw invalidClient('client attestation PoP: typ must be oauth-client-attestation-pop+jwt');
  try {
    await compactVerify(jwt, await importJWK(client.cnf, String(header.alg)));
  } catch {
    throw invalidClient('client attestation PoP: the signature does not verify with cnf.jwk of the attestation');
  }
  if (typeof claims.jti !== 'string' || claims.jti === '')
    throw invalidClient('client attestation PoP: jti is required');
  if (!(await trust.useOnce('attestation-pop-jti', `${client.clientId}:${claims.jti}`)))
    throw invalidClient('client attestation PoP: jti was already used');
  if (claims.iss !== client.clientId) throw invalidClient('client attestation PoP: iss must be the attested client');
  const aud = claims.aud;
  if (!(aud === trust.issuer || (Array.isArray(aud) && aud.includes(trust.issuer))))
    throw invalidClient('client attestation PoP: aud must be the issuer');
  const now = trust.nowMs / 1000;
  if (!isFreshIssuedAt(claims.iat, now, POP_MAX_AGE_S) || failedTimeClaim(claims, now))
    throw invalidClient(
      `client attestation PoP: iat is missing, older than ${POP_MAX_AGE_S} s or in the future, or exp/nbf is out of range (clock skew ${CLOCK_SKEW_S} s)`,
    );
  const challenge = claims.challenge ?? claims.nonce;
  if (challenge === undefined) return { challengeUsed: false };
  if (typeof challenge !== 'string' || !(await trust.spendChallenge(challenge)))
    throw invalidClient('client attestation PoP: the challenge is unknown, expired or used');
  return { challengeUsed: true };
}

/** Both headers, in the order the rules need them. */
export async function checkClientAttestation(
  attestation: unknown,
  pop: unknown,
  trust: AttestationTrust,
): Promise<AttestedClient> {
  if (typeof attestation !== 'string' || typeof pop !== 'string')
    throw invalidClient('Send OAuth-Client-Attestation and OAuth-Client-Attestation-PoP together');
  const client = await checkClientAttestationJwt(attestation, trust);
  const { challengeUsed } = await checkClientAttestationPop(pop, client, trust);
  return { clientId: client.clientId, challengeUsed };
}

export interface AttestedKeyLevels {
  key_storage: string[];
  user_authentication: string[];
}

/** A key attestation in a proof: trusted, not expired, for the c_nonce, listing the proof key, at the required levels. */
export async function checkKeyAttestation(
  jwt: unknown,
  input: { proofJwk: JWK; cNonce: string; required: KeyAttestationsRequired; trust: AttestationTrust },
): Promise<AttestedKeyLevels> {
  if (typeof jwt !== 'string') throw invalidProof('This configuration needs a key_attestation in the proof header');
  const claims = await verifyAttesterSigned(
    jwt,
    ['key-attestation+jwt', 'keyattestation+jwt'],
    input.trust,
    invalidProof,
    'key attestation',
  );
  if (claims.nonce !== undefined && claims.nonce !== input.cNonce)
    throw invalidProof('key attestation: nonce is not the c_nonce of the request');
  const attested = Array.isArray(claims.attested_keys) ? (claims.attested_keys as JWK[]) : [];
  const wanted = await calculateJwkThumbprint(publicJwkOf(input.proofJwk));
  const thumbprints = await Promise.all(attested.map((k) => calculateJwkThumbprint(publicJwkOf(k)).catch(() => '')));
  if (!thumbprints.includes(wanted)) throw invalidProof('key attestation: the proof key is not among attested_keys');
  const levels: AttestedKeyLevels = {
    key_storage: Array.isArray(claims.key_storage) ? (claims.key_storage as string[]) : [],
    user_authentication: Array.isArray(claims.user_authentication) ? (claims.user_authentication as string[]) : [],
  };
  for (const dimension of ['key_storage', 'user_authentication'] as const) {
    const required = input.required[dimension];
    if (required && !required.some((level) => levels[dimension].includes(level)))
      throw invalidProof(`key attestation: ${dimension} does not meet ${required.join(' or ')}`);
  }
  return levels;
}
