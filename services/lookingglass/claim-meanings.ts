/** What each registered claim means, with the document that defines it (one explanation per claim). */
export const CLAIM_MEANINGS: Record<string, { meaning: string; reference: string }> = {
  iss: { meaning: 'Issuer: who made and signed the token', reference: 'RFC 7519 §4.1.1' },
  sub: { meaning: 'Subject: whom the token is about', reference: 'RFC 7519 §4.1.2' },
  aud: { meaning: 'Audience: who may accept the token', reference: 'RFC 7519 §4.1.3' },
  exp: { meaning: 'Expiration time: not to be accepted at or after this instant', reference: 'RFC 7519 §4.1.4' },
  nbf: { meaning: 'Not before: not to be accepted before this instant', reference: 'RFC 7519 §4.1.5' },
  iat: { meaning: 'Issued at: when the token was made', reference: 'RFC 7519 §4.1.6' },
  jti: { meaning: 'JWT ID: a unique identifier, used to refuse replays', reference: 'RFC 7519 §4.1.7' },
  scope: { meaning: 'Scopes granted to the bearer', reference: 'RFC 8693 §4.2, RFC 9068 §2.2.3' },
  client_id: { meaning: 'The OAuth client the token was issued to', reference: 'RFC 8693 §4.3, RFC 9068 §2.2' },
  cnf: {
    meaning: 'Confirmation: the key the presenter must prove possession of (jkt = DPoP key thumbprint)',
    reference: 'RFC 7800 §3, RFC 9449 §6',
  },
  auth_time: { meaning: 'When the person authenticated', reference: 'OpenID Connect Core §2' },
  nonce: {
    meaning: 'Value from the authentication request, binding the ID token to it',
    reference: 'OpenID Connect Core §2',
  },
  at_hash: { meaning: 'Hash of the access token issued with this ID token', reference: 'OpenID Connect Core §3.1.3.6' },
  c_hash: {
    meaning: 'Hash of the authorization code issued with this ID token',
    reference: 'OpenID Connect Core §3.3.2.11',
  },
  azp: { meaning: 'Authorized party: the client the ID token was issued to', reference: 'OpenID Connect Core §2' },
  acr: { meaning: 'Authentication context class reference', reference: 'OpenID Connect Core §2' },
  amr: { meaning: 'Authentication methods used', reference: 'OpenID Connect Core §2, RFC 8176' },
  sid: { meaning: 'Session identifier', reference: 'OpenID Connect Front-Channel Logout §3' },
  name: { meaning: 'Full name of the person', reference: 'OpenID Connect Core §5.1' },
  given_name: { meaning: 'Given name', reference: 'OpenID Connect Core §5.1' },
  family_name: { meaning: 'Family name', reference: 'OpenID Connect Core §5.1' },
  preferred_username: { meaning: 'Shorthand name the person prefers', reference: 'OpenID Connect Core §5.1' },
  email: { meaning: 'Email address', reference: 'OpenID Connect Core §5.1' },
  email_verified: { meaning: 'Whether the provider verified the email address', reference: 'OpenID Connect Core §5.1' },
  events: { meaning: 'Security events this SET reports, by event type URI', reference: 'RFC 8417 §2.2' },
  txn: { meaning: 'Transaction identifier linking related events', reference: 'RFC 8417 §2.2' },
  htm: { meaning: 'HTTP method the DPoP proof is for', reference: 'RFC 9449 §4.2' },
  htu: { meaning: 'HTTP URI the DPoP proof is for', reference: 'RFC 9449 §4.2' },
  ath: { meaning: 'Hash of the access token the DPoP proof accompanies', reference: 'RFC 9449 §4.2' },
  claimed: {
    meaning: 'Whether the agent is bound to a person (Portico agent assertion)',
    reference: 'Portico spec §2',
  },
  assertion_version: {
    meaning: 'Which assertion of the agent this is: 1 at registration, 2 after a claim',
    reference: 'Portico decisions §2',
  },
  vct: { meaning: 'Verifiable credential type', reference: 'SD-JWT VC §3.2.2.1' },
  _sd: { meaning: 'Digests of selectively disclosable claims', reference: 'RFC 9901 §4.2.4' },
  _sd_alg: { meaning: 'Hash algorithm of the disclosure digests', reference: 'RFC 9901 §4.1.1' },
  sd_hash: { meaning: 'Hash of the SD-JWT the key binding JWT covers', reference: 'RFC 9901 §4.3' },
  status: { meaning: 'Where to check whether the credential was revoked', reference: 'Token Status List §6' },
  vc: { meaning: 'The verifiable credential carried by this JWT', reference: 'VC Data Model 1.1 §6.3.1' },
  vp: { meaning: 'The verifiable presentation carried by this JWT', reference: 'VC Data Model 1.1 §6.3.1' },
};

