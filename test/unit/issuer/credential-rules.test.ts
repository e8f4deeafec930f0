import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  credentialRequestObject,
  deferredTransactionId,
  keyProofJwts,
  requestedCredentialConfiguration,
  requireConfigurationScope,
  requireLiveOfferToken,
} from '../../../services/issuer/credential-rules.ts';
import { hash } from '../../../services/issuer/request-rules.ts';
import type { CredentialConfiguration } from '../../../services/issuer/settings.ts';
import { refusalOf } from '../../support/refusal.ts';

// Issue 37: the credential endpoint is a list of named checks, each tested alone.
const refusal = (f: () => unknown) => {
  const e = refusalOf(f);
  return e && { error: e.error, status: e.status, challenge: e.headers?.['www-authenticate'] };
};
const degree: CredentialConfiguration = {
  id: 'Degree',
  format: 'dc+sd-jwt',
  scope: 'degree',
  type: 'Degree',
  proofAlgs: ['ES256'],
};
const configurations = new Map([[degree.id, degree]]);

describe('the credential endpoint checks (OpenID4VCI 1.0 §8)', () => {
  it('requireLiveOfferToken: only the token whose hash the offer keeps', () => {
    expect(refusal(() => requireLiveOfferToken('t1', { version: 3, tokenHash: hash('t1') }))).toBeUndefined();
    expect(refusal(() => requireLiveOfferToken('t2', { version: 3, tokenHash: hash('t1') }))).toMatchObject({
      error: 'invalid_token',
      status: 401,
    });
    expect(refusal(() => requireLiveOfferToken('t1', { version: 0, tokenHash: hash('t1') }))?.error).toBe(
      'invalid_token',
    );
  });

  it('credentialRequestObject: anything but a JSON object is invalid_credential_request', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.array(fc.anything())), (body) => {
        expect(refusal(() => credentialRequestObject(body))?.error).toBe('invalid_credential_request');
      }),
    );
    expect(credentialRequestObject({ a: 1 })).toEqual({ a: 1 });
  });

  it('requestedCredentialConfiguration: a configuration of this issuer, never a prototype name', () => {
    expect(requestedCredentialConfiguration({ credential_configuration_id: 'Degree' }, undefined, configurations)).toBe(
      degree,
    );
    for (const id of ['Other', '__proto__', 'constructor'])
      expect(
        refusal(() => requestedCredentialConfiguration({ credential_configuration_id: id }, undefined, configurations))
          ?.error,
      ).toBe('unknown_credential_configuration');
  });

  it("requireConfigurationScope: 403 insufficient_scope with the token's scheme in the challenge", () => {
    expect(refusal(() => requireConfigurationScope({ scope: 'openid degree' }, degree))).toBeUndefined();
    const bearer = refusal(() => requireConfigurationScope({ scope: 'openid degrees' }, degree));
    expect(bearer).toMatchObject({ error: 'insufficient_scope', status: 403 });
    expect(bearer?.challenge).toMatch(/^Bearer .*scope="degree"/);
    expect(refusal(() => requireConfigurationScope({ cnf: { jkt: 'x' } }, degree))?.challenge).toMatch(/^DPoP /);
  });

  it('keyProofJwts: a non-empty proofs.jwt of at most batch_size; the drafts` proof is one proof, said so (issue 45 item 25)', () => {
    expect(keyProofJwts({ proofs: { jwt: ['a', 'b'] } })).toEqual({ jwts: ['a', 'b'], draft: false });
    expect(keyProofJwts({ proof: { proof_type: 'jwt', jwt: 'a' } })).toEqual({ jwts: ['a'], draft: true });
    expect(refusal(() => keyProofJwts({ proof: { jwt: 'a' } }))?.error).toBe('invalid_proof');
    expect(refusal(() => keyProofJwts({ proof: { proof_type: 'jwt', jwt: 'a' }, proofs: { jwt: ['a'] } }))?.error).toBe(
      'invalid_credential_request',
    );
    expect(refusal(() => keyProofJwts({ proofs: { jwt: [] } }))?.error).toBe('invalid_proof');
    expect(refusal(() => keyProofJwts({ proofs: { jwt: 'a' } }))?.error).toBe('invalid_proof');
    expect(refusal(() => keyProofJwts({ proofs: { jwt: ['a', 'b', 'c'] } }))?.error).toBe('invalid_credential_request');
  });

  it("deferredTransactionId: only an id of the token's own offer", () => {
    const id = 'offer1234.abcdefghijklmnopqrstuv';
    expect(deferredTransactionId({ transaction_id: id }, 'offer1234')).toBe(id);
    for (const body of [{ transaction_id: id }, {}, null, [id], { transaction_id: 5 }])
      expect(refusal(() => deferredTransactionId(body, 'offer9999'))?.error).toBe('invalid_transaction_id');
  });
});
