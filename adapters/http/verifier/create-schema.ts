import { CLIENT_ID_PREFIXES, CONTENT_ENCRYPTIONS, RESPONSE_MODES } from '../../../services/verifier/settings.ts';
import { jsonObject } from '../response-schemas.ts';

const DEGREE_QUERY = {
  credentials: [
    {
      id: 'degree',
      format: 'dc+sd-jwt',
      meta: { vct_values: ['{base}/oid4vci/credential-types/university-degree'] },
      claims: [{ path: ['family_name'] }, { path: ['degree'] }],
    },
  ],
};

/**
 * The contract of `POST /oid4vp/request/create` (decisions §9, with issue 30's transaction_id): every
 * member described, its allowed values listed, and a worked example of request and answer.
 */
export const createRequestBody = {
  type: 'object',
  nullable: true,
  additionalProperties: false,
  description:
    'What to ask for and how. Every member is optional: an empty body asks for the mDL family_name and document_number, redirect_uri prefix, direct_post.',
  properties: {
    client_id_prefix: {
      type: 'string',
      maxLength: 40,
      enum: [...CLIENT_ID_PREFIXES],
      description:
        'How the verifier identifies itself (OpenID4VP 1.0 §5.9.3): redirect_uri (default; unsigned, by value), x509_san_dns (needs a DNS host in BASE_URL), x509_hash, verifier_attestation, decentralized_identifier (did:jwk). All but redirect_uri sign a request object fetched from request_uri.',
    },
    response_mode: {
      type: 'string',
      maxLength: 40,
      enum: [...RESPONSE_MODES],
      description:
        "direct_post (default): the wallet posts vp_token and state. direct_post.jwt: the wallet encrypts its answer (ECDH-ES) to a key made for this request. dc_api: an unsigned request for the browser's Digital Credentials API (OpenID4VP 1.0 Appendix A, protocol openid4vp-v1-unsigned); dc_api.jwt: signed (x509_hash by default) with expected_origins, answered encrypted (openid4vp-v1-signed). Both answer through POST /oid4vp/dc-api/{transaction_id}/response.",
    },
    dcql_query: {
      type: 'object',
      description:
        'A DCQL query (OpenID4VP 1.0 §6): credentials[] each with id, format (dc+sd-jwt, mso_mdoc, jwt_vc_json, jwt_vc_json-ld, ldp_vc), meta and claims[] paths; optional claim_sets and credential_sets.',
      examples: [DEGREE_QUERY],
    },
    request_uri_method: {
      type: 'string',
      maxLength: 10,
      enum: ['get', 'post'],
      description:
        'How the wallet fetches the request object: get (default), or post with an optional wallet_nonce echoed in the object.',
    },
    encrypted_response_enc_values_supported: {
      type: 'array',
      minItems: 1,
      maxItems: 4,
      description: 'direct_post.jwt only: content encryptions the wallet may choose (default [A128GCM]).',
      items: { type: 'string', maxLength: 20, enum: [...CONTENT_ENCRYPTIONS] },
    },
    expected_origins: {
      type: 'array',
      minItems: 1,
      maxItems: 10,
      items: { type: 'string', maxLength: 300 },
      description:
        'dc_api and dc_api.jwt only (OpenID4VP 1.0 Appendix A.2): the origins the browser may report with the answer (default: the origin of BASE_URL). dc_api.jwt signs them into the request; an answer from another origin fails the check origin.',
    },
    transaction_data: {
      type: 'array',
      minItems: 1,
      maxItems: 10,
      description:
        "OpenID4VP 1.0 §5.1, §8.4: transactions the holder authorizes with the presented credential, each an object with type, credential_ids (dc+sd-jwt credential queries) and the type's fields; the request carries each base64url-encoded and the KB-JWT binds their hashes. Demo types: urn:portico:transaction-data:payment-confirmation {amount, currency, payee} and urn:portico:transaction-data:document-signing {document_digest, document_name}; other types are sent as given.",
      items: { type: 'object' },
    },
    profile: {
      type: 'string',
      maxLength: 20,
      enum: ['haip'],
      description:
        'haip: x509_hash with direct_post.jwt (an explicit other choice is refused); the answer then redirects with a response_code that the result needs to show claims.',
    },
  },
  examples: [{ client_id_prefix: 'x509_hash', dcql_query: DEGREE_QUERY }],
};

