import { interactionPage, type AuthorizationRequest } from '../../machines/interaction.ts';
import { OAuthError, oauthError } from '../errors.ts';
import { randomToken, sha256 } from '../crypto/random.ts';
import type { OAuthClient } from './clients/client.ts';
import { checkAuthorizationParams, isRefusal } from './authorization-request.ts';
import { PushedRequests } from './pushed-requests.ts';
import type { OAuthDeps } from './deps.ts';
import { isRegisteredRedirectUri } from './redirect-uri.ts';
import { CODE_TTL_MS, INTERACTION_TTL_MS, type IssuerProfile } from './issuers.ts';
import { passwordLogin, type LiveSession, type SignInSessions } from '../sessions/sign-in-sessions.ts';
import { useOfSession } from './session-use.ts';
import type { JWTPayload } from 'jose';

/** The OpenID Provider's part of the sign-in session: the sessions, and its own ID tokens as hints. */
export interface SessionSupport {
  sessions: SignInSessions;
  verifyIdTokenHint(token: string): Promise<JWTPayload | undefined>;
}

/** Where the browser goes next: back to the client (query or form_post) or to a page of ours. */
export type AuthorizationOutcome =
  | { kind: 'interaction'; id: string }
  | {
      kind: 'redirect';
      redirectUri: string;
      responseMode: 'query' | 'form_post';
      params: Record<string, string>;
      /** An error for a client that registered itself: the person follows it, it is not automatic. */
      confirm?: true;
    };

/**
 * RFC 9700 §4.11.2: an authorization server that redirects errors to any registered URI is an open
 * redirector for whoever can register a client. Error redirects are automatic only for the demo clients,
 * whose redirect URIs this server chose; a self-registered client's (RFC 7591, or a metadata document's)
 * is shown on our page for the person to follow.
 */
const errorRedirectIsAutomatic = (client: Pick<OAuthClient, 'kind'>) => client.kind === 'demo';

/** An error that must be shown on our own page: the redirect URI is not trusted (RFC 6749 4.1.2.1). */
export class UntrustedRedirectError extends OAuthError {
  constructor(
    description: string,
    code: 'invalid_request' | 'invalid_client' | 'invalid_request_uri' = 'invalid_request',
  ) {
    super(code, description);
  }
}

/** The authorization endpoint and the login/consent interaction of one issuer. */
export class Authorization {
  readonly pushed: PushedRequests;

  constructor(
    private readonly deps: OAuthDeps,
    readonly profile: IssuerProfile,
    /** The OpenID Provider honours the sign-in session; an authorization server without it keeps none. */
    private readonly signIn?: SessionSupport,
  ) {
    this.pushed = new PushedRequests(deps, profile);
  }

  /** The client of a request; a client metadata document that cannot be used says why (on our page). */
  private async clientFor(clientId: string | undefined): Promise<OAuthClient> {
    const client = await this.deps.clients.find(clientId).catch((error: unknown) => {
      if (error instanceof OAuthError) throw new UntrustedRedirectError(error.description, 'invalid_client');
      throw error;
    });
    if (!client) throw new UntrustedRedirectError('Unknown or missing client_id');
    return client;
  }

  /**
   * RFC 6749 section 4.1.1 (+ RFC 7636, RFC 8707, RFC 9126 §4, OIDC Core 3.1.2.1, RFC 9207); `cookie` is
   * the browser's sign-in session, if any.
   */
  async start(query: Record<string, string | undefined>, cookie?: string): Promise<AuthorizationOutcome> {
    const client = await this.clientFor(query.client_id);
    // RFC 9126 §4: a pushed request's parameters stand for the whole request; others are ignored.
    const params =
      query.request_uri !== undefined
        ? await this.pushed.redeem(query.request_uri, client).catch((error: OAuthError) => {
            throw new UntrustedRedirectError(error.description, 'invalid_request_uri');
          })
        : query;
    const redirectUri = params.redirect_uri;
    if (!redirectUri || !isRegisteredRedirectUri(client.redirect_uris, redirectUri)) {
      throw new UntrustedRedirectError('redirect_uri is missing or is not registered for this client (exact match)');
    }
    const error = (error: string, description: string): AuthorizationOutcome => ({
      kind: 'redirect',
      redirectUri,
      responseMode: params.response_mode === 'form_post' ? 'form_post' : 'query',
      params: {
        error,
        error_description: description,
        ...(params.state !== undefined ? { state: params.state } : {}),
        iss: this.profile.issuer,
      },
      ...(errorRedirectIsAutomatic(client) ? {} : { confirm: true as const }),
    });
    if (client.require_pushed_authorization_requests && query.request_uri === undefined)
      return error('invalid_request', 'This client must push its authorization requests (RFC 9126 §6)');
    const checked = checkAuthorizationParams(params, client, redirectUri, this.profile);
    if (isRefusal(checked)) return error(checked.error, checked.description);
    const use = await this.sessionUse(checked, client, params.id_token_hint, cookie);
    if (use.kind === 'refuse') return error(use.error, use.description);
    await this.deps.clients.noteUse(client);
    const id = randomToken(24);
    const at = this.deps.clock.now();
    const request: AuthorizationRequest = {
      issuer: this.profile.issuer,
      ...checked,
      expiresAt: at + INTERACTION_TTL_MS,
    };
    await this.deps.interactions.create(id, { type: 'interaction.started', at, ...request });
    if (use.kind === 'login') return { kind: 'interaction', id };
    await this.deps.interactions.execute(id, {
      type: 'interaction.authenticated',
      at,
      sub: use.session.user,
      session: { authTime: use.session.authnInstant },
    });
    return use.kind === 'silent' ? this.decide(id, true) : { kind: 'interaction', id };
  }

