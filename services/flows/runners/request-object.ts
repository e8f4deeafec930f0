import { X509Certificate } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, type JWK } from 'jose';
import { CheckFailed } from '../../credentials/result.ts';
import { x509Hash } from '../../credentials/x509/chain.ts';
import { validatePath } from '../../credentials/x509/path.ts';
import { isJsonObject, objectOf, stringOf, type JsonObject } from '../../untrusted/json.ts';
import { FlowFailure, type RunContext } from '../registry.ts';

/** The request parameters the runners' wallet reads, from a signed request object or the DC API data. */
export interface RequestObject {
  client_id?: string;
  nonce: string;
  state?: string;
  response_uri?: string;
  transaction_data?: unknown;
  expected_origins?: unknown;
  client_metadata?: { jwks?: { keys?: JWK[] }; encrypted_response_enc_values_supported?: unknown };
}

/** The optional string member `name`, refused when present as anything else. */
function optionalString(from: JsonObject, name: string): { [name: string]: string } {
  const value = from[name];
  if (value === undefined) return {};
  if (typeof value !== 'string') throw new FlowFailure(`the request's ${name} is not a string`);
  return { [name]: value };
}

/** The request's members as the wallet reads them; a request without a string nonce is no request. */
export function requestObjectOf(value: unknown): RequestObject {
  if (!isJsonObject(value)) throw new FlowFailure('the request is not a JSON object');
  const nonce = stringOf(value.nonce);
  if (nonce === undefined) throw new FlowFailure('the request carries no nonce');
  const metadata = objectOf(value.client_metadata);
  const keys = objectOf(metadata?.jwks)?.keys;
  return {
    nonce,
    ...optionalString(value, 'client_id'),
    ...optionalString(value, 'state'),
    ...optionalString(value, 'response_uri'),
    ...(value.transaction_data !== undefined ? { transaction_data: value.transaction_data } : {}),
    ...(value.expected_origins !== undefined ? { expected_origins: value.expected_origins } : {}),
    ...(metadata
      ? {
          client_metadata: {
            ...(Array.isArray(keys) ? { jwks: { keys: keys.filter(isJsonObject) } } : {}),
            encrypted_response_enc_values_supported: metadata.encrypted_response_enc_values_supported,
          },
        }
      : {}),
  };
}

/** The wallet's check of an x509_hash request object: the leaf's hash is the client_id, the chain ends at the verifier CA, the signature holds. */
export async function checkRequestObject(run: RunContext, jwt: string, clientId: string): Promise<RequestObject> {
  const header = decodeProtectedHeader(jwt);
  if (header.typ !== 'oauth-authz-req+jwt') throw new FlowFailure(`request object typ is ${String(header.typ)}`);
  const x5c = header.x5c ?? [];
  const leaf = x5c[0] === undefined ? undefined : new X509Certificate(Buffer.from(x5c[0], 'base64'));
  if (!leaf || `x509_hash:${x509Hash(leaf.raw)}` !== clientId)
    throw new FlowFailure('the x5c leaf does not hash to the client_id');
  const ca = await run.http.send('Wallet loads the verifier CA it trusts', `${run.base}/oid4vp/ca.pem`, {}, [
    'OpenID4VP §5.9.3: x509_hash needs a chain to a trust anchor the wallet already has; a root carried in x5c never trusts itself',
  ]);
  // RFC 5280 §6 through the one path validator: signatures, validity dates at the run's clock, CA constraints.
  try {
    await validatePath(
      x5c.map((c) => new Uint8Array(Buffer.from(c, 'base64'))),
      [ca.text],
      run.nowS(),
      'x509_chain',
    );
  } catch (error) {
    if (!(error instanceof CheckFailed)) throw error;
    throw new FlowFailure(`the request object certificate does not chain to the verifier CA: ${error.reason}`);
  }
  const { payload } = await compactVerify(jwt, leaf.publicKey);
  return requestObjectOf(JSON.parse(new TextDecoder().decode(payload)));
}

/** `client_id` or `response_uri`, which a request sent by reference (not over the DC API) must carry. */
export function requiredMember(request: RequestObject, name: 'client_id' | 'response_uri'): string {
  const value = request[name];
  if (value === undefined) throw new FlowFailure(`the request carries no ${name}`);
  return value;
}
