import { evaluateDcql } from '../credentials/dcql/evaluate.ts';
import type { CredentialQuery, DcqlQuery, StoredCredential } from '../credentials/dcql/types.ts';
import type { PresentationReason } from '../../machines/presentation.ts';

/** Whether one presented credential is an answer to the credential query it was presented under. */
function answersQuery(query: CredentialQuery, credential: StoredCredential): boolean {
  return evaluateDcql({ credentials: [query] }, [credential]).queries[query.id]?.success === true;
}

/**
 * Which credential queries were answered well enough (OpenID4VP 1.0 §6.4.2): without
 * `credential_sets` every credential query; with them, for each required set, one option whose
 * queries were all answered. `answered` holds the ids whose presentations all verified and matched.
 */
function unsatisfied(query: DcqlQuery, answered: ReadonlySet<string>): PresentationReason[] {
  if (!query.credential_sets) {
    return query.credentials
      .filter((c) => !answered.has(c.id))
      .map((c) => ({
        credential_query_id: c.id,
        check: 'dcql',
        reason: 'no valid presentation answers this credential query',
      }));
  }
  return query.credential_sets.flatMap((set, i) =>
    set.required === false || set.options.some((option) => option.every((id) => answered.has(id)))
      ? []
      : [{ check: 'dcql', reason: `credential_sets[${i}] is required and none of its options was answered` }],
  );
}

/**
 * The DCQL verdict over verified presentations (query id -> the credentials presented under it):
 * each must answer its own credential query, then the query as a whole must be satisfied.
 * `failed` names queries with a presentation that did not verify. A query answered wrongly (or not
 * verified) is reported for that, not as missing as well: the verdict is a rejection either way.
 */
export function dcqlReasons(
  query: DcqlQuery,
  presented: ReadonlyMap<string, StoredCredential[]>,
  failed: ReadonlySet<string> = new Set(),
): PresentationReason[] {
  const queries = new Map(query.credentials.map((c) => [c.id, c]));
  const reasons: PresentationReason[] = [];
  const answered = new Set<string>();
  for (const [queryId, credentials] of presented) {
    const credentialQuery = queries.get(queryId);
    if (!credentialQuery) continue;
    const mismatched = credentials.filter((c) => !answersQuery(credentialQuery, c)).length;
    for (let i = 0; i < mismatched; i++)
      reasons.push({
        credential_query_id: queryId,
        check: 'dcql',
        reason: 'a presented credential does not match this credential query',
      });
    // A query that was answered, even wrongly, already has its reason; it is not reported missing too.
    if (credentials.length > 0 || failed.has(queryId)) answered.add(queryId);
  }
  return [...reasons, ...unsatisfied(query, answered)];
}
