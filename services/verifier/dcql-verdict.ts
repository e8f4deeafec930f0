import { evaluateDcql } from '../credentials/dcql/evaluate.ts';
import type { CredentialQuery, DcqlQuery, StoredCredential } from '../credentials/dcql/types.ts';
import type { PresentationReason } from '../../machines/presentation.ts';

/** Whether one presented credential is an answer to the credential query it was presented under. */
export function answersQuery(query: CredentialQuery, credential: StoredCredential): boolean {
  return evaluateDcql({ credentials: [query] }, [credential]).queries[query.id]?.success === true;
}

/**
 * Which credential queries were answered well enough (OpenID4VP 1.0 §6.4.2): without
 * `credential_sets` every credential query; with them, for each required set, one option whose
 * queries were all answered. `answered` holds the ids whose presentations all verified and matched.
 */
export function unsatisfied(query: DcqlQuery, answered: ReadonlySet<string>): PresentationReason[] {
  if (!query.credential_sets) {
    return query.credentials.filter((c) => !answered.has(c.id)).map((c) => ({ credential_query_id: c.id, check: 'dcql', reason: 'no valid presentation answers this credential query' }));
  }
  return query.credential_sets.flatMap((set, i) =>
    set.required === false || set.options.some((option) => option.every((id) => answered.has(id))) ? [] : [{ check: 'dcql', reason: `credential_sets[${i}] is required and none of its options was answered` }],
  );
}

/** True when the query as a whole is satisfied by these answers. */
export const dcqlSatisfied = (query: DcqlQuery, answered: ReadonlySet<string>) => unsatisfied(query, answered).length === 0;