export const TIME_CLAIMS = new Set(['exp', 'nbf', 'iat', 'auth_time', 'updated_at']);

/** What a token is, by its `typ` header, and the claims whose meaning differs in that kind of token. */
export const TOKEN_KINDS: Record<
  string,
  { kind: string; reference: string; claims?: Record<string, { meaning: string; reference: string }> }
> = {
  'at+jwt': { kind: 'OAuth 2.0 access token (JWT profile)', reference: 'RFC 9068' },
  'dpop+jwt': { kind: 'DPoP proof of possession', reference: 'RFC 9449 §4' },
  'secevent+jwt': { kind: 'Security Event Token', reference: 'RFC 8417' },
  'openid4vci-proof+jwt': {
    kind: 'OpenID4VCI key proof: the wallet proves it holds the key the credential will be bound to',
    reference: 'OpenID4VCI 1.0 Appendix F.1',
    claims: {
      nonce: {
        meaning: "The c_nonce from the issuer's nonce endpoint: makes the proof fresh and single use",
        reference: 'OpenID4VCI 1.0 §7, Appendix F.1',
      },
      aud: { meaning: 'The credential issuer identifier the proof is for', reference: 'OpenID4VCI 1.0 Appendix F.1' },
      iss: {
        meaning: 'The client_id of the wallet (absent for anonymous pre-authorized access)',
        reference: 'OpenID4VCI 1.0 Appendix F.1',
      },
    },
  },
  'key-attestation+jwt': {
    kind: 'OpenID4VCI key attestation: a wallet provider vouches for how the keys are stored',
    reference: 'OpenID4VCI 1.0 Appendix D',
  },
  'oauth-client-attestation+jwt': {
    kind: "OAuth client attestation, issued by the client's attester",
    reference: 'draft-ietf-oauth-attestation-based-client-auth',
  },
  'oauth-client-attestation-pop+jwt': {
    kind: 'Proof of possession of a client attestation key',
    reference: 'draft-ietf-oauth-attestation-based-client-auth',
  },
  'openidvci-issuer-metadata+jwt': { kind: 'Signed credential issuer metadata', reference: 'OpenID4VCI 1.0 §12.2.3' },
  'dc+sd-jwt': {
    kind: 'SD-JWT VC issuer-signed part (decode the whole credential at /api/lookingglass/decode/credential)',
    reference: 'SD-JWT VC',
  },
  'kb+jwt': { kind: 'SD-JWT key binding JWT', reference: 'RFC 9901 §4.3' },
  'oauth-authz-req+jwt': {
    kind: 'Signed authorization request (request object)',
    reference: 'RFC 9101, OpenID4VP 1.0 §5',
    claims: {
      client_id: {
        meaning:
          'The verifier, as <prefix>:<identifier>; the prefix (x509_san_dns, x509_hash, verifier_attestation, decentralized_identifier, redirect_uri) says how the wallet authenticates the request',
        reference: 'OpenID4VP 1.0 §5.9',
      },
      aud: {
        meaning: 'https://self-issued.me/v2: the request is for any wallet (static discovery)',
        reference: 'OpenID4VP 1.0 §5.8',
      },
      response_uri: {
        meaning: 'Where the wallet POSTs its response (direct_post, direct_post.jwt)',
        reference: 'OpenID4VP 1.0 §8.2',
      },
      response_mode: {
        meaning: 'direct_post: a form POST of vp_token and state; direct_post.jwt: the same inside an ECDH-ES JWE',
        reference: 'OpenID4VP 1.0 §8.2, §8.3',
      },
      nonce: {
        meaning: 'Bound into every presentation (KB-JWT nonce, mdoc handover, VP nonce or challenge): prevents replay',
        reference: 'OpenID4VP 1.0 §5.2, §14.1',
      },
      state: {
        meaning: 'Returned with the response so the verifier finds its request',
        reference: 'OpenID4VP 1.0 §5.2',
      },
      dcql_query: {
        meaning:
          'What the verifier asks for: credential queries by format and claims, optionally credential_sets and claim_sets',
        reference: 'OpenID4VP 1.0 §6',
      },
      client_metadata: {
        meaning:
          'vp_formats_supported and, for encrypted responses, jwks (the ephemeral ECDH-ES key) and encrypted_response_enc_values_supported',
        reference: 'OpenID4VP 1.0 §5.1',
      },
      wallet_nonce: {
        meaning:
          'The nonce the wallet sent when POSTing to request_uri, echoed to prove this object was made for that fetch',
        reference: 'OpenID4VP 1.0 §5.10',
      },
      jti: { meaning: 'Identifier of the request object (here the request id)', reference: 'RFC 7519 §4.1.7' },
    },
  },
  'verifier-attestation+jwt': {
    kind: "Verifier attestation: a trusted party vouches for the verifier's request-signing key (cnf) and redirect_uris",
    reference: 'OpenID4VP 1.0 §12',
  },
};
