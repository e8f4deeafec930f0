/**
 * Generators of DCQL queries and stored credentials, shared by the property tests that hold our DCQL
 * decisions (codec layer and verifier verdict) against the `dcql` package. See
 * test/interop/credentials/dcql.test.ts for the known divergence that `divergent` excludes.
 */
import type { DcqlCredential } from 'dcql';
import fc from 'fast-check';
import {
  selectClaims,
  type CredentialQuery,
  type DcqlQuery,
  type StoredCredential,
} from '../../services/credentials/dcql/index.ts';

const KEYS = ['a', 'b', 'c'];
const SCALARS = ['x', 'y', 1, 2, true, false];
const scalar = fc.constantFrom<string | number | boolean>(...SCALARS);
const json = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('v'), { maxKeys: 3, noNullPrototype: true }),
  ),
})).v;
const claimsObject = fc.dictionary(fc.constantFrom(...KEYS), json, { minKeys: 1, maxKeys: 3, noNullPrototype: true });
const authority = fc.option(
  fc.record({ type: fc.constant('aki'), values: fc.subarray(['azE', 'azI', 'azM'], { minLength: 1 }) }),
  { nil: undefined },
);

export const credential: fc.Arbitrary<StoredCredential> = fc
  .oneof(
    fc.record({
      format: fc.constant('dc+sd-jwt' as const),
      vct: fc.constantFrom('urn:a', 'urn:b'),
      claims: claimsObject,
      cryptographicHolderBinding: fc.boolean(),
      authority,
    }),
    fc.record({
      format: fc.constant('mso_mdoc' as const),
      doctype: fc.constantFrom('d.1', 'd.2'),
      namespaces: fc.dictionary(
        fc.constantFrom('n1', 'n2'),
        fc.dictionary(fc.constantFrom('e1', 'e2', 'e3'), fc.oneof(scalar, fc.constant(null)), {
          maxKeys: 3,
          noNullPrototype: true,
        }),
        { maxKeys: 2, noNullPrototype: true },
      ),
      cryptographicHolderBinding: fc.boolean(),
      authority,
    }),
    fc.record({
      format: fc.constantFrom('jwt_vc_json' as const, 'ldp_vc' as const),
      type: fc.subarray(['VerifiableCredential', 'T1', 'T2'], { minLength: 1 }),
      claims: claimsObject,
      cryptographicHolderBinding: fc.boolean(),
      authority,
    }),
  )
  .map(({ authority: a, ...c }) => ({ ...c, id: '', ...(a ? { authorities: [a] } : {}) }) as StoredCredential);

const jsonPath = fc
  .array(fc.oneof(fc.constantFrom(...KEYS), fc.constantFrom(null, 0, 1)), { minLength: 1, maxLength: 3 })
  .filter((p) => typeof p[0] === 'string');
const values = fc.option(fc.uniqueArray(scalar, { minLength: 1, maxLength: 3 }), { nil: undefined });

function credentialQuery(id: string): fc.Arbitrary<CredentialQuery> {
  const common = {
    multiple: fc.option(fc.boolean(), { nil: undefined }),
    require_cryptographic_holder_binding: fc.option(fc.boolean(), { nil: undefined }),
    trusted_authorities: fc.option(fc.constant([{ type: 'aki', values: ['azE', 'azM'] }]), { nil: undefined }),
  };
  const withClaims = (
    claims: fc.Arbitrary<{ path: (string | number | null)[]; values?: (string | number | boolean)[] }[]>,
  ) =>
    fc.tuple(claims, fc.boolean(), fc.integer({ min: 1, max: 3 })).chain(([cs, sets, n]) => {
      if (!cs.length) return fc.constant({});
      if (!sets) return fc.constant({ claims: cs.map((c) => (c.values ? c : { path: c.path })) });
      const ids = cs.map((_, i) => `c${i}`);
      return fc.array(fc.subarray(ids, { minLength: 1 }), { minLength: 1, maxLength: n }).map((claim_sets) => ({
        claims: cs
          .map((c, i) => ({ id: ids[i], ...c, ...(c.values ? {} : { values: undefined }) }))
          .map(({ values: v, ...rest }) => (v ? { ...rest, values: v } : rest)),
        claim_sets,
      }));
    });
  return fc
    .oneof(
      fc.record({
        ...common,
        format: fc.constant('dc+sd-jwt'),
        meta: fc.option(fc.record({ vct_values: fc.subarray(['urn:a', 'urn:b', 'urn:c'], { minLength: 1 }) }), {
          nil: undefined,
        }),
        extra: withClaims(
          fc.array(fc.record({ path: jsonPath, values }, { requiredKeys: ['path'] }), { maxLength: 3 }),
        ),
      }),
      fc.record({
        ...common,
        format: fc.constant('mso_mdoc'),
        meta: fc.option(fc.record({ doctype_value: fc.constantFrom('d.1', 'd.2') }), { nil: undefined }),
        extra: withClaims(
          fc.array(
            fc.record(
              { path: fc.tuple(fc.constantFrom('n1', 'n2'), fc.constantFrom('e1', 'e2', 'e3')), values },
              { requiredKeys: ['path'] },
            ),
            { maxLength: 3 },
          ),
        ),
      }),
      fc.record({
        ...common,
        format: fc.constantFrom('jwt_vc_json', 'ldp_vc'),
        meta: fc.record({
          type_values: fc.array(fc.subarray(['VerifiableCredential', 'T1', 'T2'], { minLength: 1 }), {
            minLength: 1,
            maxLength: 2,
          }),
        }),
        extra: withClaims(
          fc.array(fc.record({ path: jsonPath, values }, { requiredKeys: ['path'] }), { maxLength: 3 }),
        ),
      }),
    )
    .map(({ extra, ...q }) => {
      const out = Object.fromEntries(Object.entries({ id, ...q, ...extra }).filter(([, v]) => v !== undefined));
      return out as unknown as CredentialQuery;
    });
}

