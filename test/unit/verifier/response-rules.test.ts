import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encryptedResponse,
  requireClearResponseAllowed,
  requireIssuedState,
  requireUnanswered,
  walletError,
} from '../../../services/verifier/response-rules.ts';
import { hashOf } from '../../../services/verifier/rules.ts';
import { refusalOf } from '../../support/refusal.ts';

// Issue 37: the verifier's response endpoint is a list of named checks, each tested alone.
const refusal = (f: () => unknown) => {
  const e = refusalOf(f);
  return e && `${e.status} ${e.error}: ${e.description}`;
};
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const requestId = 'AAAAAAAAbbbbbbbbccccccccc'.slice(0, 24);

describe('the response endpoint checks (OpenID4VP 1.0 §8)', () => {
  it('requireUnanswered: only a created or fetched request is answered', () => {
    expect(refusal(() => requireUnanswered({ value: 'created' }))).toBeUndefined();
    expect(refusal(() => requireUnanswered({ value: 'fetched' }))).toBeUndefined();
    expect(refusal(() => requireUnanswered({ value: 'expired' }))).toMatch(
      /^400 invalid_request: The request has expired/,
    );
    for (const status of ['verified', 'rejected', 'wallet_error', 'response_received'])
      expect(refusal(() => requireUnanswered({ value: status }))).toMatch(/already been answered/);
  });

  it('requireIssuedState: the state whose hash the request keeps, and no other', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (issued, sent) => {
        const outcome = refusal(() => requireIssuedState({ value: 'created' }, hashOf(issued), sent));
        expect(outcome === undefined).toBe(issued === sent);
      }),
    );
    expect(refusal(() => requireIssuedState({ value: 'new' }, hashOf('s'), 's'))).toMatch(/state names no request/);
    expect(refusal(() => requireIssuedState({ value: 'created' }, undefined, 's'))).toMatch(/state names no request/);
  });

  it('requireClearResponseAllowed: direct_post.jwt takes only an error in the clear', () => {
    expect(refusal(() => requireClearResponseAllowed('direct_post', { vp_token: {} }))).toBeUndefined();
    expect(refusal(() => requireClearResponseAllowed('direct_post.jwt', { error: 'access_denied' }))).toBeUndefined();
    expect(refusal(() => requireClearResponseAllowed('direct_post.jwt', { vp_token: {} }))).toMatch(/encrypted/);
    expect(refusal(() => requireClearResponseAllowed('direct_post.jwt', { error: 'x', vp_token: {} }))).toMatch(
      /encrypted/,
    );
  });

  it("encryptedResponse: a compact JWE whose kid names a request's key", () => {
    const jwe = `${b64({ alg: 'ECDH-ES', enc: 'A128GCM', kid: `${requestId}.enc` })}.a.b.c.d`;
    expect(encryptedResponse(jwe)).toEqual({ jwe, requestId });
    expect(refusal(() => encryptedResponse('a.b.c'))).toMatch(/compact JWE/);
    expect(refusal(() => encryptedResponse(42))).toMatch(/compact JWE/);
    expect(refusal(() => encryptedResponse('!!.a.b.c.d'))).toMatch(/not a JWE/);
    expect(refusal(() => encryptedResponse(`${b64({ kid: requestId })}.a.b.c.d`))).toMatch(/names no request key/);
    expect(refusal(() => encryptedResponse(`${b64({ kid: 'short.enc' })}.a.b.c.d`))).toMatch(/names no request key/);
  });

  it('walletError: a short ASCII code; the description is cut at 500 characters', () => {
    expect(walletError({ error: 'access_denied' })).toEqual({ error: 'access_denied' });
    expect(walletError({ error: 'x', error_description: 'd'.repeat(600) }).error_description).toHaveLength(500);
    for (const error of [undefined, 5, '', 'quote"', 'back\\slash', 'é', 'x'.repeat(101)])
      expect(refusal(() => walletError({ error }))).toMatch(/error must be an error code/);
  });
});
