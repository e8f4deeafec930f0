import ipaddr from 'ipaddr.js';
import { CompactEncrypt, decodeJwt, importJWK, type JWK } from 'jose';
import type { Clock } from '../../clock.ts';
import { evaluateDcql } from '../../credentials/dcql/evaluate.ts';
import type { CredentialMatch, DcqlQuery, StoredCredential } from '../../credentials/dcql/types.ts';
import { didJwkFromJwk, type KeyPair } from '../../credentials/keys/index.ts';
import { createDeviceResponse, oid4vpSessionTranscript, parseIssuerSigned } from '../../credentials/mdoc/index.ts';
import { presentSdJwtVc } from '../../credentials/sd-jwt/present.ts';
import { createJwtVp } from '../../credentials/w3c/jwt-vc.ts';
import { createLdpVp } from '../../credentials/w3c/ldp-vc.ts';
import { randomToken } from '../../crypto/random.ts';
import { OAuthError, oauthError, invalidRequest } from '../../errors.ts';
import type { DeviceKey } from '../device-key.ts';
import type { ExchangeRecorder, WalletExchanges } from '../exchange.ts';
import { configurationsOf, wellKnown } from '../issuance/discovery.ts';
import type { WalletIssuance } from '../issuance/service.ts';
import { IssuerWire } from '../issuance/wire.ts';
import { UpstreamError, upstreamErrorToken, type OutboundHttp } from '../outbound.ts';
import type { HeldCredential, WalletSession } from '../sessions.ts';
import type { WalletSettings } from '../settings.ts';
import { authenticateRequest, checkRequestParams, loadRequest, requestInput, type ResolvedRequest } from './request.ts';

export interface PresentationDeps {
  settings: WalletSettings;
  outbound: OutboundHttp;
  exchanges: WalletExchanges;
  clock: Clock;
  deviceKey: DeviceKey;
  issuance: WalletIssuance;
  verifierTrustAnchorsPem: string[];
  trustedOrigins: ReadonlySet<string>;
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
}

/** A resolved request waiting in its session for a presentation (or a decline). */
export interface PendingRequest {
  id: string;
  resolved: ResolvedRequest;
  trustedTarget: boolean;
  recorder: ExchangeRecorder;
}

