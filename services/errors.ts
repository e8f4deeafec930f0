/**
 * Every error Portico answers with, as one typed table: the code, the HTTP status it is sent with and
 * the section that defines it. A throw site names the code and says what went wrong; it never types a
 * status. The HTTP layer renders any of them once, as `{error, error_description}` with `status`.
 */

interface ErrorRule {
  readonly status: number;
  readonly spec: string;
}

const rule = (status: number, spec: string): ErrorRule => ({ status, spec });

const ERROR_RULES = {
  // RFC 6749: the token endpoint (§5.2) and the authorization endpoint (§4.1.2.1)
  invalid_request: rule(400, 'RFC 6749 §5.2'),
  invalid_client: rule(401, 'RFC 6749 §5.2'),
  invalid_grant: rule(400, 'RFC 6749 §5.2'),
  unauthorized_client: rule(400, 'RFC 6749 §5.2'),
  unsupported_grant_type: rule(400, 'RFC 6749 §5.2'),
  invalid_scope: rule(400, 'RFC 6749 §5.2'),
  unsupported_response_type: rule(400, 'RFC 6749 §4.1.2.1'),
  access_denied: rule(400, 'RFC 8628 §3.5'),
  server_error: rule(500, 'RFC 6749 §4.1.2.1'),
  temporarily_unavailable: rule(503, 'RFC 6749 §4.1.2.1'),
  // RFC 8628 §3.5: polling for a grant the user has still to decide on
  authorization_pending: rule(400, 'RFC 8628 §3.5'),
  slow_down: rule(400, 'RFC 8628 §3.5'),
  expired_token: rule(400, 'RFC 8628 §3.5'),
  // RFC 6750 §3.1: a protected resource
  invalid_token: rule(401, 'RFC 6750 §3.1'),
  insufficient_scope: rule(403, 'RFC 6750 §3.1'),
  // RFC 9449: DPoP at an authorization server (§5, §8); at a resource see RESOURCE_RULES
  invalid_dpop_proof: rule(400, 'RFC 9449 §5'),
  use_dpop_nonce: rule(400, 'RFC 9449 §8'),
  // RFC 9396 §5 and OpenID Connect Core §3.1.2.6
  invalid_authorization_details: rule(400, 'RFC 9396 §5'),
  invalid_request_uri: rule(400, 'OpenID Connect Core §3.1.2.6'),
  request_not_supported: rule(400, 'OpenID Connect Core §3.1.2.6'),
  login_required: rule(400, 'OpenID Connect Core §3.1.2.6'),
  // RFC 7591 §3.2.2: client registration; RFC 8707 §2: resource indicators
  invalid_redirect_uri: rule(400, 'RFC 7591 §3.2.2'),
  invalid_client_metadata: rule(400, 'RFC 7591 §3.2.2'),
  invalid_target: rule(400, 'RFC 8707 §2'),
  // OpenID4VCI 1.0: credential (§8.3.1.2), deferred (§9.3) and notification (§11.3) errors
  invalid_credential_request: rule(400, 'OID4VCI 1.0 §8.3.1.2'),
  unknown_credential_configuration: rule(400, 'OID4VCI 1.0 §8.3.1.2'),
  unknown_credential_identifier: rule(400, 'OID4VCI 1.0 §8.3.1.2'),
  invalid_proof: rule(400, 'OID4VCI 1.0 §8.3.1.2'),
  invalid_nonce: rule(400, 'OID4VCI 1.0 §8.3.1.2'),
  credential_request_denied: rule(400, 'OID4VCI 1.0 §8.3.1.2'),
  invalid_encryption_parameters: rule(400, 'OID4VCI 1.0 §8.3.1.2'),
  invalid_transaction_id: rule(400, 'OID4VCI 1.0 §9.3'),
  invalid_notification_id: rule(400, 'OID4VCI 1.0 §11.3'),
  invalid_notification_request: rule(400, 'OID4VCI 1.0 §11.3'),
  // OpenID4VP 1.0 §8.5
  invalid_transaction_data: rule(400, 'OID4VP 1.0 §8.5'),
  wallet_unavailable: rule(502, 'OID4VP 1.0 §8.5'),
  // HTTP (RFC 9110 §15.5, RFC 6585 §4)
  not_found: rule(404, 'RFC 9110 §15.5.5'),
  method_not_allowed: rule(405, 'RFC 9110 §15.5.6'),
  rate_limited: rule(429, 'RFC 6585 §4'),
  // Portico's own (docs/errors in decisions.md: the agent, the wallet harness, the flow runner, CORS)
  unsupported_identity_type: rule(400, 'Portico: POST /agentauth/identity'),
  flow_not_executable: rule(409, 'Portico: POST /api/protocols/{id}/demo/{flow}'),
  cors_origin_not_allowed: rule(403, 'Portico: CORS'),
  destination_not_allowed: rule(400, 'Portico: the outbound guard'),
  external_verifiers_disabled: rule(403, 'Portico wallet: the outbound guard'),
  external_approval_required: rule(403, 'Portico wallet: POST /api/present'),
  transaction_approval_required: rule(403, 'Portico wallet: POST /api/present'),
  upstream_error: rule(502, 'Portico wallet: an issuer or verifier answered badly'),
  discovery_issuer_mismatch: rule(400, 'Portico wallet: RFC 8414 §3.3 issuer check'),
  issuer_mismatch: rule(400, 'Portico wallet: RFC 9207 §2.4 iss check'),
  haip_material_required: rule(400, 'Portico wallet: HAIP'),
  tx_code_required: rule(400, 'Portico wallet: POST /api/receive'),
  invalid_credential: rule(400, 'Portico wallet: a received credential fails its checks'),
  no_matching_credential: rule(422, 'Portico wallet: POST /api/present'),
} as const satisfies Record<string, ErrorRule>;

