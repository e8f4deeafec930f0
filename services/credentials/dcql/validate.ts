import type { DcqlQuery } from './types.ts';

export class DcqlQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DcqlQueryError';
  }
}

const ID = /^[A-Za-z0-9_-]+$/;
const fail = (message: string): never => {
  throw new DcqlQueryError(message);
};

/** Structural and reference rules of §6.1-6.3 that make a query invalid (the wallet then returns invalid_request). */
export function validateDcqlQuery(query: DcqlQuery): void {
  if (!query || !Array.isArray(query.credentials) || query.credentials.length === 0)
    fail('credentials must be a non-empty array');
  const ids = new Set<string>();
  for (const cq of query.credentials) {
    if (typeof cq.id !== 'string' || !ID.test(cq.id))
      fail(`credential query id ${JSON.stringify(cq.id)} must be alphanumeric, "_" or "-"`);
    if (ids.has(cq.id)) fail(`credential query id ${cq.id} is used twice`);
    ids.add(cq.id);
    if (typeof cq.format !== 'string') fail(`credential query ${cq.id} needs a format`);
    if (cq.claims !== undefined && (!Array.isArray(cq.claims) || cq.claims.length === 0))
      fail(`claims of ${cq.id} must be a non-empty array when present`);
    if (
      cq.trusted_authorities !== undefined &&
      (!Array.isArray(cq.trusted_authorities) ||
        cq.trusted_authorities.length === 0 ||
        cq.trusted_authorities.some(
          (t) => typeof t.type !== 'string' || !Array.isArray(t.values) || t.values.length === 0,
        ))
    )
      fail(`trusted_authorities of ${cq.id} must be non-empty with non-empty values`);
    const claimIds = new Set<string>();
    for (const claim of cq.claims ?? []) {
      if (!Array.isArray(claim.path) || claim.path.length === 0) fail(`a claim of ${cq.id} needs a non-empty path`);
      for (const step of claim.path)
        if (!(typeof step === 'string' || step === null || (Number.isInteger(step) && (step as number) >= 0)))
          fail(`path elements of ${cq.id} must be strings, null or non-negative integers`);
      if (cq.format === 'mso_mdoc' && (claim.path.length !== 2 || claim.path.some((s) => typeof s !== 'string')))
        fail(`an mdoc claim path is [namespace, element] (${cq.id})`);
      if (
        claim.values !== undefined &&
        (!Array.isArray(claim.values) ||
          claim.values.length === 0 ||
          claim.values.some((v) => !['string', 'number', 'boolean'].includes(typeof v)))
      )
        fail(`values of ${cq.id} must be a non-empty array of strings, numbers or booleans`);
      if (claim.id !== undefined) {
        if (!ID.test(claim.id)) fail(`claim id ${JSON.stringify(claim.id)} is not alphanumeric, "_" or "-"`);
        if (claimIds.has(claim.id)) fail(`claim id ${claim.id} is used twice in ${cq.id}`);
        claimIds.add(claim.id);
      }
    }
    if (cq.claim_sets !== undefined) {
      if (!cq.claims) fail(`claim_sets of ${cq.id} need claims`);
      if (
        !Array.isArray(cq.claim_sets) ||
        cq.claim_sets.length === 0 ||
        cq.claim_sets.some((s) => !Array.isArray(s) || s.length === 0)
      )
        fail(`claim_sets of ${cq.id} must be non-empty arrays`);
      for (const set of cq.claim_sets)
        for (const id of set) if (!claimIds.has(id)) fail(`claim_sets of ${cq.id} name an unknown claim id ${id}`);
    }
  }
  if (query.credential_sets !== undefined) {
    if (!Array.isArray(query.credential_sets) || query.credential_sets.length === 0)
      fail('credential_sets must be a non-empty array when present');
    for (const set of query.credential_sets) {
      if (!Array.isArray(set.options) || set.options.length === 0) fail('a credential set needs non-empty options');
      for (const option of set.options) {
        if (!Array.isArray(option) || option.length === 0)
          fail('a credential set option must be a non-empty array of credential query ids');
        for (const id of option) if (!ids.has(id)) fail(`a credential set names an unknown credential query ${id}`);
      }
    }
  }
}
