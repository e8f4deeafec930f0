import { compactDecrypt, type JWK } from 'jose';
import {
  presentationStates,
  presentationMachine,
  type DisclosedPresentation,
  type PresentationEvent,
  type PresentationCheck,
  type PresentationReason,
  type PresentationContext as RequestState,
} from '../../machines/presentation.ts';
import { type Loaded } from '../actors/runtime.ts';
import type { DcqlQuery, StoredCredential } from '../credentials/dcql/types.ts';
import { randomToken } from '../crypto/random.ts';
import { invalidRequest } from '../errors.ts';
import { dcqlReasons } from './dcql-verdict.ts';
import type { Presented } from './presentation-outcome.ts';
import { checkPresentation } from './presentations.ts';
import {
  encryptedResponse,
  requireClearResponseAllowed,
  requireIssuedState,
  requireUnanswered,
  walletError,
} from './response-rules.ts';

import type { VerifierCore } from './core.ts';
import { TRANSACTION_DATA_CHECK, transactionDataReasons, type TransactionBinding } from './transaction-data-rule.ts';
import { hashOf, parseVpToken, requestIdOfState } from './rules.ts';
import type { ResponseInput } from './service.ts';

/** `POST /oid4vp/response`: 200 `{}` (HAIP: `{redirect_uri}`) once the response is taken, whatever its verdict. */
export async function receiveResponse(verifier: VerifierCore, input: ResponseInput): Promise<Record<string, unknown>> {
  if (input.response !== undefined) return receiveEncrypted(verifier, input.response);
  const id = requestIdOfState(input.state);
  if (!id) throw invalidRequest(input.state === undefined ? 'state is required' : 'state names no request');
  const loaded = await answerable(verifier, id, input.state as string);
  requireClearResponseAllowed(loaded.snapshot.context.responseMode, input);
  return take(verifier, id, loaded.snapshot.context, input, null);
}

/** A request that may still be answered, and whose `state` is the one we issued. */
async function answerable(
  verifier: VerifierCore,
  id: string,
  state: string,
): Promise<Loaded<typeof presentationMachine>> {
  const loaded = await verifier.current(id);
  requireIssuedState(loaded.snapshot, loaded.snapshot.context.stateHash, state);
  requireUnanswered(loaded.snapshot);
  return loaded;
}

/** direct_post.jwt: the JWE's `kid` names the request's ephemeral key; inside are the usual members. */
async function receiveEncrypted(verifier: VerifierCore, response: unknown): Promise<Record<string, unknown>> {
  const { jwe, requestId: id } = encryptedResponse(response);
  const loaded = await verifier.current(id);
  if (!presentationStates.created(loaded.snapshot) || loaded.snapshot.context.responseMode !== 'direct_post.jwt')
    throw invalidRequest('the JWE kid names no request key');
  requireUnanswered(loaded.snapshot);
  const { payload, enc } = await decryptAnswer(verifier, id, jwe, loaded.snapshot.context);
  if (requestIdOfState(payload.state) !== id) throw invalidRequest('the encrypted response carries another state');
  const open = await answerable(verifier, id, payload.state as string);
  if (payload.response !== undefined) throw invalidRequest('an encrypted response does not nest another response');
  return take(verifier, id, open.snapshot.context, payload, enc);
}

/**
 * An encrypted answer (direct_post.jwt, dc_api.jwt) opened with the request's ephemeral key. The key
 * lived only in memory: after a restart the request is rejected, since it can never be answered.
 */
export async function decryptAnswer(
  verifier: VerifierCore,
  id: string,
  jwe: string,
  request: RequestState,
): Promise<{ payload: Record<string, unknown>; enc: string }> {
  const key = verifier.decryptionKeys.get(id);
  if (!key) {
    const at = verifier.clock.now();
    await verifier.requests.execute(id, () => [
      { type: 'presentation.response_received', at, enc: null },
      {
        type: 'presentation.rejected',
        at,
        reasons: [
          {
            check: 'decryption',
            reason: 'the ephemeral decryption key of this request is gone (the verifier restarted)',
          },
        ],
      },
    ]);
    throw invalidRequest('The response cannot be decrypted');
  }
  try {
    const decrypted = await compactDecrypt(jwe, key.privateKey, {
      keyManagementAlgorithms: ['ECDH-ES'],
      contentEncryptionAlgorithms: request.encValues,
    });
    const payload = JSON.parse(new TextDecoder().decode(decrypted.plaintext)) as Record<string, unknown>;
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw new Error('not an object');
    return { payload, enc: decrypted.protectedHeader.enc };
  } catch {
    throw invalidRequest(
      `The response does not decrypt with this request's key (ECDH-ES, ${request.encValues?.join(' or ')}) to a JSON object`,
    );
  }
}

/**
 * A wallet error, or a vp_token to verify. The verdict is reached first and appended together with
 * `response_received` in one transaction, taken only while the request is still unanswered: of two
 * concurrent answers one wins, and no crash leaves a request answered without a verdict.
 */