  /** What the browser's sign-in session does for this request (services/oauth/session-use.ts). */
  private async sessionUse(
    request: { clientId: string; scope: string; prompt?: string; maxAge?: number },
    client: OAuthClient,
    idTokenHint: string | undefined,
    cookie: string | undefined,
  ) {
    if (!this.signIn) {
      // This authorization server keeps no sign-in session: every request shows the login page.
      return request.prompt?.split(' ').includes('none')
        ? ({ kind: 'refuse', error: 'login_required', description: 'This server keeps no sign-in session' } as const)
        : ({ kind: 'login' } as const);
    }
    const hint = idTokenHint !== undefined ? await this.signIn.verifyIdTokenHint(idTokenHint) : undefined;
    if (idTokenHint !== undefined && !hint)
      return {
        kind: 'refuse',
        error: 'login_required',
        description: 'id_token_hint was not issued by this provider',
      } as const;
    const hintMatches = (session: LiveSession) =>
      !hint || hint.sub === this.deps.subjects.subjectFor(client, session.user);
    return useOfSession(request, await this.signIn.sessions.live(cookie), this.deps.clock.now(), hintMatches);
  }

  /** The state of an interaction for its pages, or undefined if unknown, finished or expired. */
  async view(id: string) {
    const { snapshot } = await this.deps.interactions.get(id);
    const request = snapshot.context.request;
    if (!request || request.issuer !== this.profile.issuer || this.deps.clock.now() >= request.expiresAt)
      return undefined;
    const step = interactionPage(snapshot);
    if (!step) return undefined;
    return {
      step,
      request,
      client: (await this.deps.clients.find(request.clientId)) ?? {
        client_id: request.clientId,
        client_name: 'A client that is gone',
      },
      sub: snapshot.context.sub,
    };
  }

  /**
   * Checks the demo user's password; false when it does not match. At the OpenID Provider the login
   * starts or renews the sign-in session: `cookie` is the one to set when a new session started.
   */
  async login(
    id: string,
    username: string,
    password: string,
    cookie?: string,
    /** The password crossed no network in the clear (TLS, or a loopback origin). */
    secure = false,
  ): Promise<false | { newCookie?: string }> {
    const user = this.deps.users.get(username);
    if (!user || user.password !== password) return false;
    const outcome = await this.deps.interactions.execute(id, {
      type: 'interaction.authenticated',
      at: this.deps.clock.now(),
      sub: user.id,
    });
    if (!outcome.accepted) throw oauthError('invalid_request', 'This sign-in has expired or already finished');
    if (!this.signIn) return {};
    const signed = await this.signIn.sessions.signedIn(cookie, user.id, passwordLogin(secure), 'openid-provider');
    return signed.isNew ? { newCookie: signed.cookie } : {};
  }

  /**
   * The person's consent decision: issues the code (or access_denied) and says where to send them. An
   * approval is remembered in the browser's sign-in session when it is the same person's.
   */
  async decide(id: string, approve: boolean, cookie?: string): Promise<AuthorizationOutcome> {
    const at = this.deps.clock.now();
    const code = randomToken(32);
    const outcome = await this.deps.interactions.execute(
      id,
      approve ? { type: 'interaction.consented', at, codeHash: sha256(code) } : { type: 'interaction.declined', at },
    );
    if (!outcome.accepted) throw oauthError('invalid_request', 'This sign-in has expired or already finished');
    const { request, sub, authTime } = outcome.snapshot.context;
    const r = request!;
    const base = { redirectUri: r.redirectUri, responseMode: r.responseMode, kind: 'redirect' as const };
    const state: Record<string, string> = r.state !== undefined ? { state: r.state } : {};
    if (!approve)
      return {
        ...base,
        params: {
          error: 'access_denied',
          error_description: 'The person declined',
          ...state,
          iss: this.profile.issuer,
        },
      };
    await this.deps.codes.create(sha256(code), {
      type: 'code.issued',
      at,
      issuer: this.profile.issuer,
      clientId: r.clientId,
      redirectUri: r.redirectUri,
      scope: r.scope,
      sub: sub!,
      authTime: authTime!,
      ...(r.nonce !== undefined ? { nonce: r.nonce } : {}),
      ...(r.resource !== undefined ? { resource: r.resource } : {}),
      ...(r.codeChallenge !== undefined
        ? { codeChallenge: r.codeChallenge, codeChallengeMethod: r.codeChallengeMethod }
        : {}),
      expiresAt: at + CODE_TTL_MS,
    });
    const session = await this.signIn?.sessions.live(cookie);
    if (session?.user === sub) await this.signIn!.sessions.consented(cookie!, r.clientId, r.scope);
    return { ...base, params: { code, ...state, iss: this.profile.issuer } };
  }
}
