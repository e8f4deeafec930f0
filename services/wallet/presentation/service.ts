import type { Clock } from '../../clock.ts';
import { evaluateDcql } from '../../credentials/dcql/evaluate.ts';
import type { DcqlQuery, StoredCredential } from '../../credentials/dcql/types.ts';
import { randomToken } from '../../crypto/random.ts';
import { invalidRequest, OAuthError, oauthError } from '../../errors.ts';
import type { DeviceKey } from '../device-key.ts';
import type { ExchangeRecorder, WalletExchanges } from '../exchange.ts';
import type { WalletIssuance } from '../issuance/service.ts';
import { IssuerWire } from '../issuance/wire.ts';
import { type OutboundHttp } from '../../outbound.ts';
import type { HeldStatus, WalletCredentialStatus } from '../credential-status.ts';
import type { WalletSession } from '../sessions.ts';
import type { WalletSettings } from '../settings.ts';
import {
  authenticateRequest,
  checkRequestParams,
  loadRequest,
  requestInput,
  responseUriOf,
  type ResolvedRequest,
} from './request.ts';
import { inferConfiguration } from './inferred-configuration.ts';

import { disclosed, encryptionKey, presentation, sendResponse } from './response.ts';
import { presentThroughBrowser, type DcApiBody } from './dc-api.ts';
import { handoffLinkOf, requestTransactions, requireAuthenticated, storedOf } from './rules.ts';
import { transactionClaims, type TransactionClaims } from './transactions.ts';
import { transactionView, type TransactionEntry } from '../../credentials/transaction-data.ts';
export interface PresentationDeps {
  settings: WalletSettings;
  outbound: OutboundHttp;
  exchanges: WalletExchanges;
  clock: Clock;
  deviceKey: DeviceKey;
  issuance: WalletIssuance;
  verifierTrustAnchorsPem: string[];
  trustedOrigins: ReadonlySet<string>;
  /** Held credentials' status: a revoked one is never offered. */
  credentialStatus: WalletCredentialStatus;
}

export interface ResolveBody {
  uri?: string;
  request_uri?: string;
  client_id?: string;
  request_uri_method?: string;
}
export interface PresentBody extends ResolveBody {
  request_id?: string;
  credential_ids?: string[];
  disclose?: Record<string, Array<Array<string | number>>>;
  approve_external_trust?: boolean;
  /** Transaction data of a type this wallet does not know is presented only with this set (shown raw first). */
  approve_unknown_transaction_types?: boolean;
}

/** A resolved request waiting in its session for a presentation (or a decline). */
export interface PendingRequest {
  id: string;
  resolved: ResolvedRequest;
  trustedTarget: boolean;
  recorder: ExchangeRecorder;
  /** The request's transaction data (OpenID4VP 1.0 §8.4), decoded and checked. */
  transactions?: TransactionEntry[];
  /** A Digital Credentials API request: the origin the browser reported (the audience, Appendix A.4). */
  origin?: string;
  /** The request's handoff link as the verifier gave it (its QR code's content); none over the DC API. */
  link?: string;
}

export class WalletPresentation {
  constructor(readonly deps: PresentationDeps) {}

  nowS() {
    return Math.floor(this.deps.clock.now() / 1000);
  }

  /** `POST /api/resolve`: fetch and authenticate the request, match DCQL against the session, keep it pending. */
  async resolve(
    session: WalletSession,
    body: ResolveBody,
  ): Promise<{ pending: PendingRequest; view: Record<string, unknown> }> {
    const input = requestInput(body);
    const recorder = await this.deps.exchanges.start(
      'presentation',
      session.id,
      input.request_uri ?? input.response_uri ?? 'openid4vp',
    );
    try {
      const wire = new IssuerWire(this.deps.outbound, recorder, this.deps.trustedOrigins);
      const loaded = await loadRequest(wire, input);
      const resolved = await authenticateRequest(wire, loaded, {
        verifierTrustAnchorsPem: this.deps.verifierTrustAnchorsPem,
        trustedAttestationIssuers: this.deps.settings.trustedVerifierAttestationIssuers,
        nowS: this.nowS(),
      });
      requireAuthenticated(resolved);
      checkRequestParams(resolved.params);
      const transactions = requestTransactions(resolved.params);
      const trustedTarget = this.deps.trustedOrigins.has(new URL(responseUriOf(resolved.params)).origin);
      const pending: PendingRequest = {
        id: `req_${randomToken(12)}`,
        resolved,
        trustedTarget,
        recorder,
        link: handoffLinkOf(body, input),
        ...(transactions ? { transactions } : {}),
      };
      session.pending.set(pending.id, pending);
      return { pending, view: await this.view(session, pending) };
    } catch (error) {
      await recorder.failed(error instanceof OAuthError ? error.error : 'server_error');
      throw error;
    }
  }