const MDL_NAMESPACE_PATH = 2;

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
function storedOf(held: HeldCredential): StoredCredential | undefined {
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
function requireAuthenticated(resolved: { prefix: string; verified: boolean; error?: string }): void {
  if (resolved.prefix !== 'redirect_uri' && !resolved.verified)
    throw invalidRequest(
      `The request could not be authenticated: ${resolved.error ?? 'unverified'}; nothing is presented`,
    );
}

export class WalletPresentation {
  constructor(private readonly deps: PresentationDeps) {}

  private nowS() {
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
      const trustedTarget = this.deps.trustedOrigins.has(new URL(resolved.params.response_uri).origin);
      const pending: PendingRequest = { id: `req_${randomToken(12)}`, resolved, trustedTarget, recorder };
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
    const evaluation = this.match(session, resolved.params.dcql_query as DcqlQuery);
    const inferred = evaluation.satisfied ? undefined : await this.inferConfiguration(pending).catch(() => undefined);
    return {
      request_id: pending.id,
      client_id: resolved.clientId,
      client_id_prefix: resolved.prefix,
      response_mode: resolved.params.response_mode,
      response_uri: resolved.params.response_uri,
      dcql_query: resolved.params.dcql_query,
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
            q.matches.map((m) => ({ credential_id: m.credentialId, claims: m.claims.flatMap((c) => c.paths) })),
          ]),
        ),
      },
      ...(inferred ? { inferred_configuration_id: inferred } : {}),
      ...pending.recorder.view(),
    };
  }

  private match(session: WalletSession, query: DcqlQuery, only?: string[]) {
    const stored = [...session.credentials.values()]
      .filter((c) => !c.batch_secondary && (!only || only.includes(c.credential_id)))
      .map(storedOf)
      .filter((c): c is StoredCredential => c !== undefined);
    try {
      return evaluateDcql(query, stored);
    } catch {
      throw invalidRequest('dcql_query is not a valid DCQL query');
    }
  }

  /** The issuer configuration a request asks for (format and doctype/vct of its first credential query), for auto-issuance. */
  private async inferConfiguration(pending: PendingRequest): Promise<string | undefined> {
    if (!pending.trustedTarget) return undefined;
    const first = (pending.resolved.params.dcql_query as DcqlQuery).credentials?.[0];
    if (!first) return undefined;
    const wire = new IssuerWire(this.deps.outbound, pending.recorder, this.deps.trustedOrigins);
    const response = await wire.call(
      'metadata',
      wellKnown(`${this.deps.settings.issuerBaseUrl}/oid4vci`, 'openid-credential-issuer'),
    );
    const configurations = configurationsOf(response.json);
    const haip = (c: Record<string, any>) => c.proof_types_supported?.jwt?.key_attestations_required !== undefined;
    const fits = (c: Record<string, any>) =>
      c.format === first.format &&
      (first.meta?.doctype_value === undefined || c.doctype === first.meta.doctype_value) &&
      (first.meta?.vct_values === undefined || first.meta.vct_values.includes(c.vct));
    const found = [...configurations].find(([, c]) => fits(c) && (this.deps.settings.haipEnabled || !haip(c)));
    return found?.[0];
  }

  /** `POST /api/present`: the selected credentials, exactly the asked claims, to the verifier's response URI. */
  async present(session: WalletSession, body: PresentBody): Promise<Record<string, unknown>> {
    const pending = body.request_id
      ? (session.pending.get(body.request_id) as PendingRequest | undefined)
      : (await this.resolve(session, body)).pending;
    if (!pending) throw oauthError('invalid_request', 'No pending request with this request_id in this session');
    const { resolved } = pending;
    if (!pending.trustedTarget && body.approve_external_trust !== true)
      throw oauthError(
        'external_approval_required',
        `${new URL(resolved.params.response_uri).origin} is not this wallet's target: approve it for this request (approve_external_trust)`,
      );
    requireAuthenticated(resolved);
    const evaluation = this.match(session, resolved.params.dcql_query as DcqlQuery, body.credential_ids);
    if (!evaluation.satisfied || !evaluation.selection)
      throw oauthError('no_matching_credential', 'No credential of this session satisfies the request');
    const encryptionJwk =
      resolved.params.response_mode === 'direct_post.jwt' ? this.encryptionKey(resolved.params) : undefined;
    const vpToken: Record<string, unknown[]> = {};
    const presented: string[] = [];
    for (const [queryId, matches] of Object.entries(evaluation.selection)) {
      vpToken[queryId] = [];
      for (const match of matches) {
        const held = session.credentials.get(match.credentialId)!;
        vpToken[queryId].push(
          await this.presentation(
            session,
            held,
            this.disclosed(match, body.disclose?.[queryId]),
            resolved.params,
            encryptionJwk,
          ),
        );
        presented.push(held.credential_id);
      }
    }
    const answer = await this.send(pending, { vp_token: vpToken }, encryptionJwk);
    session.pending.delete(pending.id);
    await pending.recorder.presented(
      resolved.params.response_uri,
      answer.upstream_status as number,
      presented,
      answer.enc as string | undefined,
    );
    return { ...answer, presented, ...pending.recorder.view() };
  }

  /** Declining (consent page): an `access_denied` error response to the verifier. */
  async decline(session: WalletSession, requestId: string): Promise<Record<string, unknown>> {
    const pending = session.pending.get(requestId) as PendingRequest | undefined;
    if (!pending) throw invalidRequest('No pending request with this request_id in this session');
    const answer = await this.send(
      pending,
      { error: 'access_denied', error_description: 'The holder declined' },
      undefined,
    );
    session.pending.delete(requestId);
    return answer;
  }

  /** Claim paths to release: the person's pick when given (only paths the match offers), else exactly what the query matched. */
  private disclosed(match: CredentialMatch, picked?: Array<Array<string | number>>): Array<Array<string | number>> {
    const offered = match.claims.flatMap((c) => c.paths);
    if (!picked) return offered;
    const key = (p: Array<string | number>) => JSON.stringify(p);
    const allowed = new Set(offered.map(key));
    return picked.filter((p) => allowed.has(key(p)));
  }

  /** Behaviour 1: the verifier's ECDH-ES key from client_metadata.jwks. */
  private encryptionKey(params: Record<string, any>): JWK {
    const keys = (params.client_metadata?.jwks?.keys ?? []) as JWK[];
    const key = keys.find(
      (k) =>
        k && k.kty === 'EC' && (k.use === undefined || k.use === 'enc') && (k.alg === undefined || k.alg === 'ECDH-ES'),
    );
    if (!key) throw invalidRequest('direct_post.jwt without an ECDH-ES key in client_metadata.jwks');
    return key;
  }

  /** The key a credential is bound to: the session holder key, a batch key, or (mdoc, behaviour 3) the device key. */
  private boundKey(session: WalletSession, held: HeldCredential): KeyPair {
    const thumbprint = held.holder_key_thumbprint;
    if (held.format === 'mso_mdoc') {
      if (thumbprint !== this.deps.deviceKey.pair.kid)
        throw oauthError(
          'no_matching_credential',
          'This mdoc is bound to a device key this wallet no longer has (the device key is ephemeral without WALLET_DEVICE_KEY_PATH)',
        );
      return this.deps.deviceKey.pair;
    }
    if (thumbprint === session.holder.kid) return session.holder;
    const batch = thumbprint ? session.batchKeys.get(thumbprint) : undefined;
    if (!batch)
      throw oauthError('no_matching_credential', 'The key this credential is bound to is not held by this session');
    return batch;
  }

  private async presentation(
    session: WalletSession,
    held: HeldCredential,
    paths: Array<Array<string | number>>,
    params: Record<string, any>,
    encryptionJwk?: JWK,
  ): Promise<unknown> {
    const key = this.boundKey(session, held);
    const now = this.nowS();
    if (held.format === 'dc+sd-jwt') {
      return presentSdJwtVc(held.credential, {
        disclose: paths,
        keyBinding: {
          holder: { alg: key.alg, privateKey: key.privateKey },
          aud: String(params.client_id),
          nonce: String(params.nonce),
          now,
        },
      });
    }
    if (held.format === 'mso_mdoc') {
      const disclose: Record<string, string[]> = {};
      for (const path of paths)
        if (path.length === MDL_NAMESPACE_PATH) (disclose[String(path[0])] ??= []).push(String(path[1]));
      const sessionTranscript = await oid4vpSessionTranscript({
        clientId: String(params.client_id),
        nonce: String(params.nonce),
        responseUri: String(params.response_uri),
        ...(encryptionJwk ? { encryptionKey: encryptionJwk } : {}),
      });
      const response = createDeviceResponse({
        issuerSigned: parseIssuerSigned(Buffer.from(held.credential, 'base64url')),
        disclose,
        deviceKey: { privateKey: key.privateKey },
        sessionTranscript,
      });
      return Buffer.from(response).toString('base64url');
    }
    const did = didJwkFromJwk(key.publicJwk);
    if (held.format === 'ldp_vc') {
      return createLdpVp({
        credentials: [JSON.parse(held.credential)],
        holder: did,
        signer: {
          cryptosuite: key.alg === 'EdDSA' ? 'eddsa-rdfc-2022' : 'ecdsa-rdfc-2019',
          privateKey: key.privateKey,
          verificationMethod: `${did}#0`,
        } as never,
        challenge: String(params.nonce),
        domain: String(params.client_id),
        now,
      });
    }
    return createJwtVp({
      holder: { alg: key.alg, privateKey: key.privateKey, kid: `${did}#0`, did } as never,
      credentials: [held.credential],
      aud: String(params.client_id),
      nonce: String(params.nonce),
      now,
    });
  }

  /** The response to the verifier: form-encoded, or an ECDH-ES JWE (A256GCM when advertised, else A128GCM). */
  private async send(
    pending: PendingRequest,
    members: Record<string, unknown>,
    encryptionJwk?: JWK,
  ): Promise<Record<string, unknown>> {
    const params = pending.resolved.params;
    const state = typeof params.state === 'string' ? { state: params.state } : {};
    let form: Record<string, string>;
    let enc: string | undefined;
    if (encryptionJwk && members.vp_token !== undefined) {
      enc = (params.client_metadata?.encrypted_response_enc_values_supported as string[] | undefined)?.includes(
        'A256GCM',
      )
        ? 'A256GCM'
        : 'A128GCM';
      const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify({ ...members, ...state })))
        .setProtectedHeader({
          alg: 'ECDH-ES',
          enc: enc as 'A128GCM',
          ...(encryptionJwk.kid ? { kid: encryptionJwk.kid } : {}),
        })
        .encrypt(await importJWK(encryptionJwk, 'ECDH-ES'));
      form = { response: jwe };
    } else {
      form = Object.fromEntries(
        Object.entries({ ...members, ...state }).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      );
    }
    const wire = new IssuerWire(this.deps.outbound, pending.recorder, this.deps.trustedOrigins);
    const response = await wire.call('response', params.response_uri, { form });
    if (response.status < 200 || response.status >= 300)
      throw new UpstreamError(
        `The verifier's response URI answered HTTP ${response.status}`,
        response.status,
        upstreamErrorToken(Buffer.from(response.text)),
      );
    const redirect = response.json?.redirect_uri;
    const refusal = redirect === undefined ? undefined : redirectUriRefusal(redirect);
    return {
      upstream_status: response.status,
      ...(redirect !== undefined && !refusal ? { redirect_uri: redirect } : {}),
      ...(refusal ? { redirect_uri_refused: refusal } : {}),
      ...(enc ? { enc } : {}),
    };
  }

  /** `/submit`: resolve, issue the inferred credential from the trusted issuer when nothing matches, present. */
  async submit(session: WalletSession, body: PresentBody, app: string): Promise<Record<string, unknown>> {
    const { pending } = await this.resolve(session, body);
    await this.issueIfMissing(session, pending, app);
    return this.present(session, { ...body, request_id: pending.id });
  }

  /** Auto-issuance for a trusted target (decisions section 10): only when the store has no DCQL match. */
  async issueIfMissing(session: WalletSession, pending: PendingRequest, app: string): Promise<void> {
    if (this.match(session, pending.resolved.params.dcql_query as DcqlQuery).satisfied || !pending.trustedTarget)
      return;
    const configuration = await this.inferConfiguration(pending);
    if (!configuration) return;
    await this.deps.issuance.issue(session, { credential_configuration_id: configuration }, app);
  }
}
