import { memberAt, type JsonObject } from '../../untrusted/json.ts';
import { SignJWT, importJWK, type JWK } from 'jose';
import { keyProofHeader, keyProofPayload, signKeyProof } from '../../issuer/proofs.ts';
import { generateHolderKey, publicJwkOf, type KeyPair } from '../../credentials/keys/index.ts';
import { randomToken } from '../../crypto/random.ts';
import type { ExchangeRecorder } from '../exchange.ts';
import type { WalletSettings } from '../settings.ts';

/** The wallet's own cap on a batch (decisions section 10): min(batch_size, 3). */
export const WALLET_BATCH_CAP = 3;
const KEY_ATTESTATION_TTL_S = 300;

/** How many proofs to send (spec wallet behaviour 5): one, or min(batch_size, 3) when the issuer offers batches. */
export function proofCount(metadata: JsonObject): number {
  const size = memberAt(metadata, 'batch_credential_issuance', 'batch_size');
  return typeof size === 'number' && Number.isInteger(size) && size > 1 ? Math.min(size, WALLET_BATCH_CAP) : 1;
}

/** Pairwise-distinct proof keys: the key the credential must be bound to first, then fresh ones. */
export async function proofKeys(primary: KeyPair, count: number): Promise<KeyPair[]> {
  const keys = [primary];
  while (keys.length < count) keys.push(await generateHolderKey('ES256', { extractable: false }));
  return keys;
}

const attesterKey = async (jwk: JWK) => importJWK({ ...jwk, alg: 'ES256' }, 'ES256');
const x5cOf = (jwk: JWK) => (Array.isArray(jwk.x5c) ? jwk.x5c : undefined);

/** One key attestation (OpenID4VCI 1.0 Appendix D) listing every proof key of the request (spec wallet behaviour 5). */
export async function keyAttestation(
  settings: WalletSettings,
  keys: KeyPair[],
  nonce: string | undefined,
  nowS: number,
): Promise<string> {
  const jwk = settings.keyAttestationJwk!;
  return new SignJWT({
    iss: settings.clientAttestationIssuer,
    iat: nowS,
    exp: nowS + KEY_ATTESTATION_TTL_S,
    attested_keys: keys.map((k) => publicJwkOf(k.publicJwk)),
    key_storage: settings.keyAttestationKeyStorage,
    user_authentication: settings.keyAttestationUserAuthentication,
    ...(nonce ? { nonce } : {}),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'key-attestation+jwt', ...(x5cOf(jwk) ? { x5c: x5cOf(jwk) } : {}) })
    .sign(await attesterKey(jwk));
}

/**
 * JWT key proofs (OpenID4VCI 1.0 Appendix F.1), one per key: `aud` the credential issuer, the
 * c_nonce, `iss` the client id except for anonymous pre-authorized access, the key attestation in the
 * header when there is one. Each is explained in `_looking_glass_events`.
 */
export async function keyProofs(input: {
  keys: KeyPair[];
  audience: string;
  nonce?: string;
  clientId?: string;
  keyAttestation?: string;
  nowS: number;
  recorder: ExchangeRecorder;
}): Promise<string[]> {
  const proofs: string[] = [];
  for (const [index, key] of input.keys.entries()) {
    const proofKey = { alg: key.alg, privateKey: key.privateKey, publicJwk: publicJwkOf(key.publicJwk) };
    const claims = {
      aud: input.audience,
      iat: input.nowS,
      ...(input.nonce ? { nonce: input.nonce } : {}),
      ...(input.clientId ? { iss: input.clientId } : {}),
    };
    const header = keyProofHeader(proofKey, input.keyAttestation);
    const payload = keyProofPayload(claims);
    proofs.push(await signKeyProof(proofKey, claims, input.keyAttestation));
    input.recorder.explain({
      kind: 'openid4vci-proof+jwt',
      header: {
        ...header,
        ...(input.keyAttestation ? { key_attestation: '(key attestation JWT listing every proof key)' } : {}),
      },
      payload,
      why: `${index === 0 ? 'The key the credential will be bound to' : `Batch key ${index + 1}, distinct from the others`}: aud is the credential issuer, nonce the c_nonce${input.clientId ? ', iss the client id' : ' (no iss: anonymous pre-authorized access)'}`,
    });
  }
  return proofs;
}

/**
 * HAIP client attestation (draft-ietf-oauth-attestation-based-client-auth): an attestation of the
 * wallet instance key, minted once per exchange, and a PoP per request with a fresh `jti` and, when
 * the AS has a challenge endpoint, its `attestation_challenge` (spec wallet behaviour 2).
 */
export async function clientAttestation(settings: WalletSettings, instance: KeyPair, nowS: number): Promise<string> {
  const jwk = settings.clientAttestationAttesterJwk!;
  return new SignJWT({
    iss: settings.clientAttestationIssuer,
    sub: settings.attestedClientId,
    iat: nowS,
    exp: nowS + 3600,
    cnf: { jwk: publicJwkOf(instance.publicJwk) },
  })
    .setProtectedHeader({
      alg: 'ES256',
      typ: 'oauth-client-attestation+jwt',
      ...(x5cOf(jwk) ? { x5c: x5cOf(jwk) } : {}),
    })
    .sign(await attesterKey(jwk));
}

export async function clientAttestationPop(
  instance: KeyPair,
  clientId: string,
  audience: string,
  challenge: string | undefined,
  nowS: number,
): Promise<string> {
  // exp is optional in the PoP of the attestation draft HAIP 1.0 cites; authorization servers built on
  // earlier drafts (e.g. @openid4vc/oauth2 0.4.x) require it, and a short one costs nothing.
  return new SignJWT({
    iss: clientId,
    aud: audience,
    jti: randomToken(16),
    iat: nowS,
    exp: nowS + 300,
    ...(challenge ? { challenge } : {}),
  })
    .setProtectedHeader({ alg: instance.alg, typ: 'oauth-client-attestation-pop+jwt' })
    .sign(instance.privateKey);
}
