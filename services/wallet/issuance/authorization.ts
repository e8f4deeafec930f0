import { stringOf, type JsonObject } from '../../untrusted/json.ts';
import { randomToken } from '../../crypto/random.ts';
import { newPkcePair } from '../../oauth/client-kit.ts';
import { UpstreamError, upstreamErrorToken } from '../../outbound.ts';
import type { WalletSession } from '../sessions.ts';
import { InvalidCredential } from './credentials.ts';
import { receiveCredentials } from './credential-flow.ts';
import type { IssuerView } from './discovery.ts';
import type { IssuanceRuntime } from './runtime.ts';
import { errorToken } from './outcome.ts';
import { accessTokenOf, expectOk, interactionId, type IssuerWire } from './wire.ts';

/** An authorization code issuance waiting for the callback (600 s, single use). */
interface PendingAuthorization {
  sessionId: string;
  view: IssuerView;
  configurationIds: string[];
  codeVerifier: string;
  redirectUri: string;
  wire: IssuerWire;
  expiresAt: number;
  app: string;
  /** The protected-resource mode: what to read with the token instead of requesting credentials. */
  resource?: ProtectedResource;
}

export interface ProtectedResource {
  endpoint: string;
  scope: string;
}

const CALLBACK_TTL_MS = 600_000;
const PKCE_METHOD = 'S256';

/** The authorization code path of issuance: PAR and PKCE out, the callback back (behaviour 1). */
export class AuthorizationCodeIssuance {
  private readonly pendingAuthorizations = new Map<string, PendingAuthorization>();

  constructor(private readonly rt: IssuanceRuntime) {}

  /**
   * Behaviour 1: PAR with PKCE S256 (required or advertised), then an authorization URL with only
   * client_id and request_uri; the callback finishes with the same client attestation.
   */
  async authorize(
    session: WalletSession,
    wire: IssuerWire,
    view: IssuerView,
    configurationIds: string[],
    app: string,
    issuerState?: string,
    resource?: ProtectedResource,
  ): Promise<Record<string, unknown>> {
    const as = view.asMetadata;
    const authorizationEndpoint = stringOf(as.authorization_endpoint);
    if (authorizationEndpoint === undefined)
      throw new UpstreamError('The authorization server has no authorization_endpoint');
    const { verifier: codeVerifier, challenge: codeChallenge } = newPkcePair();
    const state = randomToken(16);
    const redirectUri = `${this.rt.deps.settings.walletUrl}/api/oid4vci/callback`;
    const clientId = this.rt.deps.settings.attestedClientId;
    const request = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: codeChallenge,
      code_challenge_method: PKCE_METHOD,
      state,
      ...(resource
        ? { scope: resource.scope }
        : {
            authorization_details: JSON.stringify(
              configurationIds.map((id) => ({ type: 'openid_credential', credential_configuration_id: id })),
            ),
          }),
      ...(issuerState ? { issuer_state: issuerState } : {}),
    };
    let authorizationUrl: string;
    // PAR whenever the server has an endpoint for it (and always when it requires it).
    const parEndpoint = stringOf(as.pushed_authorization_request_endpoint);
    if (parEndpoint) {
      const par = expectOk(
        await wire.call('par', parEndpoint, { form: request }, { side: 'as', attest: true, dpop: true }),
        'The pushed authorization request',
        [201, 200],
      ).json;
      if (typeof par.request_uri !== 'string') throw new UpstreamError('The PAR response has no request_uri');
      authorizationUrl = `${authorizationEndpoint}?${new URLSearchParams({ client_id: clientId, request_uri: par.request_uri })}`;
    } else {
      authorizationUrl = `${authorizationEndpoint}?${new URLSearchParams(request)}`;
    }
    this.sweepPending();
    this.pendingAuthorizations.set(state, {
      sessionId: session.id,
      view,
      configurationIds,
      codeVerifier,
      redirectUri,
      wire,
      expiresAt: this.rt.deps.clock.now() + CALLBACK_TTL_MS,
      app,
      ...(resource ? { resource } : {}),
    });
    return { status: 'authorization_required', authorization_url: authorizationUrl, state, ...wire.recorder.view() };
  }

  private sweepPending(): void {
    const now = this.rt.deps.clock.now();
    for (const [state, pending] of this.pendingAuthorizations)
      if (pending.expiresAt <= now) this.pendingAuthorizations.delete(state);
  }

  /** `GET /api/oid4vci/callback`: the code is redeemed once, for the session that started it; the answer is a redirect to the app. */
  async callback(
    query: Record<string, string | undefined>,
    sessionOf: (id: string) => WalletSession | undefined,
  ): Promise<string> {
    const pending = query.state ? this.pendingAuthorizations.get(query.state) : undefined;
    const back = (status: 'success' | 'error', message: string, app = '/') =>
      `${app}?${new URLSearchParams({ oid4vci_status: status, oid4vci_message: message })}`;
    if (!pending || pending.expiresAt <= this.rt.deps.clock.now()) return back('error', 'unknown or used state');
    this.pendingAuthorizations.delete(query.state!);
    const session = sessionOf(pending.sessionId);
    if (!session) return back('error', 'the wallet session has expired', pending.app);
    if (query.error)
      return back('error', `the authorization server answered ${String(query.error).slice(0, 64)}`, pending.app);
    if (query.iss !== undefined && query.iss !== pending.view.asMetadata.issuer)
      return back('error', 'iss is not the authorization server (RFC 9207)', pending.app);
    if (!query.code) return back('error', 'no code', pending.app);
    try {
      const token = await this.rt.token(pending.wire, pending.view, {
        grant_type: 'authorization_code',
        code: query.code,
        redirect_uri: pending.redirectUri,
        code_verifier: pending.codeVerifier,
        client_id: this.rt.deps.settings.attestedClientId,
      });
      if (pending.resource)
        return back(
          'success',
          `the protected resource answered HTTP ${await this.readResource(pending.wire, token, pending.resource)}`,
          pending.app,
        );
      const result = await receiveCredentials(
        this.rt,
        session,
        pending.wire,
        pending.view,
        token,
        pending.configurationIds,
        {
          anonymous: false,
        },
      );
      return back('success', `stored ${(result.credential_ids as string[]).join(', ')}`, pending.app);
    } catch (error) {
      await pending.wire.recorder.failed(
        errorToken(error),
        error instanceof InvalidCredential ? error.check : undefined,
      );
      return back('error', errorToken(error), pending.app);
    }
  }

  /** The protected-resource mode's last hop: one GET with the (DPoP-bound) token, nonce retry included; 2xx or an upstream error. */
  private async readResource(wire: IssuerWire, token: JsonObject, resource: ProtectedResource): Promise<number> {
    const accessToken = accessTokenOf(token);
    const response = await wire.call(
      'resource',
      resource.endpoint,
      { method: 'GET', accessToken, headers: { 'x-fapi-interaction-id': interactionId() } },
      { side: 'rs' },
    );
    if (response.status < 200 || response.status >= 300)
      throw new UpstreamError(
        `The protected resource answered HTTP ${response.status}`,
        response.status,
        upstreamErrorToken(Buffer.from(response.text)),
      );
    return response.status;
  }
}
