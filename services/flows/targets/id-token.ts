import { createHash } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import type { CheckResult } from './checks.ts';

/** OpenID Connect Core §3.1.3.8 and §3.3.2.11: the left half of the alg's hash of a value, base64url. */
function leftHalfHash(alg: string, value: string): string | undefined {
  const bits = /(\d{3})$/.exec(alg)?.[1] ?? (alg === 'EdDSA' ? '512' : undefined);
  if (!bits || !['256', '384', '512'].includes(bits)) return undefined;
  const digest = createHash(`sha${bits}`).update(value, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

const result = (check: string, rule: string, problems: string[], good: string): CheckResult => ({
  check,
  verdict: problems.length === 0 ? 'passed' : 'failed',
  rule,
  detail: problems.length === 0 ? good : problems.join('; '),
});

/**
 * An ID token from the code flow, judged as OpenID Connect Core §3.1.3.7 asks: its signature against
 * the target's JWKS; iss, aud, azp, nonce, exp and iat; at_hash and c_hash where present (the code flow
 * requires neither).
 */
export async function idTokenChecks(
  idToken: string,
  jwks: unknown,
  expected: { issuer: string; clientId: string; nonce: string; nowS: number; code: string; accessToken?: string },
): Promise<CheckResult[]> {
  let header: { alg?: string; kid?: string };
  let claims: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(idToken);
    claims = decodeJwt(idToken);
  } catch {
    return [result('ID token', 'OpenID Connect Core §3.1.3.7', ['not a JWT'], '')];
  }
  const signature: string[] = [];
  try {
    if (!jwks || typeof jwks !== 'object' || !Array.isArray((jwks as JSONWebKeySet).keys))
      signature.push('the target publishes no JWKS at jwks_uri');
    else
      await jwtVerify(idToken, createLocalJWKSet(jwks as JSONWebKeySet), {
        currentDate: new Date(expected.nowS * 1000),
      });
  } catch (error) {
    // jose says why: no key with that kid, a bad signature, an alg the key does not take.
    if (signature.length === 0)
      signature.push(`${(error as { code?: string }).code ?? 'ERR'}: ${(error as Error).message}`);
  }
  const c = claims;
  const aud = Array.isArray(c.aud) ? c.aud : [c.aud];
  const problems: string[] = [];
  if (c.iss !== expected.issuer) problems.push(`iss is ${JSON.stringify(c.iss)}`);
  if (!aud.includes(expected.clientId)) problems.push('aud does not name the client');
  if (aud.length > 1 && c.azp !== expected.clientId) problems.push('several audiences but azp is not the client');
  if (c.azp !== undefined && c.azp !== expected.clientId) problems.push('azp is not the client');
  if (c.nonce !== expected.nonce) problems.push(c.nonce === undefined ? 'no nonce' : 'another nonce');
  if (typeof c.exp !== 'number' || c.exp <= expected.nowS) problems.push('exp is missing or past');
  if (typeof c.iat !== 'number') problems.push('no iat');
  const hashes: CheckResult[] = [];
  for (const [claim, value, rule] of [
    ['at_hash', expected.accessToken, 'OpenID Connect Core §3.1.3.8'],
    ['c_hash', expected.code, 'OpenID Connect Core §3.3.2.11'],
  ] as const) {
    if (c[claim] === undefined || value === undefined) continue; // not required in the code flow
    const want = leftHalfHash(header.alg ?? '', value);
    hashes.push(result(claim, rule, c[claim] === want ? [] : [`${claim} does not match`], `${claim} matches`));
  }
  return [
    result(
      'ID token signature',
      'OpenID Connect Core §3.1.3.7 (6), RFC 7515',
      signature,
      `verified with kid ${header.kid ?? '(none)'}`,
    ),
    result('ID token claims', 'OpenID Connect Core §3.1.3.7 (2-11)', problems, 'iss, aud, azp, nonce, exp, iat hold'),
    ...hashes,
  ];
}
