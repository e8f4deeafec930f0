import { describe, expect, it } from 'vitest';
import {
  DcqlQueryError,
  evaluateDcql,
  selectClaims,
  type DcqlQuery,
  type StoredCredential,
} from '../../../services/credentials/dcql/index.ts';

const pid: StoredCredential = {
  id: 'pid-sd-jwt',
  format: 'dc+sd-jwt',
  vct: 'urn:eudi:pid:1',
  cryptographicHolderBinding: true,
  claims: {
    given_name: 'Alice',
    family_name: 'Anderson',
    address: { street_address: '1 Rue de Rivoli', locality: 'Paris' },
    nationalities: ['FR', 'DE'],
    age_equal_or_over: { '18': true },
  },
  authorities: [{ type: 'aki', values: ['s9tIpPmhxdiuNkHMEWNpYim8S8Y'] }],
};
const mdl: StoredCredential = {
  id: 'mdl',
  format: 'mso_mdoc',
  doctype: 'org.iso.18013.5.1.mDL',
  cryptographicHolderBinding: true,
  namespaces: {
    'org.iso.18013.5.1': {
      given_name: 'Alice',
      family_name: 'Anderson',
      age_over_18: true,
      driving_privileges: [{ vehicle_category_code: 'B' }],
    },
  },
};
const diploma: StoredCredential = {
  id: 'diploma',
  format: 'jwt_vc_json',
  type: ['VerifiableCredential', 'UniversityDegreeCredential'],
  cryptographicHolderBinding: false,
  claims: { credentialSubject: { degree: { type: 'BachelorDegree', name: 'BSc' } } },
};
const store = [pid, mdl, diploma];

describe('DCQL claims path pointers (OpenID4VP 1.0 §7)', () => {
  it('selects members, array elements and all elements with null', () => {
    expect(selectClaims(pid.format === 'dc+sd-jwt' ? pid.claims : {}, ['address', 'locality'])).toEqual([
      { path: ['address', 'locality'], value: 'Paris' },
    ]);
    expect(selectClaims((pid as { claims: unknown }).claims, ['nationalities', 1])).toEqual([
      { path: ['nationalities', 1], value: 'DE' },
    ]);
    expect(selectClaims((pid as { claims: unknown }).claims, ['nationalities', null]).map((s) => s.value)).toEqual([
      'FR',
      'DE',
    ]);
    expect(selectClaims((pid as { claims: unknown }).claims, ['nationalities', 'x'])).toEqual([]);
    expect(selectClaims((pid as { claims: unknown }).claims, ['given_name', 0])).toEqual([]);
  });

  it('fails the whole pointer when a selected element has the wrong type or the selection is empty (§7.1.1)', () => {
    const root = { mixed: [{ x: 1 }, 5], nested: [[1], 'x'], empty: [], some: [{ x: 1 }, { y: 2 }] };
    expect(selectClaims(root, ['mixed', null, 'x'])).toEqual([]); // 5 is not an object
    expect(selectClaims(root, ['nested', null, 0])).toEqual([]); // 'x' is not an array
    expect(selectClaims(root, ['empty', null])).toEqual([]); // nothing selected
    expect(selectClaims(root, ['some', null, 'x'])).toEqual([{ path: ['some', 0, 'x'], value: 1 }]); // objects without the key drop out
  });
});