  /** What `/api/resolve` answers about a pending request. */
  async view(session: WalletSession, pending: PendingRequest): Promise<Record<string, unknown>> {
    const { resolved } = pending;
    const evaluation = await this.match(session, resolved.params.dcql_query as DcqlQuery);
    const inferred = evaluation.satisfied
      ? undefined
      : await inferConfiguration(this.deps, pending).catch(() => undefined);
    return {
      request_id: pending.id,
      client_id: resolved.clientId,
      client_id_prefix: resolved.prefix,
      response_mode: resolved.params.response_mode,
      response_uri: resolved.params.response_uri,
      dcql_query: resolved.params.dcql_query,
      ...(pending.transactions ? { transaction_data: pending.transactions.map(transactionView) } : {}),
      trust: {
        trusted_target: pending.trustedTarget,
        approval_required: !pending.trustedTarget,
        verified: resolved.verified,
        ...(resolved.error ? { error: resolved.error } : {}),
      },
      credential_matches: {
        satisfiable: evaluation.satisfied,
        matches: Object.fromEntries(
          Object.entries(evaluation.queries).map(([id, q]) => [
            id,
            q.matches.map((m) => ({
              credential_id: m.credentialId,
              claims: m.claims.flatMap((c) => c.paths),
              status: evaluation.statuses.get(m.credentialId) ?? 'none',
            })),
          ]),
        ),
        withheld: [...evaluation.statuses]
          .filter(([, status]) => status === 'revoked')
          .map(([id, status]) => ({ credential_id: id, status })),
      },
      ...(inferred ? { inferred_configuration_id: inferred } : {}),
      ...pending.recorder.view(),
    };
  }

  /**
   * The session's credentials against a query. A revoked credential is never offered (it stays listed
   * in the session); every candidate's status is resolved first, each list once per its ttl.
   */
  private async match(session: WalletSession, query: DcqlQuery, only?: string[]) {
    const candidates = [...session.credentials.values()].filter(
      (c) => !c.batch_secondary && (!only || only.includes(c.credential_id)),
    );
    const statuses = new Map<string, HeldStatus>();
    for (const c of candidates) statuses.set(c.credential_id, (await this.deps.credentialStatus.of(session, c)).status);
    const stored = candidates
      .filter((c) => statuses.get(c.credential_id) !== 'revoked')
      .map(storedOf)
      .filter((c): c is StoredCredential => c !== undefined);
    try {
      return { ...evaluateDcql(query, stored), statuses };
    } catch {
      throw invalidRequest('dcql_query is not a valid DCQL query');
    }
  }

  /** `POST /api/present`: the selected credentials, exactly the asked claims, to the verifier's response URI. */
  async present(session: WalletSession, body: PresentBody): Promise<Record<string, unknown>> {
    const pending = body.request_id
      ? (session.pending.get(body.request_id) as PendingRequest | undefined)
      : (await this.resolve(session, body)).pending;
    if (!pending) throw oauthError('invalid_request', 'No pending request with this request_id in this session');
    const { resolved } = pending;
    const { vpToken, presented, encryptionJwk } = await this.vpTokenFor(session, pending, body);
    const answer = await sendResponse(this.deps, pending, { vp_token: vpToken }, encryptionJwk);
    session.pending.delete(pending.id);
    await pending.recorder.presented(
      responseUriOf(resolved.params),
      answer.upstream_status as number,
      presented,
      answer.enc as string | undefined,
    );
    return { ...answer, presented, ...pending.recorder.view() };
  }

