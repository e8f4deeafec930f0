import { isJsonObject } from '../../untrusted/json.ts';
/** A verdict of one named check on a target's answer, with the rule it holds the server to. */
export interface CheckResult {
  check: string;
  /** `not_applicable`: the server says it does not offer the feature the check is about. */
  verdict: 'passed' | 'failed' | 'not_applicable';
  rule: string;
  detail: string;
}

const verdict = (check: string, rule: string, passed: boolean, good: string, bad: string): CheckResult => ({
  check,
  verdict: passed ? 'passed' : 'failed',
  rule,
  detail: passed ? good : bad,
});

/** RFC 8414 §3.3 (and OpenID Connect Discovery §4.3): the metadata's issuer is the one it was fetched for. */
export function issuerMatches(published: unknown, expected: string, rule: string): CheckResult {
  return verdict(
    'issuer match',
    rule,
    published === expected,
    `issuer is ${expected}`,
    `the metadata names issuer ${JSON.stringify(published)}, not ${expected}`,
  );
}

/** RFC 6749 §5.1: a successful token response is JSON with access_token and token_type, and is not cached. */
export function tokenResponseShape(response: { status: number; headers: Headers; body: unknown }): CheckResult {
  const rule = 'RFC 6749 §5.1';
  const problems: string[] = [];
  const body = response.body;
  if (response.status !== 200) problems.push(`HTTP ${response.status}, not 200`);
  if (!(response.headers.get('content-type') ?? '').includes('application/json')) problems.push('not application/json');
  if (!isJsonObject(body)) problems.push('the body is not a JSON object');
  else {
    if (typeof body.access_token !== 'string' || !body.access_token) problems.push('no access_token');
    if (typeof body.token_type !== 'string') problems.push('no token_type');
    else if (!/^(bearer|dpop|n_a)$/i.test(body.token_type))
      problems.push(`token_type ${body.token_type} is not registered`);
    if (body.expires_in !== undefined && (typeof body.expires_in !== 'number' || body.expires_in <= 0))
      problems.push('expires_in is not a positive number');
  }
  if (!/no-store/i.test(response.headers.get('cache-control') ?? '')) problems.push('Cache-Control lacks no-store');
  return verdict(
    'token response',
    rule,
    problems.length === 0,
    'access_token, token_type, JSON, Cache-Control: no-store',
    problems.join('; '),
  );
}

/** RFC 7662 §2.2: an introspection response is a JSON object whose `active` is a boolean. */
export function introspectionShape(response: { status: number; body: unknown }, expectActive: boolean): CheckResult {
  const body = response.body;
  const active = isJsonObject(body) ? body.active : undefined;
  const problems: string[] = [];
  if (response.status !== 200) problems.push(`HTTP ${response.status}, not 200`);
  if (typeof active !== 'boolean') problems.push('active is not a boolean');
  else if (active !== expectActive)
    problems.push(`active is ${active} for a token that is ${expectActive ? 'live' : 'not'}`);
  return verdict(
    'introspection response',
    'RFC 7662 §2.2',
    problems.length === 0,
    `active: ${expectActive}`,
    problems.join('; '),
  );
}

/** RFC 6749 §4.1.2: the authorization response carries the request's `state` exactly. */
export function stateEchoed(sent: string, params: URLSearchParams): CheckResult {
  const got = params.get('state');
  return verdict(
    'state echoed',
    'RFC 6749 §4.1.2',
    got === sent,
    'state came back unchanged',
    got === null ? 'the response has no state' : 'the response carries another state',
  );
}

/**
 * RFC 9207 §2.4: where the server advertises `authorization_response_iss_parameter_supported`, the
 * response carries `iss`; wherever `iss` comes, it is the issuer.
 */
export function issParameter(params: URLSearchParams, metadata: Record<string, unknown>, issuer: string): CheckResult {
  const iss = params.get('iss');
  const required = metadata.authorization_response_iss_parameter_supported === true;
  const ok = iss === null ? !required : iss === issuer;
  return verdict(
    'iss parameter',
    'RFC 9207 §2.4',
    ok,
    iss === null ? 'no iss, and none is advertised' : `iss is ${issuer}`,
    iss === null ? 'iss is advertised but missing from the response' : `iss is ${iss}, not ${issuer}`,
  );
}

/** RFC 7636 §4.2 with RFC 8414 §2: the server advertises S256 (omitted means it does no PKCE). */
export function pkceAdvertised(metadata: Record<string, unknown>): CheckResult {
  const methods = metadata.code_challenge_methods_supported;
  return verdict(
    'PKCE advertised',
    'RFC 7636 §4.2, RFC 8414 §2',
    Array.isArray(methods) && methods.includes('S256'),
    'code_challenge_methods_supported lists S256',
    'code_challenge_methods_supported does not list S256',
  );
}

/** RFC 7636 §4.6: the code was redeemed with the S256 verifier (a wrong one is not tried: it would spend the code). */
export function pkceHonoured(tokenStatus: number): CheckResult {
  return verdict(
    'PKCE honoured',
    'RFC 7636 §4.6',
    tokenStatus === 200,
    'the code was redeemed with its code_verifier',
    `the code was not redeemed with its code_verifier (HTTP ${tokenStatus})`,
  );
}
