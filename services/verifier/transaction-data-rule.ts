import type { PresentationReason } from '../../machines/presentation.ts';
import type { DcqlQuery } from '../credentials/dcql/types.ts';
import {
  decodeTransactionData,
  DEFAULT_HASH_ALG,
  encodeTransactionData,
  hashAlgSupported,
  SUPPORTED_HASH_ALGS,
  TransactionDataError,
  transactionDataHash,
  type TransactionEntry,
} from '../credentials/transaction-data.ts';
import { invalidRequest } from '../errors.ts';

/** The named check of every transaction data failure in a result document. */
export const TRANSACTION_DATA_CHECK = 'transaction_data';

/** Formats whose presentations can bind transactions: the SD-JWT VC's KB-JWT, the mdoc's device signature. */
const BINDING_FORMATS = new Set(['dc+sd-jwt', 'mso_mdoc']);

/**
 * The creation rule: each entry well formed, naming only credential queries of the request whose
 * presentation signs with the holder's key (SD-JWT VC, Appendix B.3.3; mdoc, device-signed elements),
 * hashed with algorithms it can check. Returns the strings the request carries.
 */
export function checkedTransactionData(value: unknown, query: DcqlQuery): string[] | undefined {
  if (value === undefined) return undefined;
  let entries: TransactionEntry[];
  try {
    entries = encodeTransactionData(value);
  } catch (error) {
    if (error instanceof TransactionDataError) throw invalidRequest(error.message);
    throw error;
  }
  const queries = new Map(query.credentials.map((c) => [c.id, c]));
  for (const entry of entries) {
    for (const id of entry.credentialIds) {
      const credential = queries.get(id);
      if (!credential)
        throw invalidRequest(`transaction_data[${entry.index}] names ${JSON.stringify(id)}, not a credential query`);
      if (!BINDING_FORMATS.has(credential.format) || credential.require_cryptographic_holder_binding === false)
        throw invalidRequest(
          `transaction_data[${entry.index}] names ${JSON.stringify(id)}: transaction data is bound by a holder signature (dc+sd-jwt or mso_mdoc with holder binding)`,
        );
    }
    const unsupported = entry.hashAlgs.find((alg) => !hashAlgSupported(alg));
    if (unsupported !== undefined)
      throw invalidRequest(
        `transaction_data[${entry.index}] allows ${JSON.stringify(unsupported.slice(0, 32))}; this verifier checks ${SUPPORTED_HASH_ALGS.join(', ')}`,
      );
  }
  return entries.map((e) => e.encoded);
}

/** What one presentation's holder signature said about transactions: its `transaction_data_hashes` and `_alg`. */
export interface TransactionBinding {
  queryId: string;
  presentation: number;
  hashes: unknown;
  alg: unknown;
}

const failure = (reason: string, queryId?: string): PresentationReason => ({
  ...(queryId !== undefined ? { credential_query_id: queryId } : {}),
  check: TRANSACTION_DATA_CHECK,
  reason,
});

/** The hashes of one binding checked against the entries; returns the entries it binds, or a reason. */
function boundEntries(
  binding: TransactionBinding,
  entries: TransactionEntry[],
): { bound: TransactionEntry[] } | { reason: PresentationReason } {
  const where = `presentation ${binding.queryId}.${binding.presentation}`;
  const { hashes } = binding;
  if (!Array.isArray(hashes) || hashes.length === 0 || hashes.some((h) => typeof h !== 'string'))
    return {
      reason: failure(`${where}: transaction_data_hashes must be a non-empty array of strings`, binding.queryId),
    };
  if (binding.alg !== undefined && !hashAlgSupported(binding.alg))
    return {
      reason: failure(`${where}: transaction_data_hashes_alg is not an algorithm of the request`, binding.queryId),
    };
  const alg = (binding.alg as string | undefined) ?? DEFAULT_HASH_ALG;
  const bound: TransactionEntry[] = [];
  for (const hash of hashes as string[]) {
    const entry = entries.find((e) => transactionDataHash(e.encoded, alg) === hash);
    if (!entry)
      return {
        reason: failure(
          `${where} carries a hash that matches no transaction of the request (altered or extra)`,
          binding.queryId,
        ),
      };
    if (!entry.credentialIds.includes(binding.queryId))
      return {
        reason: failure(
          `transaction_data[${entry.index}] is bound to ${binding.queryId}, a credential query it does not name (${entry.credentialIds.join(', ')})`,
          binding.queryId,
        ),
      };
    if (!entry.hashAlgs.includes(alg))
      return {
        reason: failure(
          `${where} hashes transaction_data[${entry.index}] with ${alg}, which it does not allow`,
          binding.queryId,
        ),
      };
    if (entry.explicitAlgs && binding.alg === undefined)
      return {
        reason: failure(
          `${where}: transaction_data[${entry.index}] named its algorithms, so transaction_data_hashes_alg is required`,
          binding.queryId,
        ),
      };
    bound.push(entry);
  }
  return { bound };
}

/**
 * The verdict rule (OpenID4VP 1.0 §8.4, Appendix B.3.3): every hash a key binding carries matches an
 * entry that names that credential query, and every entry is bound by exactly one credential query.
 * A request without transaction data takes no hashes either.
 */
export function transactionDataReasons(
  encoded: string[] | undefined,
  bindings: TransactionBinding[],
): PresentationReason[] {
  const entries = encoded ? decodeTransactionData(encoded) : [];
  const bindersOf = new Map<number, Set<string>>();
  for (const binding of bindings) {
    const outcome = boundEntries(binding, entries);
    if ('reason' in outcome) return [outcome.reason];
    for (const entry of outcome.bound) {
      const binders = bindersOf.get(entry.index) ?? new Set<string>();
      binders.add(binding.queryId);
      bindersOf.set(entry.index, binders);
    }
  }
  for (const entry of entries) {
    const binders = bindersOf.get(entry.index);
    if (!binders)
      return [
        failure(
          `transaction_data[${entry.index}] (${entry.type}) is bound by no presentation of ${entry.credentialIds.join(', ')}`,
        ),
      ];
    if (binders.size > 1)
      return [
        failure(
          `transaction_data[${entry.index}] is bound by ${[...binders].join(' and ')}; one credential authorizes it`,
        ),
      ];
  }
  return [];
}
