import { memberAt, type JsonObject } from '../../untrusted/json.ts';
import { CLOCK_SKEW_S, failedTimeClaim } from '../../crypto/time-claims.ts';
import { X509Certificate } from 'node:crypto';
import {
  compactVerify,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  importJWK,
  jwtVerify,
  type JWK,
} from 'jose';
import { resolveVerificationKey } from '../../credentials/keys/resolve.ts';
import { validateX5c } from '../../credentials/x509/x5c.ts';
import { randomToken } from '../../crypto/random.ts';
import { oauthError, invalidRequest } from '../../errors.ts';
import { jwksKeys } from '../../untrusted/jwk.ts';
import { wellKnown } from '../issuance/discovery.ts';
import { expectOk, type IssuerWire } from '../issuance/wire.ts';

/** A presentation request after its authentication rule passed (or failed, for the record). */
export interface ResolvedRequest {
  clientId: string;
  prefix: string;
  params: JsonObject;
  /** Whether the request's signature and client identifier were verified for its prefix. */
  verified: boolean;
  error?: string;
}

export interface RequestTrust {
  verifierTrustAnchorsPem: string[];
  trustedAttestationIssuers: string[];
  nowS: number;
}

const PREFIXES = ['redirect_uri', 'x509_san_dns', 'x509_hash', 'verifier_attestation', 'decentralized_identifier'];
const refused = (description: string) => oauthError('invalid_request', description);

/** `<prefix>:<identifier>` (OpenID4VP 1.0 §5.9.1); no prefix is refused (this wallet knows no pre-registered verifiers). */
function splitClientId(clientId: unknown): { prefix: string; identifier: string } {
  if (typeof clientId !== 'string' || clientId.length > 4096) throw refused('client_id is required');
  const colon = clientId.indexOf(':');
  const prefix = colon > 0 ? clientId.slice(0, colon) : '';
  if (!PREFIXES.includes(prefix))
    throw refused(`client_id prefix ${JSON.stringify(prefix)} is not supported (${PREFIXES.join(', ')})`);
  return { prefix, identifier: clientId.slice(colon + 1) };
}

/** The parameters of an `openid4vp://` (or https wallet) URI, or the body members of `/api/resolve`. */
export function requestInput(body: {
  uri?: string;
  request_uri?: string;
  client_id?: string;
  request_uri_method?: string;
}): Record<string, string> {
  if (typeof body.uri === 'string') {
    let url: URL;
    try {
      url = new URL(body.uri);
    } catch {
      throw refused('uri is not a URI');
    }
    return Object.fromEntries(url.searchParams);
  }
  if (typeof body.request_uri !== 'string' || typeof body.client_id !== 'string')
    throw refused('Send uri, or request_uri with client_id');
  return {
    request_uri: body.request_uri,
    client_id: body.client_id,
    ...(body.request_uri_method ? { request_uri_method: body.request_uri_method } : {}),
  };
}

const parseJsonParam = (value: unknown, name: string) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw refused(`${name} is not JSON`);
  }
};

/**
 * Fetches the request object by reference (GET, or POST with a fresh 128-bit `wallet_nonce` that
 * must come back, OpenID4VP 1.0 §5.10), or takes the parameters by value (redirect_uri only).
 */
