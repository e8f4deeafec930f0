import ipaddr from 'ipaddr.js';
import { decodeJwt } from 'jose';
import type { StoredCredential } from '../../credentials/dcql/types.ts';
import {
  decodeTransactionData,
  TransactionDataError,
  type TransactionEntry,
} from '../../credentials/transaction-data.ts';
import { invalidRequest, oauthError } from '../../errors.ts';
import type { HeldCredential } from '../sessions.ts';

export const MDL_NAMESPACE_PATH = 2;

/**
 * The post-presentation redirect rule (spec OID4VP behaviour 4, decisions section 10): only https,
 * no userinfo, no localhost/.local/.internal host, no IP literal outside the unicast range (no DNS).
 */
export function redirectUriRefusal(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return 'not a string';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'https:') return 'not https';
  if (url.username || url.password) return 'carries userinfo';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal'))
    return 'an internal host name';
  if (ipaddr.isValid(host)) {
    const address = ipaddr.process(host);
    if (address.range() !== 'unicast') return `an IP address in the ${address.range()} range`;
  }
  return undefined;
}

/** A held credential as DCQL sees it (W3C credentials whole, paths starting at the credential). */
export function storedOf(held: HeldCredential): StoredCredential | undefined {
  const base = { id: held.credential_id, cryptographicHolderBinding: true };
  if (held.format === 'dc+sd-jwt') return { ...base, format: 'dc+sd-jwt', vct: held.vct ?? '', claims: held.claims };
  if (held.format === 'mso_mdoc')
    return {
      ...base,
      format: 'mso_mdoc',
      doctype: held.doctype ?? '',
      namespaces: held.claims as Record<string, Record<string, unknown>>,
    };
  try {
    const credential =
      held.format === 'ldp_vc'
        ? (JSON.parse(held.credential) as Record<string, unknown>)
        : ((decodeJwt(held.credential).vc ?? {}) as Record<string, unknown>);
    return {
      ...base,
      format: held.format as 'jwt_vc_json' | 'jwt_vc_json-ld' | 'ldp_vc',
      type: Array.isArray(credential.type) ? (credential.type as string[]) : [],
      claims: credential,
    };
  } catch {
    return undefined;
  }
}

/** The OID4VP holder of the wallet harness (spec wallet OID4VP behaviours 1-5, decisions section 10). */
/**
 * Fail closed: a signed request (every client_id prefix but redirect_uri) whose signature or trust
 * chain does not check out is refused when it is resolved, naming the failure; nothing is presented.
 */
export function requireAuthenticated(resolved: { prefix: string; verified: boolean; error?: string }): void {
  // Unsigned requests (redirect_uri; over the DC API, the browser's origin) have no signature to check.
  if (resolved.prefix !== 'redirect_uri' && resolved.prefix !== 'origin' && !resolved.verified)
    throw invalidRequest(
      `The request could not be authenticated: ${resolved.error ?? 'unverified'}; nothing is presented`,
    );
}

/**
 * OpenID4VP 1.0 §5.1, §8.5: each transaction data entry decodes, names credential queries of the
 * request, and (for the demo types) carries exactly its type's fields. Unknown types pass here: they
 * are shown raw and presented only with the holder's explicit approval.
 */
export function requestTransactions(params: Record<string, unknown>): TransactionEntry[] | undefined {
  if (params.transaction_data === undefined) return undefined;
  const invalid = (description: string) => oauthError('invalid_transaction_data', description);
  let entries: TransactionEntry[];
  try {
    entries = decodeTransactionData(params.transaction_data);
  } catch (error) {
    if (error instanceof TransactionDataError) throw invalid(error.message);
    throw error;
  }
  const queries = (params.dcql_query as { credentials?: Array<{ id?: unknown; format?: unknown }> }).credentials ?? [];
  for (const entry of entries)
    for (const id of entry.credentialIds) {
      const query = queries.find((q) => q.id === id);
      if (!query) throw invalid(`transaction_data[${entry.index}] names ${JSON.stringify(id)}, not a credential query`);
      if (query.format !== 'dc+sd-jwt' && query.format !== 'mso_mdoc')
        throw invalid(
          `transaction_data[${entry.index}] names ${JSON.stringify(id)}: this wallet binds transactions in SD-JWT VC key bindings and mdoc device signatures only`,
        );
    }
  return entries;
}

/** The link a verifier handed the wallet (`uri`), or the by-reference one its members make up. */
export function handoffLinkOf(body: { uri?: string }, input: Record<string, string>): string {
  if (typeof body.uri === 'string') return body.uri;
  const query = new URLSearchParams({ client_id: input.client_id ?? '', request_uri: input.request_uri ?? '' });
  if (input.request_uri_method) query.set('request_uri_method', input.request_uri_method);
  return `openid4vp://?${query}`;
}
