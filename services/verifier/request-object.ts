import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import type { JWK } from 'jose';
import { didJwkFromJwk } from '../credentials/keys/did-jwk.ts';
import { x509Hash } from '../credentials/x509/chain.ts';
import { signJwt, type JwsSigner } from '../crypto/jws.ts';
import type { KeyRing } from '../keys.ts';
import {
  throughTheBrowser,
  type ClientIdPrefix,
  type PresentationContext as RequestState,
} from '../../machines/presentation.ts';
import {
  REQUEST_OBJECT_TYP,
  REQUEST_TTL_S,
  SELF_ISSUED_AUDIENCE,
  VERIFIER_ATTESTATION_TYP,
  VP_FORMATS_SUPPORTED,
  type VerifierPki,
  type VerifierSettings,
} from './settings.ts';

/** Key sets of the verifier's key ring: the request-signing key (did:jwk, attested key) and the attestation issuer's key. */
const VERIFIER_KEY_SET = 'oid4vp';
export const ATTESTATION_KEY_SET = 'oid4vp-attestation';
const ATTESTATION_TTL_S = 3600;

const hostOf = (baseUrl: string) => new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
const der64 = (der: Uint8Array) => Buffer.from(der).toString('base64');

/** `x509_san_dns` names a DNS host; a BASE_URL on an IP address cannot carry it. */
export const sanDnsPossible = (baseUrl: string) => isIP(hostOf(baseUrl)) === 0;

/** The Client Identifier of each prefix (OpenID4VP 1.0 §5.9.3). */
export function clientIdOf(
  prefix: ClientIdPrefix,
  settings: VerifierSettings,
  pki: VerifierPki,
  keys: KeyRing,
): string {
  switch (prefix) {
    case 'redirect_uri':
      return `redirect_uri:${settings.responseUri}`;
    case 'x509_san_dns':
      return `x509_san_dns:${hostOf(settings.baseUrl)}`;
    case 'x509_hash':
      return `x509_hash:${x509Hash(pki.leaf.certificate)}`;
    case 'verifier_attestation':
      return `verifier_attestation:${hostOf(settings.baseUrl)}`;
    case 'decentralized_identifier':
      return `decentralized_identifier:${didJwkFromJwk(keys.signing(VERIFIER_KEY_SET, 'ES256').publicJwk)}`;
  }
}

/** A fresh P-256 ECDH-ES key for one direct_post.jwt request: its public JWK goes to the wallet, the private key stays in memory. */
export function ephemeralEncryptionKey(kid: string): { publicJwk: JWK; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    publicJwk: { ...(publicKey.export({ format: 'jwk' }) as JWK), kid, use: 'enc', alg: 'ECDH-ES' },
    privateKey,
  };
}

/** `client_metadata` of a request: what we accept, and for direct_post.jwt the encryption key and content encryptions. */
function clientMetadataOf(state: Pick<RequestState, 'encJwk' | 'encValues'>): Record<string, unknown> {
  return {
    vp_formats_supported: VP_FORMATS_SUPPORTED,
    ...(state.encJwk
      ? { jwks: { keys: [state.encJwk] }, encrypted_response_enc_values_supported: state.encValues }
      : {}),
  };
}

/**
 * The parameters of a Digital Credentials API request (OpenID4VP 1.0 Appendix A.2): no state and no
 * response_uri (the browser carries the answer); a client_id and expected_origins only when signed.
 */
export function dcApiParameters(state: RequestState): Record<string, unknown> {
  const signed = state.responseMode === 'dc_api.jwt';
  return {
    ...(signed ? { client_id: state.clientId } : {}),
    response_type: 'vp_token',
    response_mode: state.responseMode,
    nonce: state.nonce,
    dcql_query: state.dcqlQuery,
    ...(state.transactionData ? { transaction_data: state.transactionData } : {}),
    client_metadata: clientMetadataOf(state),
    ...(signed ? { expected_origins: state.expectedOrigins } : {}),
  };
}