export async function loadRequest(
  wire: IssuerWire,
  input: Record<string, string>,
): Promise<{ params: JsonObject; jwt?: string }> {
  if (input.request !== undefined)
    throw refused('request objects by value (request=) are not accepted: use request_uri');
  if (input.request_uri === undefined) {
    const params: JsonObject = { ...input };
    for (const name of ['dcql_query', 'client_metadata', 'transaction_data'])
      if (params[name] !== undefined) params[name] = parseJsonParam(params[name], name);
    return { params };
  }
  const method = (input.request_uri_method ?? 'get').toLowerCase();
  if (method !== 'get' && method !== 'post') throw refused('request_uri_method must be get or post');
  const walletNonce = method === 'post' ? randomToken(16) : undefined;
  const fetched = await wire.call(
    'request_object',
    input.request_uri,
    method === 'post'
      ? {
          form: {
            wallet_nonce: walletNonce!,
            wallet_metadata: JSON.stringify({
              vp_formats_supported: { 'dc+sd-jwt': {}, mso_mdoc: {}, jwt_vc_json: {}, ldp_vc: {} },
              response_modes_supported: ['direct_post', 'direct_post.jwt'],
            }),
          },
        }
      : {},
    {},
  );
  if (fetched.status !== 200) expectOk(fetched, 'The request URI');
  const jwt = fetched.text.trim();
  let payload: JsonObject;
  try {
    payload = decodeJwt(jwt) as JsonObject;
  } catch {
    throw refused('The request URI did not answer a signed request object');
  }
  if (walletNonce !== undefined && payload.wallet_nonce !== walletNonce)
    throw refused('The request object does not carry the wallet_nonce this wallet sent');
  if (input.client_id !== undefined && payload.client_id !== input.client_id)
    throw refused('client_id of the request object differs from the one of the request');
  return { params: payload, jwt };
}