export const createdRequest = {
  ...jsonObject(
    'The request. Hand authorization_request_uri to a wallet (a link or QR code); read the verdict at result_uri.',
    {
      request_id: {
        type: 'string',
        description: "The verifier's id of the request; public (it is in request_uri). It reads nothing by itself.",
      },
      transaction_id: {
        type: 'string',
        description: 'The capability to read the result: never in the request URI or object. Keep it.',
      },
      client_id: { type: 'string', description: 'The client identifier with its prefix, as the wallet sees it.' },
      authorization_request_uri: {
        type: 'string',
        description: 'openid4vp://?client_id=…&request_uri=… (or the whole request by value for redirect_uri).',
      },
      request_uri: {
        type: 'string',
        description: 'Where the signed request object is fetched (not for redirect_uri).',
      },
      request_uri_method: { type: 'string', description: 'get or post.' },
      response_mode: { type: 'string', description: 'direct_post or direct_post.jwt.' },
      response_uri: { type: 'string', description: 'Where the wallet posts its answer: {base}/oid4vp/response.' },
      nonce: { type: 'string', description: 'The nonce every presentation must be bound to.' },
      state: { type: 'string', description: 'The state the wallet returns with its answer.' },
      dcql_query: { type: 'object', description: 'The query as checked.' },
      expires_in: { type: 'integer', description: 'Seconds the request can be answered: 300.' },
      result_uri: {
        type: 'string',
        description: '{base}/oid4vp/result/{transaction_id}: status, verdict by named check, disclosed claims.',
      },
      transaction_data: {
        type: 'array',
        items: { type: 'string' },
        description: 'The transaction data entries as the request carries them (base64url JSON).',
      },
      expected_origins: {
        type: 'array',
        items: { type: 'string' },
        description: 'DC API modes: the accepted origins.',
      },
      digital: {
        type: 'object',
        additionalProperties: true,
        description:
          'DC API modes: the exact argument of navigator.credentials.get({digital}), {requests: [{protocol, data}]}.',
      },
      dc_api_page: {
        type: 'string',
        description: 'DC API modes: {base}/oid4vp/dc-api/{transaction_id}, the page that calls the browser API.',
      },
      dc_api_response_uri: {
        type: 'string',
        description: 'DC API modes: where {origin, data} (what the browser returned) is posted.',
      },
    },
  ),
  examples: [
    {
      request_id: 'AZ3kq2fM9c0x7Hn2b1VwQe8T',
      transaction_id: 'AZ3kq2fM9c0x7Hn2b1VwQe8T.p0QmN6vV3rJ1x9kLh2sT4w',
      client_id: 'x509_hash:Vq5u3r1f0m8r1n9c0Wq2cY7m8mN1k0s2bP3wQ4eR5tY',
      authorization_request_uri:
        'openid4vp://?client_id=x509_hash%3AVq5u3r1f0m8r1n9c0Wq2cY7m8mN1k0s2bP3wQ4eR5tY&request_uri=http%3A%2F%2Flocalhost%3A3000%2Foid4vp%2Frequest%2FAZ3kq2fM9c0x7Hn2b1VwQe8T',
      request_uri: 'http://localhost:3000/oid4vp/request/AZ3kq2fM9c0x7Hn2b1VwQe8T',
      request_uri_method: 'get',
      response_mode: 'direct_post',
      response_uri: 'http://localhost:3000/oid4vp/response',
      nonce: 'n-0S6_WzA2Mj8kQ4tY1pX3vB',
      state: 'AZ3kq2fM9c0x7Hn2b1VwQe8T.sT8c…',
      dcql_query: DEGREE_QUERY,
      expires_in: 300,
      result_uri: 'http://localhost:3000/oid4vp/result/AZ3kq2fM9c0x7Hn2b1VwQe8T.p0QmN6vV3rJ1x9kLh2sT4w',
    },
  ],
};

/** The whole journey, as the operation's description in the OpenAPI document. */
export const CREATE_WORKED_EXAMPLE = [
  'Worked example (an SD-JWT VC degree, signed request by x509_hash):',
  '1. POST /oid4vp/request/create {"client_id_prefix":"x509_hash","dcql_query":{"credentials":[{"id":"degree","format":"dc+sd-jwt","claims":[{"path":["family_name"]},{"path":["degree"]}]}]}} -> 201 {request_id, transaction_id, authorization_request_uri, request_uri, nonce, state, result_uri, expires_in: 300}.',
  '2. Hand authorization_request_uri to a wallet (the wallet harness: POST {wallet}/submit {"uri":"<authorization_request_uri>"}). The wallet GETs request_uri (a JWT, typ oauth-authz-req+jwt, x5c to {base}/oid4vp/ca.pem) and posts vp_token={"degree":["<SD-JWT presentation with a KB-JWT: aud = client_id, nonce>"]}&state=<state> to response_uri.',
  '3. GET result_uri -> {request_id, status: verified | rejected | wallet_error | expired | created | fetched, reasons: [{credential_query_id, check, reason}], presentations: {degree: [{format, issuer, claims}]}}.',
  'The request id alone reads nothing: /oid4vp/result/{request_id} is 404.',
].join('\n');