export async function take(
  verifier: VerifierCore,
  id: string,
  request: RequestState,
  input: ResponseInput,
  enc: string | null,
  origin?: string,
): Promise<Record<string, unknown>> {
  if (input.error !== undefined) {
    const outcome = await verifier.requests.execute(id, {
      type: 'presentation.wallet_error',
      at: verifier.clock.now(),
      ...walletError(input),
    });
    if (!outcome.accepted) throw invalidRequest('The request can no longer be answered');
    return {};
  }
  if (input.vp_token === undefined) throw invalidRequest('vp_token (or error) is required');
  const { reasons, checks, presentations } =
    origin !== undefined && !originExpected(request, origin)
      ? originRefused(request, origin)
      : await verifyVpToken(verifier, request, input.vp_token, origin);
  const responseCode = request.profile === 'haip' ? randomToken(24) : undefined;
  const at = verifier.clock.now();
  const common = {
    at,
    checks,
    ...(Object.keys(presentations).length ? { presentations } : {}),
    ...(responseCode ? { response_code_hash: hashOf(responseCode) } : {}),
  };
  const verdict: PresentationEvent =
    reasons.length === 0
      ? { type: 'presentation.verified', ...common, presentations }
      : { type: 'presentation.rejected', ...common, reasons };
  const outcome = await verifier.requests.execute(id, () => [
    { type: 'presentation.response_received', at, enc, ...(origin !== undefined ? { origin } : {}) },
    verdict,
  ]);
  if (!outcome.accepted) throw invalidRequest('The request can no longer be answered');
  const transactionId = verifier.decryptionKeys.get(id)?.transactionId;
  return responseCode && transactionId
    ? { redirect_uri: `${verifier.resultUri(transactionId)}?response_code=${responseCode}` }
    : {};
}

type Verdict = {
  reasons: PresentationReason[];
  checks: PresentationCheck[];
  presentations: Record<string, DisclosedPresentation[]>;
};

/** OpenID4VP 1.0 Appendix A.2: an answer through the browser counts only from an origin the request expected. */
const originExpected = (request: RequestState, origin: string) => (request.expectedOrigins ?? []).includes(origin);
const originRefused = (request: RequestState, origin: string): Verdict => ({
  reasons: [
    {
      check: 'origin',
      reason: `the answer came through ${JSON.stringify(origin.slice(0, 200))}, not an expected origin (${(request.expectedOrigins ?? []).join(', ')})`,
    },
  ],
  checks: [{ check: 'origin', verdict: 'failed' }],
  presentations: Object.create(null) as Verdict['presentations'],
});

async function verifyVpToken(
  verifier: VerifierCore,
  request: RequestState,
  vpToken: unknown,
  origin?: string,
): Promise<{
  reasons: PresentationReason[];
  checks: PresentationCheck[];
  presentations: Record<string, DisclosedPresentation[]>;
}> {
  const query = request.dcqlQuery as DcqlQuery;
  const queries = new Map(query.credentials.map((c) => [c.id, c]));
  const answers = parseVpToken(vpToken, queries);
  if (!(answers instanceof Map))
    return {
      reasons: [answers],
      checks: [{ check: 'vp_token', verdict: 'failed' }],
      presentations: Object.create(null),
    };
  const ctx = {
    clientId: request.clientId ?? '',
    // Over the DC API the origin, not the client_id, is the audience (Appendix A.4).
    audience: origin !== undefined ? `origin:${origin}` : (request.clientId ?? ''),
    ...(origin !== undefined ? { origin } : {}),
    nonce: request.nonce,
    responseUri: verifier.settings.responseUri,
    ...(request.encJwk ? { encryptionJwk: request.encJwk as JWK } : {}),
    now: Math.floor(verifier.clock.now() / 1000),
    trust: verifier.trust,
    status: verifier.status,
  };
  const reasons: PresentationReason[] = [];
  const checks: PresentationCheck[] = [
    ...(origin !== undefined ? [{ check: 'origin', verdict: 'passed' as const }] : []),
    { check: 'vp_token', verdict: 'passed' },
  ];
  // Query ids are the caller's names (`__proto__` is a valid one): a null-prototype object keeps each as data.
  const presentations: Record<string, DisclosedPresentation[]> = Object.create(null);
  const presented = new Map<string, StoredCredential[]>();
  const failed = new Set<string>();
  const transactionBindings: TransactionBinding[] = [];
  for (const [queryId, items] of answers) {
    const credentialQuery = queries.get(queryId)!;
    const verified: Presented[] = [];
    for (const [index, item] of items.entries()) {
      const outcome = await checkPresentation(credentialQuery.format, item, `${queryId}.${index}`, ctx);
      for (const c of outcome.checks) checks.push({ credential_query_id: queryId, presentation: index, ...c });
      if (outcome.ok) {
        verified.push(...outcome.credentials);
        for (const { transactions } of outcome.credentials)
          if (transactions) transactionBindings.push({ queryId, presentation: index, ...transactions });
      } else {
        failed.add(queryId);
        reasons.push({ credential_query_id: queryId, check: outcome.check, reason: outcome.reason });
      }
    }
    if (verified.length > 0) presentations[queryId] = verified.map((p) => p.disclosed);
    presented.set(
      queryId,
      verified.map((p) => p.stored),
    );
  }
  const dcql = dcqlReasons(query, presented, failed);
  reasons.push(...dcql);
  checks.push({ check: 'dcql', verdict: dcql.length === 0 ? 'passed' : 'failed' });
  if (request.transactionData || transactionBindings.length > 0) {
    const transactions = transactionDataReasons(request.transactionData, transactionBindings);
    reasons.push(...transactions);
    checks.push({ check: TRANSACTION_DATA_CHECK, verdict: transactions.length === 0 ? 'passed' : 'failed' });
  }
  return { reasons, checks, presentations };
}