/**
 * A code sent with another status by the rule of another layer, named `code:condition`: HTTP-level
 * refusals keep the OAuth code `invalid_request`; at a resource, a DPoP error is a 401 challenge.
 */
const CONDITION_RULES = {
  'invalid_request:content_too_large': rule(413, 'RFC 9110 §15.5.14'),
  'invalid_request:uri_too_long': rule(414, 'RFC 9110 §15.5.15'),
  'invalid_request:unsupported_media_type': rule(415, 'RFC 9110 §15.5.16'),
  'invalid_request:request_timeout': rule(408, 'RFC 9110 §15.5.9'),
  'invalid_request:expectation_failed': rule(417, 'RFC 9110 §15.5.18'),
  'invalid_request:headers_too_large': rule(431, 'RFC 6585 §5'),
  'invalid_request:method_not_allowed': rule(405, 'RFC 9110 §15.5.6'),
  'invalid_request:conflict': rule(409, 'RFC 9110 §15.5.10'),
  'invalid_request:forbidden': rule(403, 'RFC 9110 §15.5.4'),
  'invalid_request:precondition_failed': rule(412, 'RFC 9110 §15.5.13'),
  'invalid_request_uri:unknown': rule(404, 'RFC 9110 §15.5.5'),
  // RFC 7592 §2: a registration access token that is wrong, or names a client that is gone
  'invalid_token:registration': rule(401, 'RFC 7592 §2'),
  'invalid_token:undecodable': rule(400, 'Portico: the looking glass decodes, it guards nothing'),
  'invalid_dpop_proof:at_resource': rule(401, 'RFC 9449 §7.1'),
  'use_dpop_nonce:at_resource': rule(401, 'RFC 9449 §9'),
} as const satisfies Record<string, ErrorRule>;

export type ErrorCode = keyof typeof ERROR_RULES;
export type ErrorCondition = keyof typeof CONDITION_RULES;

const codeOf = (name: ErrorCode | ErrorCondition): ErrorCode => name.split(':')[0] as ErrorCode;
const ruleOf = (name: ErrorCode | ErrorCondition): ErrorRule =>
  name.includes(':') ? CONDITION_RULES[name as ErrorCondition] : ERROR_RULES[name as ErrorCode];

/** Whether a string from elsewhere (a peer's answer, a machine's outcome) is one of our codes. */
export const isErrorCode = (value: string): value is ErrorCode => Object.hasOwn(ERROR_RULES, value);

export class OAuthError extends Error {
  readonly error: ErrorCode;
  readonly status: number;
  /** The section that defines this code with this status. */
  readonly spec: string;
  /** Members a response adds beside `error` and `error_description` (e.g. the wallet's `_protocol_exchanges`). */
  extra?: Record<string, unknown>;

  /** Only the factories below and subclasses build one, so a status always comes from the table. */
  protected constructor(
    name: ErrorCode | ErrorCondition,
    readonly description: string,
    /** Extra response headers, e.g. WWW-Authenticate. */
    readonly headers: Record<string, string> = {},
    ruleOverride?: ErrorRule,
  ) {
    const { status, spec } = ruleOverride ?? ruleOf(name);
    super(`${codeOf(name)}: ${description}`);
    this.name = 'OAuthError';
    this.error = codeOf(name);
    this.status = status;
    this.spec = spec;
  }

  static of(name: ErrorCode | ErrorCondition, description: string, headers?: Record<string, string>): OAuthError {
    return new OAuthError(name, description, headers);
  }

  /** A 4xx that the HTTP framework decided (e.g. a body it could not read), kept as `invalid_request`. */
  static fromHttpStatus(status: number, description: string): OAuthError {
    return new OAuthError('invalid_request', description, {}, rule(status, 'RFC 9110 §15.5'));
  }

  /** The same error with another description (e.g. a hint appended); status and headers kept. */
  withDescription(description: string): OAuthError {
    return new OAuthError(this.error, description, this.headers, this);
  }

  /** The same error with more response headers. */
  withHeaders(headers: Record<string, string>): OAuthError {
    return new OAuthError(this.error, this.description, { ...this.headers, ...headers }, this);
  }

  /** Read by fastify plugins that throw this error (e.g. the rate limiter). */
  get statusCode(): number {
    return this.status;
  }

  toJSON(): { error: string; error_description: string } {
    return { ...this.extra, error: this.error, error_description: this.description };
  }
}

/** The error for `name` (a code, or `code:condition`), with its status from the table. */
export const oauthError = (
  name: ErrorCode | ErrorCondition,
  description: string,
  headers?: Record<string, string>,
): OAuthError => OAuthError.of(name, description, headers);

export const invalidRequest = (description: string) => oauthError('invalid_request', description);
export const notFound = (description = 'No such resource') => oauthError('not_found', description);
