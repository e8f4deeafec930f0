import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isNotificationDescription,
  offerOf,
  requestedConfiguration,
  sixDigits,
} from '../../../services/issuer/request-rules.ts';
import { refusalOf } from '../../support/refusal.ts';

// Issue 37: the issuer's request rules are named functions, each tested alone.
const codeOf = (f: () => unknown) => refusalOf(f)?.error;
const details = [{ credential_configuration_id: 'Degree', credential_identifiers: ['degree-1', 'degree-2'] }];

describe('requestedConfiguration (OpenID4VCI 1.0 §8.2)', () => {
  it('without credential_identifiers in the token: exactly credential_configuration_id', () => {
    expect(requestedConfiguration({ credential_configuration_id: 'Degree' }, undefined)).toBe('Degree');
    expect(codeOf(() => requestedConfiguration({}, undefined))).toBe('invalid_credential_request');
    expect(codeOf(() => requestedConfiguration({ credential_identifier: 'x' }, undefined))).toBe(
      'unknown_credential_identifier',
    );
  });

  it('with credential_identifiers: exactly credential_identifier, one the token names', () => {
    expect(requestedConfiguration({ credential_identifier: 'degree-2' }, details)).toBe('Degree');
    expect(codeOf(() => requestedConfiguration({ credential_identifier: 'other' }, details))).toBe(
      'unknown_credential_identifier',
    );
    expect(codeOf(() => requestedConfiguration({ credential_configuration_id: 'Degree' }, details))).toBe(
      'invalid_credential_request',
    );
  });

  it('both members at once are refused whatever the token says', () => {
    fc.assert(
      fc.property(fc.constantFrom(undefined, details), (d) => {
        const both = { credential_identifier: 'degree-1', credential_configuration_id: 'Degree' };
        expect(codeOf(() => requestedConfiguration(both, d))).toBe('invalid_credential_request');
      }),
    );
  });
});

describe('the other request rules', () => {
  it('event_description is ASCII without a double quote or a backslash (OpenID4VCI 1.0 §11.1)', () => {
    expect(isNotificationDescription('stored in the wallet')).toBe(true);
    for (const bad of ['say "hi"', 'back\\slash', 'é', '\n', 42]) expect(isNotificationDescription(bad)).toBe(false);
  });

  it('a code or id names its offer only in the <offer_id>.<secret> shape', () => {
    expect(offerOf('abcdefgh12.0123456789abcdefXYZ')).toBe('abcdefgh12');
    for (const bad of ['short.0123456789abcdef', 'abcdefgh12', 'abcdefgh12.tooshort', 17])
      expect(offerOf(bad)).toBeUndefined();
  });

  it('transaction codes are six digits', () => {
    for (let i = 0; i < 50; i++) expect(sixDigits()).toMatch(/^\d{6}$/);
  });
});