  /**
   * The vp_token answering a resolved request: the holder's approvals checked first (another verifier,
   * unknown transaction types), one presentation per selected credential, transactions bound.
   */
  async vpTokenFor(session: WalletSession, pending: PendingRequest, body: PresentBody) {
    const { resolved } = pending;
    const verifier = pending.origin ?? new URL(responseUriOf(resolved.params)).origin;
    if (!pending.trustedTarget && body.approve_external_trust !== true)
      throw oauthError(
        'external_approval_required',
        `${verifier} is not this wallet's target: approve it for this request (approve_external_trust)`,
      );
    requireAuthenticated(resolved);
    const unknownTypes = (pending.transactions ?? []).filter((t) => !t.known).map((t) => t.type);
    if (unknownTypes.length > 0 && body.approve_unknown_transaction_types !== true)
      throw oauthError(
        'transaction_approval_required',
        `The request carries transaction data of a type this wallet does not know (${[...new Set(unknownTypes)].join(', ')}): review it raw and approve it (approve_unknown_transaction_types)`,
      );
    const evaluation = await this.match(session, resolved.params.dcql_query as DcqlQuery, body.credential_ids);
    if (!evaluation.satisfied || !evaluation.selection)
      throw oauthError('no_matching_credential', 'No credential of this session satisfies the request');
    const bindings = pending.transactions
      ? transactionClaims(pending.transactions, new Set(Object.keys(evaluation.selection)))
      : new Map<string, TransactionClaims>();
    const encrypted =
      resolved.params.response_mode === 'direct_post.jwt' || resolved.params.response_mode === 'dc_api.jwt';
    const encryptionJwk = encrypted ? encryptionKey(resolved.params) : undefined;
    const vpToken: Record<string, unknown[]> = {};
    const presented: string[] = [];
    for (const [queryId, matches] of Object.entries(evaluation.selection)) {
      vpToken[queryId] = [];
      for (const [index, match] of matches.entries()) {
        const held = session.credentials.get(match.credentialId)!;
        vpToken[queryId].push(
          await presentation(this.deps, session, held, disclosed(match, body.disclose?.[queryId]), resolved.params, {
            ...(encryptionJwk ? { encryptionJwk } : {}),
            ...(pending.origin !== undefined ? { origin: pending.origin } : {}),
            // One presentation authorizes a query's transactions: the first.
            ...(index === 0 && bindings.has(queryId) ? { transactions: bindings.get(queryId) } : {}),
          }),
        );
        presented.push(held.credential_id);
      }
    }
    return { vpToken, presented, encryptionJwk };
  }

  /** `POST /api/dc-api/present` (OpenID4VP 1.0 Appendix A), in its module. */
  presentThroughBrowser(session: WalletSession, body: DcApiBody & PresentBody, app: string) {
    return presentThroughBrowser(this, session, body, app);
  }

  /** Declining (consent page): an `access_denied` error response to the verifier. */
  async decline(session: WalletSession, requestId: string): Promise<Record<string, unknown>> {
    const pending = session.pending.get(requestId) as PendingRequest | undefined;
    if (!pending) throw invalidRequest('No pending request with this request_id in this session');
    const answer = await sendResponse(
      this.deps,
      pending,
      { error: 'access_denied', error_description: 'The holder declined' },
      undefined,
    );
    session.pending.delete(requestId);
    return answer;
  }

  /** `/submit`: resolve, issue the inferred credential from the trusted issuer when nothing matches, present. */
  async submit(session: WalletSession, body: PresentBody, app: string): Promise<Record<string, unknown>> {
    const { pending } = await this.resolve(session, body);
    await this.issueIfMissing(session, pending, app);
    return this.present(session, { ...body, request_id: pending.id });
  }

  /** Auto-issuance for a trusted target (decisions section 10): only when the store has no DCQL match. */
  async issueIfMissing(session: WalletSession, pending: PendingRequest, app: string): Promise<void> {
    if (
      (await this.match(session, pending.resolved.params.dcql_query as DcqlQuery)).satisfied ||
      !pending.trustedTarget
    )
      return;
    const configuration = await inferConfiguration(this.deps, pending);
    if (!configuration) return;
    await this.deps.issuance.issue(session, { credential_configuration_id: configuration }, app);
  }
}
