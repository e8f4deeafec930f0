/** A verdict of one named check on a target's answer, with the rule it holds the server to. */
export interface CheckResult {
  check: string;
  verdict: 'passed' | 'failed';
  rule: string;
  detail: string;
}

const verdict = (check: string, rule: string, passed: boolean, good: string, bad: string): CheckResult => ({
  check,
  verdict: passed ? 'passed' : 'failed',
  rule,
  detail: passed ? good : bad,
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

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
  if (!isObject(body)) problems.push('the body is not a JSON object');
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
  const active = isObject(body) ? body.active : undefined;
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
