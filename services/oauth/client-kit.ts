import { CompactEncrypt, importJWK, type JWK } from 'jose';
import { createHash, randomBytes } from 'node:crypto';
import { challengeParams } from './www-authenticate.ts';

/**
 * The client side of OAuth, one module for every client Portico runs: the wallet harness, the flow
 * runners and the model-based tester. DPoP proofs come from `services/dpop/create.ts` (`signDPoPProof`).
 */

/** RFC 7636 §4.1-4.2: a fresh code verifier (32 random bytes, base64url) and its S256 challenge. */
export function newPkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** How a client authenticates at a token endpoint (RFC 6749 §2.3.1, RFC 7523 §2.2), by RFC 8414's method names. */
export type ClientAuthentication =
  | { method: 'client_secret_basic' | 'client_secret_post'; clientId: string; secret: string }
  | { method: 'private_key_jwt'; assertion: string }
  | { method: 'none'; clientId: string };

/** RFC 7523 §2.2: the `client_assertion_type` of a JWT client assertion. */
export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** RFC 6749 §2.3.1: HTTP Basic over the client id and secret, each form-urlencoded first. */
export const basicCredentials = (clientId: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/**
 * A request a client makes to a token endpoint (RFC 6749 §3.2), or to introspection and revocation, which
 * authenticate clients the same way (RFC 7662 §2.1, RFC 7009 §2.1): the parameters and the client's
 * authentication, as the form and headers any transport sends (the wallet's, a flow runner's recorded
 * one, the model-based tester's). Without `client`, the form is the parameters alone (a client that
 * proves itself otherwise, by attestation).
 */
export function clientRequest(
  grant: Record<string, string>,
  client?: ClientAuthentication,
  headers: Record<string, string> = {},
): { form: Record<string, string>; headers: Record<string, string> } {
  switch (client?.method) {
    case 'client_secret_basic':
      return { form: grant, headers: { authorization: basicCredentials(client.clientId, client.secret), ...headers } };
    case 'client_secret_post':
      return { form: { ...grant, client_id: client.clientId, client_secret: client.secret }, headers };
    case 'private_key_jwt':
      return {
        form: { ...grant, client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: client.assertion },
        headers,
      };
    case 'none':
      return { form: { ...grant, client_id: client.clientId }, headers };
    default:
      return { form: grant, headers };
  }
}

/** What a client reads of a refused response: its status, `DPoP-Nonce` and `WWW-Authenticate`, and its `error`. */
export interface RefusedResponse {
  status: number;
  dpopNonce: string | undefined;
  wwwAuthenticate: string | undefined;
  /** The `error` member of a JSON body, when there is one. */
  error: string | undefined;
}

/**
 * RFC 9449 §8 and §9: the nonce a server asks a client to retry with. An authorization server asks with
 * 400 `use_dpop_nonce`; a resource server with 401 and a `DPoP` challenge naming `use_dpop_nonce`.
 * Either way the `DPoP-Nonce` header carries the value; undefined when the response is no such ask.
 */
export function dpopNonceAsked(response: RefusedResponse, side: 'as' | 'rs'): string | undefined {
  const nonce = response.dpopNonce;
  if (!nonce) return undefined;
  if (side === 'as') return response.status === 400 && response.error === 'use_dpop_nonce' ? nonce : undefined;
  const asked = challengeParams(response.wwwAuthenticate).get('error') === 'use_dpop_nonce';
  return response.status === 401 && asked ? nonce : undefined;
}

/**
 * An OpenID4VP answer encrypted to the verifier's ECDH-ES key (§8.3, direct_post.jwt and dc_api.jwt):
 * A256GCM when the request lists it, else A128GCM; the key's `kid` names it in the header.
 */
export async function encryptAnswer(
  members: Record<string, unknown>,
  encryptionJwk: JWK,
  params: { client_metadata?: { encrypted_response_enc_values_supported?: unknown } },
): Promise<{ jwe: string; enc: string }> {
  const offered = params.client_metadata?.encrypted_response_enc_values_supported;
  const enc = Array.isArray(offered) && offered.includes('A256GCM') ? 'A256GCM' : 'A128GCM';
  const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(members)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc, ...(encryptionJwk.kid ? { kid: encryptionJwk.kid } : {}) })
    .encrypt(await importJWK(encryptionJwk, 'ECDH-ES'));
  return { jwe, enc };
}