describe('DCQL evaluation', () => {
  it('matches format, vct_values and claims; reports the concrete claim paths to release', () => {
    const query: DcqlQuery = {
      credentials: [
        {
          id: 'pid',
          format: 'dc+sd-jwt',
          meta: { vct_values: ['urn:eudi:pid:1'] },
          claims: [{ path: ['given_name'] }, { path: ['nationalities', null], values: ['DE'] }],
        },
      ],
    };
    const r = evaluateDcql(query, store);
    expect(r.satisfied).toBe(true);
    expect(r.selection).toEqual({
      pid: [
        {
          credentialId: 'pid-sd-jwt',
          claims: [
            { index: 0, paths: [['given_name']] },
            { index: 1, paths: [['nationalities', 1]] },
          ],
        },
      ],
    });
    expect(
      evaluateDcql({ credentials: [{ ...query.credentials[0], meta: { vct_values: ['urn:other'] } }] }, store)
        .satisfied,
    ).toBe(false);
  });

  it('mdoc claims are [namespace, element]; doctype_value must match', () => {
    const r = evaluateDcql(
      {
        credentials: [
          {
            id: 'mdl',
            format: 'mso_mdoc',
            meta: { doctype_value: 'org.iso.18013.5.1.mDL' },
            claims: [{ path: ['org.iso.18013.5.1', 'age_over_18'], values: [true] }],
          },
        ],
      },
      store,
    );
    expect(r.selection?.mdl[0].credentialId).toBe('mdl');
    expect(
      evaluateDcql(
        { credentials: [{ id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: 'eu.europa.ec.eudi.pid.1' } }] },
        store,
      ).satisfied,
    ).toBe(false);
    expect(
      evaluateDcql(
        {
          credentials: [
            {
              id: 'mdl',
              format: 'mso_mdoc',
              claims: [{ path: ['org.iso.18013.5.1', 'age_over_18'], values: [false] }],
            },
          ],
        },
        store,
      ).satisfied,
    ).toBe(false);
  });

  it('values compare type and value: "18" is not 18 and 1 is not true', () => {
    const q = (values: (string | number | boolean)[]): DcqlQuery => ({
      credentials: [{ id: 'q', format: 'dc+sd-jwt', claims: [{ path: ['age_equal_or_over', '18'], values }] }],
    });
    expect(evaluateDcql(q([true]), store).satisfied).toBe(true);
    expect(evaluateDcql(q(['true']), store).satisfied).toBe(false);
    expect(evaluateDcql(q([1]), store).satisfied).toBe(false);
  });

  it('claim_sets: the first satisfiable option wins, and only its claims are released', () => {
    const query: DcqlQuery = {
      credentials: [
        {
          id: 'pid',
          format: 'dc+sd-jwt',
          claims: [
            { id: 'a', path: ['birthdate'] },
            { id: 'b', path: ['age_equal_or_over', '18'] },
            { id: 'c', path: ['given_name'] },
            { id: 'd', path: ['family_name'] },
          ],
          claim_sets: [['a', 'c'], ['b', 'c', 'd'], ['c']],
        },
      ],
    };
    const match = evaluateDcql(query, store).selection!.pid[0];
    expect(match.claimSetIndex).toBe(1);
    expect(match.claims.map((c) => c.id)).toEqual(['b', 'c', 'd']);
  });

  it('require_cryptographic_holder_binding defaults to true', () => {
    const base = { id: 'deg', format: 'jwt_vc_json', meta: { type_values: [['UniversityDegreeCredential']] } };
    expect(evaluateDcql({ credentials: [base] }, store).satisfied).toBe(false);
    expect(
      evaluateDcql({ credentials: [{ ...base, require_cryptographic_holder_binding: false }] }, store).selection!.deg[0]
        .credentialId,
    ).toBe('diploma');
  });

  it('trusted_authorities: one shared value of the same type is enough', () => {
    const q = (values: string[], type = 'aki'): DcqlQuery => ({
      credentials: [{ id: 'pid', format: 'dc+sd-jwt', trusted_authorities: [{ type, values }] }],
    });
    expect(evaluateDcql(q(['other', 's9tIpPmhxdiuNkHMEWNpYim8S8Y']), store).satisfied).toBe(true);
    expect(evaluateDcql(q(['other']), store).satisfied).toBe(false);
    expect(evaluateDcql(q(['s9tIpPmhxdiuNkHMEWNpYim8S8Y'], 'etsi_tl'), store).satisfied).toBe(false);
  });

  it('credential_sets: required sets need a matching option; optional ones do not; selection follows the first matching option', () => {
    const query: DcqlQuery = {
      credentials: [
        { id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: ['urn:eudi:pid:1'] } },
        { id: 'other_pid', format: 'dc+sd-jwt', meta: { vct_values: ['urn:other'] } },
        { id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: 'org.iso.18013.5.1.mDL' } },
        { id: 'loyalty', format: 'dc+sd-jwt', meta: { vct_values: ['urn:loyalty'] } },
      ],
      credential_sets: [{ options: [['other_pid'], ['pid', 'mdl']] }, { options: [['loyalty']], required: false }],
    };
    const r = evaluateDcql(query, store);
    expect(r.satisfied).toBe(true);
    expect(r.credentialSets).toEqual([
      { required: true, matchingOptions: [['pid', 'mdl']] },
      { required: false, matchingOptions: [] },
    ]);
    expect(Object.keys(r.selection!).sort()).toEqual(['mdl', 'pid']);
    expect(evaluateDcql({ ...query, credential_sets: [{ options: [['other_pid']] }] }, store).satisfied).toBe(false);
  });

  it('multiple: false selects one credential, true all matches', () => {
    const second = { ...pid, id: 'pid-2' };
    const q = (multiple: boolean): DcqlQuery => ({ credentials: [{ id: 'pid', format: 'dc+sd-jwt', multiple }] });
    expect(evaluateDcql(q(false), [pid, second]).selection!.pid.map((m) => m.credentialId)).toEqual(['pid-sd-jwt']);
    expect(evaluateDcql(q(true), [pid, second]).selection!.pid.map((m) => m.credentialId)).toEqual([
      'pid-sd-jwt',
      'pid-2',
    ]);
  });

  it.each([
    ['no credentials', { credentials: [] }],
    [
      'duplicate ids',
      {
        credentials: [
          { id: 'a', format: 'dc+sd-jwt' },
          { id: 'a', format: 'mso_mdoc' },
        ],
      },
    ],
    ['an id with a space', { credentials: [{ id: 'a b', format: 'dc+sd-jwt' }] }],
    [
      'a claim set naming an unknown claim',
      { credentials: [{ id: 'a', format: 'dc+sd-jwt', claims: [{ id: 'x', path: ['x'] }], claim_sets: [['y']] }] },
    ],
    ['claim_sets without claims', { credentials: [{ id: 'a', format: 'dc+sd-jwt', claim_sets: [['y']] }] }],
    [
      'a credential set naming an unknown query',
      { credentials: [{ id: 'a', format: 'dc+sd-jwt' }], credential_sets: [{ options: [['b']] }] },
    ],
    [
      'an mdoc path of three elements',
      { credentials: [{ id: 'a', format: 'mso_mdoc', claims: [{ path: ['ns', 'el', 'x'] }] }] },
    ],
    ['an empty path', { credentials: [{ id: 'a', format: 'dc+sd-jwt', claims: [{ path: [] }] }] }],
    ['a negative index', { credentials: [{ id: 'a', format: 'dc+sd-jwt', claims: [{ path: ['a', -1] }] }] }],
    ['empty values', { credentials: [{ id: 'a', format: 'dc+sd-jwt', claims: [{ path: ['a'], values: [] }] }] }],
  ])('refuses a query with %s', (_what, query) => {
    expect(() => evaluateDcql(query as DcqlQuery, store)).toThrow(DcqlQueryError);
  });
});