/** The authentication rule of each client identifier prefix (OpenID4VP 1.0 §5.9.3; spec wallet behaviour 2 and section 7). */
export async function authenticateRequest(
  wire: IssuerWire,
  loaded: { params: JsonObject; jwt?: string },
  trust: RequestTrust,
): Promise<ResolvedRequest> {
  const { params, jwt } = loaded;
  const { prefix, identifier } = splitClientId(params.client_id);
  const base = { clientId: String(params.client_id), prefix, params };
  if (prefix === 'redirect_uri') {
    if (jwt) throw refused('redirect_uri requests are not signed');
    if ((params.response_uri ?? params.redirect_uri) !== identifier)
      throw refused('With redirect_uri the client identifier must be the response URI');
    return { ...base, verified: false, error: 'redirect_uri requests are not authenticated' };
  }
  if (!jwt) throw refused(`${prefix} requests must be signed request objects passed by reference`);
  let header: JsonObject;
  try {
    header = decodeProtectedHeader(jwt) as JsonObject;
  } catch {
    throw refused('The request object header is not readable');
  }
  if (header.typ !== 'oauth-authz-req+jwt') throw refused('The request object typ must be oauth-authz-req+jwt');
  const late = failedTimeClaim(params, trust.nowS);
  if (late)
    return {
      ...base,
      verified: false,
      error: `the request object's ${late} claim is out of range (allowing a ${CLOCK_SKEW_S} s clock skew)`,
    };
  const verifyWith = async (key: JWK | X509Certificate['publicKey']) => {
    try {
      await compactVerify(
        jwt,
        'kty' in (key as object)
          ? await importJWK(key as JWK, String(header.alg))
          : (key as X509Certificate['publicKey']),
      );
      return true;
    } catch {
      return false;
    }
  };
  if (prefix === 'x509_san_dns' || prefix === 'x509_hash') {
    const chain = await validateX5c(header.x5c, {
      trustAnchors: trust.verifierTrustAnchorsPem,
      systemRoots: true,
      now: trust.nowS,
      ...(prefix === 'x509_hash' ? { expectedHash: identifier } : {}),
    });
    if (!chain.valid) return { ...base, verified: false, error: chain.reason };
    if (prefix === 'x509_san_dns') {
      const names = chain.leaf.subjectAltName?.split(', ') ?? [];
      if (!names.includes(`DNS:${identifier}`))
        return {
          ...base,
          verified: false,
          error: 'the leaf certificate does not name the client identifier in its subjectAltName',
        };
      // Over the DC API there is no response_uri: the browser's origin stands in (checked against expected_origins).
      if (params.response_uri !== undefined && new URL(responseUriOf(params)).hostname !== identifier)
        return { ...base, verified: false, error: 'the response URI host is not the client identifier' };
    }
    return (await verifyWith(chain.leaf.publicKey))
      ? { ...base, verified: true }
      : { ...base, verified: false, error: 'the signature does not verify with the x5c leaf' };
  }
  if (prefix === 'decentralized_identifier') {
    const kid = typeof header.kid === 'string' ? header.kid : '';
    if (kid.split('#')[0] !== identifier)
      return { ...base, verified: false, error: 'the request is not signed by a key of the client identifier DID' };
    let key: JWK;
    try {
      key = resolveVerificationKey(kid);
    } catch {
      return { ...base, verified: false, error: 'the DID cannot be resolved here (did:jwk and did:key are)' };
    }
    return (await verifyWith(key))
      ? { ...base, verified: true }
      : { ...base, verified: false, error: 'the signature does not verify with the DID key' };
  }
  // verifier_attestation: only attestations of configured issuers count (spec section 7).
  const attestation = typeof header.jwt === 'string' ? header.jwt : '';
  let claims: JsonObject;
  try {
    claims = decodeJwt(attestation) as JsonObject;
  } catch {
    return { ...base, verified: false, error: 'the request carries no verifier attestation (jwt header)' };
  }
  if (!trust.trustedAttestationIssuers.includes(String(claims.iss)))
    throw refused(
      `the verifier attestation issuer ${JSON.stringify(String(claims.iss).slice(0, 200))} is not in WALLET_TRUSTED_VERIFIER_ATTESTATION_ISSUERS`,
    );
  const metadata = expectOk(
    await wire.call('metadata', wellKnown(String(claims.iss), 'oauth-authorization-server')),
    'The attestation issuer metadata',
  ).json;
  if (metadata.issuer !== claims.iss || typeof metadata.jwks_uri !== 'string')
    return { ...base, verified: false, error: 'the attestation issuer metadata does not name it or has no jwks_uri' };
  const jwks = expectOk(await wire.call('jwks', metadata.jwks_uri), 'The attestation issuer JWKS').json;
  try {
    const { payload } = await jwtVerify(attestation, createLocalJWKSet({ keys: jwksKeys(jwks) }), {
      typ: 'verifier-attestation+jwt',
      issuer: String(claims.iss),
      currentDate: new Date(trust.nowS * 1000),
      clockTolerance: CLOCK_SKEW_S,
    });
    if (payload.sub !== identifier)
      return { ...base, verified: false, error: 'the attestation sub is not the client identifier' };
    if (typeof payload.exp !== 'number') return { ...base, verified: false, error: 'the attestation has no exp' };
    const redirects = payload.redirect_uris;
    if (params.response_uri !== undefined && Array.isArray(redirects) && !redirects.includes(params.response_uri))
      return { ...base, verified: false, error: 'the response URI is not among the attested redirect_uris' };
    const cnf = (payload.cnf as { jwk?: JWK } | undefined)?.jwk;
    if (!cnf) return { ...base, verified: false, error: 'the attestation has no cnf.jwk' };
    return (await verifyWith(cnf))
      ? { ...base, verified: true }
      : { ...base, verified: false, error: 'the request is not signed by the attested key' };
  } catch {
    return { ...base, verified: false, error: 'the verifier attestation does not verify with its issuer keys' };
  }
}

/** The request's `response_uri`, an http(s) URL, which every request answered by direct post carries. */
export function responseUriOf(params: JsonObject): string {
  const uri = params.response_uri;
  if (typeof uri !== 'string' || !/^https?:\/\//.test(uri) || !URL.canParse(uri))
    throw refused('response_uri is required (an http(s) URL)');
  return uri;
}

/** The request rules every prefix shares: response mode, response URI, nonce, DCQL (transaction data: `requestTransactions`). */
export function checkRequestParams(params: JsonObject): void {
  if (params.response_type !== 'vp_token') throw refused('response_type must be vp_token');
  if (params.response_mode !== 'direct_post' && params.response_mode !== 'direct_post.jwt')
    throw refused('response_mode must be direct_post or direct_post.jwt');
  responseUriOf(params);
  if (typeof params.nonce !== 'string' || params.nonce === '') throw refused('nonce is required');
  if (!params.dcql_query || typeof params.dcql_query !== 'object') throw refused('dcql_query is required');
  if (params.response_mode === 'direct_post.jwt' && !Array.isArray(memberAt(params, 'client_metadata', 'jwks', 'keys')))
    throw invalidRequest('direct_post.jwt needs client_metadata.jwks');
}
