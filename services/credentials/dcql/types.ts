/** DCQL (OpenID4VP 1.0 §6) query types. */
export type PathElement = string | number | null;
export type ClaimValue = string | number | boolean;

interface ClaimsQuery {
  id?: string;
  path: PathElement[];
  values?: ClaimValue[];
  /** mdoc only (§B.2.4). */
  intent_to_retain?: boolean;
}

interface TrustedAuthoritiesQuery {
  type: 'aki' | 'etsi_tl' | 'openid_federation' | string;
  values: string[];
}

export interface CredentialQuery {
  id: string;
  format: string;
  multiple?: boolean;
  meta?: { vct_values?: string[]; doctype_value?: string; type_values?: string[][] };
  trusted_authorities?: TrustedAuthoritiesQuery[];
  require_cryptographic_holder_binding?: boolean;
  claims?: ClaimsQuery[];
  claim_sets?: string[][];
}

interface CredentialSetQuery {
  options: string[][];
  required?: boolean;
  purpose?: unknown;
}

export interface DcqlQuery {
  credentials: CredentialQuery[];
  credential_sets?: CredentialSetQuery[];
}

/** A credential in the wallet, reduced to what DCQL looks at. */
interface StoredBase {
  /** The wallet's own identifier for the credential. */
  id: string;
  cryptographicHolderBinding: boolean;
  /** Issuer trust facts, e.g. `{ type: 'aki', values: [<base64url key id of a CA in the chain>] }`. */
  authorities?: { type: string; values: string[] }[];
}
export interface StoredSdJwtVc extends StoredBase {
  format: 'dc+sd-jwt' | 'vc+sd-jwt';
  vct: string;
  claims: Record<string, unknown>;
}
export interface StoredMdoc extends StoredBase {
  format: 'mso_mdoc';
  doctype: string;
  namespaces: Record<string, Record<string, unknown>>;
}
export interface StoredW3c extends StoredBase {
  format: 'jwt_vc_json' | 'jwt_vc_json-ld' | 'ldp_vc';
  type: string[];
  claims: Record<string, unknown>;
}
export type StoredCredential = StoredSdJwtVc | StoredMdoc | StoredW3c;

export interface ClaimMatch {
  /** Index in the query's `claims`. */
  index: number;
  id?: string;
  /** Concrete paths of the matching values (a `null` wildcard expands to the matching indexes). */
  paths: (string | number)[][];
}

export interface CredentialMatch {
  credentialId: string;
  /** Which `claim_sets` option was taken (the first that the credential satisfies); undefined without claim_sets. */
  claimSetIndex?: number;
  /** The claims to release; empty when the query names no claims. */
  claims: ClaimMatch[];
}

export interface CredentialQueryResult {
  queryId: string;
  /** Every stored credential that satisfies the query, in store order. */
  matches: CredentialMatch[];
  success: boolean;
}

export interface DcqlResult {
  /** Whether the wallet can answer the query at all (§6.4.2). */
  satisfied: boolean;
  queries: Record<string, CredentialQueryResult>;
  credentialSets?: { required: boolean; matchingOptions: string[][] }[];
  /**
   * What to present: query id -> credentials (the first match, or every match with `multiple`),
   * following the first satisfiable option of each credential set. Absent when not satisfied.
   */
  selection?: Record<string, CredentialMatch[]>;
}