export const query: fc.Arbitrary<DcqlQuery> = fc.integer({ min: 1, max: 3 }).chain((n) => {
  const ids = Array.from({ length: n }, (_, i) => `q${i}`);
  return fc
    .record({
      credentials: fc.tuple(...ids.map(credentialQuery)),
      credential_sets: fc.option(
        fc.array(
          fc
            .record({
              options: fc.array(fc.subarray(ids, { minLength: 1 }), { minLength: 1, maxLength: 3 }),
              required: fc.option(fc.boolean(), { nil: undefined }),
            })
            .map((s) => (s.required === undefined ? { options: s.options } : s)),
          { minLength: 1, maxLength: 2 },
        ),
        { nil: undefined },
      ),
    })
    .map((q) => (q.credential_sets ? q : { credentials: q.credentials }) as DcqlQuery);
});

/**
 * How the `dcql` package reads a path. Query mode (`DcqlQuery.query`) honours an index; presentation
 * mode (`DcqlPresentationResult.fromDcqlPresentation`) ignores it, so `["a", 1]` matches
 * `{"a": [false]}` there (selective disclosure may drop array elements and shift the rest).
 */
export type LibReading = 'query' | 'presentation';

/**
 * The `dcql` package's reading of a path, as a model: branches of the wrong type fail only
 * themselves, any matching branch is enough, and a null step over an empty array succeeds
 * vacuously (its "every element failed" check is true for no elements).
 */
export function lenientMatch(
  v: unknown,
  path: (string | number | null)[],
  ok: (v: unknown) => boolean,
  reading: LibReading = 'query',
): boolean {
  if (path.length === 0) return ok(v);
  const [step, ...rest] = path;
  if (typeof step === 'string')
    return (
      !!v &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      Object.hasOwn(v, step) &&
      lenientMatch((v as Record<string, unknown>)[step], rest, ok, reading)
    );
  if (!Array.isArray(v)) return false;
  if (step === null) return v.length === 0 || v.some((e) => lenientMatch(e, rest, ok, reading));
  if (reading === 'presentation') return v.length > 0 && v.some((e) => lenientMatch(e, rest, ok, reading));
  return step < v.length && lenientMatch(v[step], rest, ok, reading);
}

/** Whether some claim of `q` is decided differently by the spec's strict pointer processing and the package's lenient one. */
export function divergent(q: DcqlQuery, creds: StoredCredential[], reading: LibReading = 'query'): boolean {
  return q.credentials.some((cq) =>
    (cq.claims ?? []).some((claim) =>
      creds.some((c) => {
        if (c.format === 'mso_mdoc' || c.format !== cq.format) return false;
        const ok = (v: unknown) => (claim.values ? claim.values.some((x) => x === v) : v !== null && v !== undefined);
        return (
          selectClaims(c.claims, claim.path).some((h) => ok(h.value)) !==
          lenientMatch(c.claims, claim.path, ok, reading)
        );
      }),
    ),
  );
}

export const wallet = fc
  .array(credential, { maxLength: 5 })
  .map((cs) => cs.map((c, i) => ({ ...c, id: `w${i}` }) as StoredCredential));

/** Our stored credential in the shape the dcql package takes. */
export function toLib(c: StoredCredential): DcqlCredential {
  const base = {
    cryptographic_holder_binding: c.cryptographicHolderBinding,
    ...(c.authorities ? { authority: c.authorities[0] as { type: 'aki'; values: [string, ...string[]] } } : {}),
  };
  if (c.format === 'mso_mdoc')
    return { ...base, credential_format: 'mso_mdoc', doctype: c.doctype, namespaces: c.namespaces };
  if (c.format === 'dc+sd-jwt' || c.format === 'vc+sd-jwt')
    return { ...base, credential_format: c.format, vct: c.vct, claims: c.claims as never };
  return {
    ...base,
    credential_format: c.format as 'ldp_vc' | 'jwt_vc_json',
    type: (c as { type: string[] }).type,
    claims: c.claims as never,
  };
}
