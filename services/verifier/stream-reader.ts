import type { DisclosedPresentation } from '../../machines/presentation.ts';
import { OAuthError } from '../errors.ts';
import type { StreamReader } from '../streams/readers.ts';
import type { VerifierCore } from './core.ts';
import { presentationResult, withoutClaims } from './result.ts';
import { TRANSACTION_ID } from './rules.ts';

/**
 * Who may read `presentation:<request_id>`: exactly who may read its result document, with
 * `transaction_id` (the request id alone reads nothing). Where a response_code guards the result's
 * claims, events show disclosed claims only with that code too.
 */
export function presentationStreamReader(verifier: VerifierCore): StreamReader {
  return async (requestId, { transactionId, responseCode }) => {
    if (transactionId === undefined || TRANSACTION_ID.exec(transactionId)?.[1] !== requestId) return undefined;
    let withheld: boolean;
    try {
      withheld = (await presentationResult(verifier, transactionId, responseCode)).response_code_required === true;
    } catch (error) {
      if (error instanceof OAuthError && error.status === 404) return undefined;
      throw error;
    }
    return withheld ? { data: (event) => withoutDisclosedClaims(event.data) } : {};
  };
}

function withoutDisclosedClaims(data: Record<string, unknown>): Record<string, unknown> {
  const presentations = data.presentations as Record<string, DisclosedPresentation[]> | undefined;
  return presentations ? { ...data, presentations: withoutClaims(presentations) } : data;
}
