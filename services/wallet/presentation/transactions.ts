import {
  DEFAULT_HASH_ALG,
  hashAlgSupported,
  transactionDataHash,
  type TransactionEntry,
} from '../../credentials/transaction-data.ts';
import { oauthError } from '../../errors.ts';

/** The KB-JWT members that bind a credential query's presentation to its transactions (Appendix B.3.3). */
export type TransactionClaims = { transaction_data_hashes: string[]; transaction_data_hashes_alg?: string };

const invalid = (description: string) => oauthError('invalid_transaction_data', description);

/**
 * Which presented credential authorizes each transaction (OpenID4VP 1.0 §5.1: one of those it names,
 * the first presented), and the hashes each such key binding carries: sha-256 unless an entry allows
 * others only, the algorithm named whenever an entry named its own.
 */
export function transactionClaims(
  entries: TransactionEntry[],
  presentedQueries: ReadonlySet<string>,
): Map<string, TransactionClaims> {
  const byQuery = new Map<string, TransactionEntry[]>();
  for (const entry of entries) {
    const binder = entry.credentialIds.find((id) => presentedQueries.has(id));
    if (binder === undefined)
      throw invalid(
        `transaction_data[${entry.index}] needs a credential of ${entry.credentialIds.join(' or ')}, and none is presented`,
      );
    byQuery.set(binder, [...(byQuery.get(binder) ?? []), entry]);
  }
  const claims = new Map<string, TransactionClaims>();
  for (const [queryId, bound] of byQuery) {
    const common = bound
      .reduce((algs, entry) => algs.filter((alg) => entry.hashAlgs.includes(alg)), bound[0].hashAlgs)
      .filter(hashAlgSupported);
    const alg = common.includes(DEFAULT_HASH_ALG) ? DEFAULT_HASH_ALG : common[0];
    if (alg === undefined)
      throw invalid(`the transactions bound to ${queryId} share no hash algorithm this wallet supports`);
    claims.set(queryId, {
      transaction_data_hashes: bound.map((entry) => transactionDataHash(entry.encoded, alg)),
      ...(bound.some((entry) => entry.explicitAlgs) ? { transaction_data_hashes_alg: alg } : {}),
    });
  }
  return claims;
}
