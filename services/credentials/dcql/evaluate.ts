import { selectClaims, valueMatches } from './claims-path.ts';
import type {
  ClaimMatch,
  CredentialMatch,
  CredentialQuery,
  CredentialQueryResult,
  DcqlQuery,
  DcqlResult,
  StoredCredential,
} from './types.ts';
import { validateDcqlQuery } from './validate.ts';
import { nullRecord } from '../../untrusted/keys.ts';

const SD_JWT_FORMATS = ['dc+sd-jwt', 'vc+sd-jwt'];

/** Format and `meta` (§6.1 and Appendix B): vct_values, doctype_value, type_values. */
function metaMatches(query: CredentialQuery, credential: StoredCredential): boolean {
  if (query.format !== credential.format) return false;
  const meta = query.meta ?? {};
  if (credential.format === 'mso_mdoc')
    return meta.doctype_value === undefined || meta.doctype_value === credential.doctype;
  if (SD_JWT_FORMATS.includes(credential.format))
    return meta.vct_values === undefined || meta.vct_values.includes((credential as { vct: string }).vct);
  const types = (credential as { type: string[] }).type;
  return meta.type_values === undefined || meta.type_values.some((set) => set.every((t) => types.includes(t)));
}

/** §6.1.1: the credential matches when one of its authorities shares a value with one query entry of the same type. */
function authorityMatches(query: CredentialQuery, credential: StoredCredential): boolean {
  if (!query.trusted_authorities) return true;
  return query.trusted_authorities.some((ta) =>
    (credential.authorities ?? []).some((a) => a.type === ta.type && a.values.some((v) => ta.values.includes(v))),
  );
}

function claimMatch(
  credential: StoredCredential,
  claim: NonNullable<CredentialQuery['claims']>[number],
  index: number,
): ClaimMatch | undefined {
  const root = credential.format === 'mso_mdoc' ? credential.namespaces : credential.claims;
  const hits = selectClaims(root, claim.path).filter((h) => valueMatches(h.value, claim.values));
  return hits.length
    ? { index, ...(claim.id !== undefined ? { id: claim.id } : {}), paths: hits.map((h) => h.path) }
    : undefined;
}

/** One credential against one query: meta, holder binding, trusted authorities, then claims / claim_sets (§6.4.1). */
function matchCredential(query: CredentialQuery, credential: StoredCredential): CredentialMatch | undefined {
  if (!metaMatches(query, credential)) return undefined;
  if ((query.require_cryptographic_holder_binding ?? true) && !credential.cryptographicHolderBinding) return undefined;
  if (!authorityMatches(query, credential)) return undefined;
  if (!query.claims) return { credentialId: credential.id, claims: [] };
  const matched = query.claims.map((c, i) => claimMatch(credential, c, i));
  if (!query.claim_sets)
    return matched.every(Boolean) ? { credentialId: credential.id, claims: matched as ClaimMatch[] } : undefined;
  for (const [setIndex, set] of query.claim_sets.entries()) {
    const chosen = set.map((id) => matched[query.claims!.findIndex((c) => c.id === id)]);
    if (chosen.every(Boolean))
      return { credentialId: credential.id, claimSetIndex: setIndex, claims: chosen as ClaimMatch[] };
  }
  return undefined;
}

/**
 * Evaluates a DCQL query against stored credentials of any format. Invalid queries throw
 * `DcqlQueryError`. `satisfied` follows §6.4.2: every required credential set has an option whose
 * queries all match (or, without credential_sets, every credential query matches).
 */
export function evaluateDcql(query: DcqlQuery, credentials: StoredCredential[]): DcqlResult {
  validateDcqlQuery(query);
  const queries = nullRecord<CredentialQueryResult>();
  for (const cq of query.credentials) {
    const matches = credentials.map((c) => matchCredential(cq, c)).filter((m): m is CredentialMatch => m !== undefined);
    queries[cq.id] = { queryId: cq.id, matches, success: matches.length > 0 };
  }
  const credentialSets = query.credential_sets?.map((set) => ({
    required: set.required ?? true,
    matchingOptions: set.options.filter((o) => o.every((id) => queries[id].success)),
  }));
  const satisfied = credentialSets
    ? credentialSets.every((s) => !s.required || s.matchingOptions.length > 0)
    : query.credentials.every((cq) => queries[cq.id].success);
  if (!satisfied) return { satisfied, queries, ...(credentialSets ? { credentialSets } : {}) };
  const wanted = credentialSets
    ? credentialSets.flatMap((s) => s.matchingOptions[0] ?? [])
    : query.credentials.map((cq) => cq.id);
  const selection = nullRecord<CredentialMatch[]>();
  for (const id of new Set(wanted)) {
    const cq = query.credentials.find((c) => c.id === id)!;
    selection[id] = cq.multiple ? queries[id].matches : queries[id].matches.slice(0, 1);
  }
  return { satisfied, queries, ...(credentialSets ? { credentialSets } : {}), selection };
}
