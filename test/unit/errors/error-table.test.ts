import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isErrorCode, oauthError, OAuthError, type ErrorCode, type ErrorCondition } from '../../../services/errors.ts';

// Issue 37: every error code carries its status and the section that defines it; no throw site types a status.
const SAMPLE: Array<[ErrorCode | ErrorCondition, number, RegExp]> = [
  ['invalid_request', 400, /RFC 6749 §5\.2/],
  ['invalid_client', 401, /RFC 6749 §5\.2/],
  ['invalid_token', 401, /RFC 6750 §3\.1/],
  ['insufficient_scope', 403, /RFC 6750 §3\.1/],
  ['invalid_dpop_proof', 400, /RFC 9449 §5/],
  ['invalid_dpop_proof:at_resource', 401, /RFC 9449 §7\.1/],
  ['use_dpop_nonce:at_resource', 401, /RFC 9449 §9/],
  ['invalid_proof', 400, /OID4VCI 1\.0 §8\.3\.1\.2/],
  ['invalid_request:content_too_large', 413, /RFC 9110 §15\.5\.14/],
  ['invalid_request_uri:unknown', 404, /RFC 9110/],
  ['temporarily_unavailable', 503, /RFC 6749/],
];

describe('the error table', () => {
  it.each(SAMPLE)('%s is sent with %i and names its section', (name, status, spec) => {
    const error = oauthError(name, 'described');
    expect(error).toBeInstanceOf(OAuthError);
    expect([error.status, error.statusCode]).toEqual([status, status]);
    expect(error.spec).toMatch(spec);
    expect(error.error).toBe(name.split(':')[0]);
    expect(error.toJSON()).toEqual({ error: name.split(':')[0], error_description: 'described' });
  });

  it('a condition keeps the OAuth code on the wire and only changes the status', () => {
    const error = oauthError('invalid_request:uri_too_long', 'too long');
    expect([error.error, error.status]).toEqual(['invalid_request', 414]);
  });

  it('withDescription and withHeaders keep the status and spec', () => {
    const error = oauthError('use_dpop_nonce:at_resource', 'nonce', { 'dpop-nonce': 'n1' });
    const described = error.withDescription('nonce, hint');
    const headed = described.withHeaders({ 'www-authenticate': 'DPoP error="use_dpop_nonce"' });
    expect([headed.status, headed.spec, headed.description]).toEqual([401, error.spec, 'nonce, hint']);
    expect(headed.headers).toEqual({ 'dpop-nonce': 'n1', 'www-authenticate': 'DPoP error="use_dpop_nonce"' });
  });

  it('a framework status stays a 4xx invalid_request', () => {
    const error = OAuthError.fromHttpStatus(406, 'not acceptable');
    expect([error.error, error.status]).toEqual(['invalid_request', 406]);
  });

  it('isErrorCode accepts table codes only, never inherited names', () => {
    expect(isErrorCode('invalid_grant')).toBe(true);
    expect(isErrorCode('invalid_request:uri_too_long')).toBe(false);
    fc.assert(
      fc.property(fc.constantFrom('toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf'), (name) => {
        expect(isErrorCode(name)).toBe(false);
      }),
    );
  });
});
