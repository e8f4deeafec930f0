/**
 * Issue 16: the verifier's DCQL verdict over a vp_token (each presentation answers the credential
 * query it is presented under; then credential_sets / every query) equals the `dcql` package's
 * `DcqlPresentationResult.fromDcqlPresentation(...).can_be_satisfied`, on generated queries and
 * presentation records. The spec divergence of claims path processing documented in
 * test/interop/credentials/dcql.test.ts is excluded the same way and counted; in presentation
 * mode the package also ignores an index step (see `LibReading`), which the last test shows.
 */
import { DcqlPresentationResult, DcqlQuery as LibQuery } from 'dcql';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DcqlQuery, StoredCredential } from '../../../services/credentials/dcql/index.ts';
import { dcqlReasons } from '../../../services/verifier/dcql-verdict.ts';
import { divergent, query, toLib, wallet } from '../../support/dcql-arbitraries.ts';

describe('verifier DCQL verdict equals the dcql package on generated presentations', () => {
  it('property: verified iff dcql says the presentation record satisfies the query', () => {
    let accepted = 0;
    let excluded = 0;
    let peerFailed = 0;
    fc.assert(
      fc.property(
        query.chain((q) =>
          fc.tuple(
            fc.constant(q),
            wallet,
            fc.array(fc.tuple(fc.constantFrom(...q.credentials.map((c) => c.id)), fc.integer({ min: 0, max: 4 })), {
              maxLength: 4,
            }),
          ),
        ),
        ([q, creds, picks]) => {
          // A presentation record: query id -> the wallet credentials handed in under it (one unless `multiple`).
          const presented = new Map<string, StoredCredential[]>();
          for (const [queryId, index] of picks) {
            const c = creds[index];
            if (!c) continue;
            const list = presented.get(queryId) ?? [];
            const multiple = q.credentials.find((cq) => cq.id === queryId)?.multiple === true;
            if (list.length === 0 || multiple) presented.set(queryId, [...list, c]);
          }
          if (divergent(q, [...presented.values()].flat(), 'presentation')) {
            excluded++;
            fc.pre(false);
          }
          const parsed = LibQuery.parse(q as never);
          LibQuery.validate(parsed);
          const record = Object.fromEntries([...presented].map(([id, list]) => [id, list.map(toLib)]));
          // dcql throws (instead of answering false) for some invalid records, e.g. a credential of another
          // format than its query's; such a throw is its "not satisfied". A TypeError is dcql failing in its
          // own code (dcql 3.0.0 reads `.message` of undefined on a claims path through a missing array,
          // e.g. ["c", 0, null] where c is absent): it says nothing, so the case is set aside and counted.
          let theirs: boolean;
          try {
            theirs = DcqlPresentationResult.fromDcqlPresentation(record as never, {
              dcqlQuery: parsed,
            }).can_be_satisfied;
          } catch (error) {
            if (error instanceof TypeError) {
              peerFailed++;
              fc.pre(false);
            }
            theirs = false;
          }
          const ours = dcqlReasons(q, presented).length === 0;
          if (ours) accepted++;
          expect(ours).toBe(theirs);
        },
      ),
      { numRuns: 1500 },
    );
    // Both verdicts occur, and the excluded corner stays a corner.
    expect(accepted).toBeGreaterThan(20);
    expect(excluded).toBeLessThan(150);
    expect(peerFailed).toBeLessThan(150);
  });

  it('the divergence itself: in presentation mode dcql ignores an index step, the spec and we do not', () => {
    const held: StoredCredential = {
      id: 'w0',
      format: 'jwt_vc_json',
      type: ['T2'],
      claims: { a: [false, 1] },
      cryptographicHolderBinding: true,
    } as StoredCredential;
    for (const claim of [
      { path: ['a', 2] }, // no element 2
      { path: ['a', 0], values: [1] }, // element 0 is false
    ]) {
      const q = {
        credentials: [{ id: 'q0', format: 'jwt_vc_json', meta: { type_values: [['T2']] }, claims: [claim] }],
      } as DcqlQuery;
      const parsed = LibQuery.parse(q as never);
      const record = { q0: [toLib(held)] };
      expect(DcqlPresentationResult.fromDcqlPresentation(record as never, { dcqlQuery: parsed }).can_be_satisfied).toBe(
        true,
      );
      expect(LibQuery.query(parsed, [toLib(held)]).can_be_satisfied).toBe(false);
      expect(dcqlReasons(q, new Map([['q0', [held]]]))).not.toEqual([]);
    }
  });
});
