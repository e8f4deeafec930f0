import { type DisclosedPresentation, presentationStates } from '../../machines/presentation.ts';
import { sameText } from '../crypto/compare.ts';
import { invalidRequest, notFound } from '../errors.ts';

import type { VerifierCore } from './core.ts';
import { hashOf, TRANSACTION_ID } from './rules.ts';
import type { ResultDocument } from './service.ts';

/**
 * `GET /oid4vp/result/{transaction_id}`: the transaction id is the capability; disclosed claims need
 * the answer's response_code too, when it produced one.
 */
/**
 * `GET /oid4vp/result/{transaction_id}`. Where the answer produced a response_code (the HAIP
 * redirect), disclosed claims are shown only with that code; without it, status and verdicts only.
 */
export async function presentationResult(
  verifier: VerifierCore,
  transactionId: string,
  responseCode?: string,
): Promise<ResultDocument> {
  const { id, loaded } = await requestOfTransaction(verifier, transactionId, 'No such presentation result');
  const context = loaded.snapshot.context;
  const codeRequired = context.responseCodeHash !== undefined;
  if (responseCode !== undefined && (!codeRequired || !sameText(hashOf(responseCode), context.responseCodeHash!)))
    throw invalidRequest('response_code is not the one issued for this request');
  const withheld = codeRequired && responseCode === undefined;
  const status = loaded.snapshot.value as ResultDocument['status'];
  return {
    request_id: id,
    status,
    ...(typeof context.enc === 'string' ? { enc: context.enc } : {}),
    ...(context.origin !== undefined ? { origin: context.origin } : {}),
    reasons: context.reasons,
    ...(context.checks ? { checks: context.checks } : {}),
    ...(context.presentations
      ? { presentations: withheld ? withoutClaims(context.presentations) : context.presentations }
      : {}),
    ...(withheld ? { response_code_required: true } : {}),
    ...(context.walletError ? { wallet_error: context.walletError } : {}),
  };
}

/**
 * The request a transaction id names (`<request_id>.<secret>`): found by its request id, believed only
 * when the secret's hash is the one the log keeps; anything else is `missing` (404).
 */
export async function requestOfTransaction(verifier: VerifierCore, transactionId: string, missing: string) {
  const id = TRANSACTION_ID.exec(transactionId)?.[1];
  if (!id) throw notFound(missing);
  const loaded = await verifier.current(id);
  const expected = loaded.snapshot.context.transactionIdHash;
  if (
    !presentationStates.created(loaded.snapshot) ||
    expected === undefined ||
    !sameText(hashOf(transactionId), expected)
  )
    throw notFound(missing);
  return { id, loaded };
}

/** The presentations of a result with every disclosed claim left out (format and issuer stay). */
export function withoutClaims(
  presentations: Record<string, DisclosedPresentation[]>,
): Record<string, Array<Omit<DisclosedPresentation, 'claims'>>> {
  const shown: Record<string, Array<Omit<DisclosedPresentation, 'claims'>>> = Object.create(null);
  for (const [queryId, items] of Object.entries(presentations))
    shown[queryId] = items.map(({ format, issuer }) => ({ format, issuer }));
  return shown;
}