/** The authorization request parameters every request carries, by value or inside its request object. */
function requestParameters(
  id: string,
  state: RequestState,
  stateValue: string,
  settings: VerifierSettings,
): Record<string, unknown> {
  if (throughTheBrowser(state.responseMode)) return dcApiParameters(state);
  return {
    response_type: 'vp_token',
    client_id: state.clientId,
    response_mode: state.responseMode,
    response_uri: settings.responseUri,
    nonce: state.nonce,
    state: stateValue,
    dcql_query: state.dcqlQuery,
    ...(state.transactionData ? { transaction_data: state.transactionData } : {}),
    client_metadata: clientMetadataOf(state),
  };
}

/** The form-encoded `client_metadata` member shared by every request without an encryption key. */
const PLAIN_CLIENT_METADATA = new URLSearchParams({ client_metadata: JSON.stringify(clientMetadataOf({})) }).toString();

/**
 * The query of an unsigned by-value request (`openid4vp://?…`): `client_id` first, then the request
 * parameters in their order, `client_metadata` last. Without an encryption key that last member is
 * the same for every request, so it is encoded once (about 1 kB of percent-encoding per request).
 */
export function byValueQuery(id: string, state: RequestState, stateValue: string, settings: VerifierSettings): string {
  const { client_metadata: metadata, ...rest } = requestParameters(id, state, stateValue, settings);
  const query = new URLSearchParams({ client_id: state.clientId ?? '' });
  for (const [name, value] of Object.entries(rest))
    query.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  const encodedMetadata = state.encJwk
    ? new URLSearchParams({ client_metadata: JSON.stringify(metadata) }).toString()
    : PLAIN_CLIENT_METADATA;
  return `${query.toString()}&${encodedMetadata}`;
}

/** The verifier attestation JWT (OpenID4VP 1.0 §12): our attestation issuer vouches for the request-signing key. */
function verifierAttestation(settings: VerifierSettings, keys: KeyRing, nowS: number): string {
  const issuerKey = keys.signing(ATTESTATION_KEY_SET, 'ES256');
  const attested = keys.signing(VERIFIER_KEY_SET, 'ES256');
  return signJwt(
    issuerKey,
    { typ: VERIFIER_ATTESTATION_TYP },
    {
      iss: settings.attestationIssuer,
      sub: hostOf(settings.baseUrl),
      iat: nowS,
      exp: nowS + ATTESTATION_TTL_S,
      cnf: { jwk: attested.publicJwk },
      redirect_uris: [settings.responseUri],
    },
  );
}

/** The signer and header members of a request object, by prefix. */
function signerOf(
  prefix: ClientIdPrefix,
  settings: VerifierSettings,
  pki: VerifierPki,
  keys: KeyRing,
  nowS: number,
): { key: JwsSigner; header: Record<string, unknown> } {
  if (prefix === 'x509_san_dns' || prefix === 'x509_hash') {
    const leaf: JwsSigner = { alg: 'ES256', privateKey: pki.leaf.privateKey };
    return { key: leaf, header: { x5c: [der64(pki.leaf.certificate), der64(pki.ca.certificate)] } };
  }
  const key = keys.signing(VERIFIER_KEY_SET, 'ES256');
  if (prefix === 'decentralized_identifier')
    return { key: { ...key, kid: `${didJwkFromJwk(key.publicJwk)}#0` }, header: {} };
  return { key, header: { jwt: verifierAttestation(settings, keys, nowS) } };
}

/**
 * The signed request object (decisions section 9): `typ oauth-authz-req+jwt`, `aud`
 * https://self-issued.me/v2, `jti` = request id, the wallet's `wallet_nonce` echoed when it sent one.
 */
export function signRequestObject(input: {
  id: string;
  state: RequestState;
  stateValue: string;
  walletNonce?: string;
  settings: VerifierSettings;
  pki: VerifierPki;
  keys: KeyRing;
  nowS: number;
}): string {
  const { key, header } = signerOf(input.state.prefix!, input.settings, input.pki, input.keys, input.nowS);
  return signJwt(
    key,
    { typ: REQUEST_OBJECT_TYP, ...header },
    {
      ...requestParameters(input.id, input.state, input.stateValue, input.settings),
      aud: SELF_ISSUED_AUDIENCE,
      iat: input.nowS,
      exp: Math.min(input.nowS + REQUEST_TTL_S, Math.floor(input.state.expiresAt / 1000)),
      jti: input.id,
      ...(input.walletNonce !== undefined ? { wallet_nonce: input.walletNonce } : {}),
    },
  );
}
