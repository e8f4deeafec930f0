import type { AuthorizationRequest } from '../../machines/interaction.ts';
import { isS256Challenge } from './pkce.ts';
import { OAuthError, oauthError } from '../errors.ts';
import { randomToken, sha256 } from '../crypto/random.ts';
import type { DemoClient } from './demo-clients.ts';
import type { OAuthDeps } from './deps.ts';
import { CODE_TTL_MS, INTERACTION_TTL_MS, type IssuerProfile } from './issuers.ts';

/** Where the browser goes next: back to the client (query or form_post) or to a page of ours. */
export type AuthorizationOutcome =
  | { kind: 'interaction'; id: string }
  | { kind: 'redirect'; redirectUri: string; responseMode: 'query' | 'form_post'; params: Record<string, string> };

/** An error that must be shown on our own page: the redirect URI is not trusted (RFC 6749 4.1.2.1). */
export class UntrustedRedirectError extends OAuthError {
  constructor(description: string) {
    super('invalid_request', description);
  }
}

const SUPPORTED_SCOPES = new Set(['openid', 'profile', 'email', 'phone', 'offline_access', 'api:read', 'api:write']);

/** The authorization endpoint and the login/consent interaction of one issuer. */
export class Authorization {
  constructor(
    private readonly deps: OAuthDeps,
    readonly profile: IssuerProfile,
  ) {}

  private clientFor(clientId: string | undefined): DemoClient {
    const client = clientId ? this.deps.clients.get(clientId) : undefined;
    if (!client) throw new UntrustedRedirectError('Unknown or missing client_id');
    return client;
  }

  /** RFC 6749 section 4.1.1 (+ RFC 7636, OIDC Core 3.1.2.1, RFC 9207). */
  async start(params: Record<string, string | undefined>): Promise<AuthorizationOutcome> {
    const client = this.clientFor(params.client_id);
    const redirectUri = params.redirect_uri;
    if (!redirectUri || !client.redirect_uris.includes(redirectUri)) {
      throw new UntrustedRedirectError('redirect_uri is missing or is not registered for this client (exact match)');
    }
    const responseMode = params.response_mode ?? 'query';
    const error = (error: string, description: string): AuthorizationOutcome => ({
      kind: 'redirect',
      redirectUri,
      responseMode: responseMode === 'form_post' ? 'form_post' : 'query',
      params: {
        error,
        error_description: description,
        ...(params.state !== undefined ? { state: params.state } : {}),
        iss: this.profile.issuer,
      },
    });
    if (responseMode !== 'query' && responseMode !== 'form_post')
      return error('invalid_request', 'response_mode must be query or form_post');
    if (params.request !== undefined || params.request_uri !== undefined)
      return error('request_not_supported', 'Request objects are not supported here');
    if (params.response_type !== 'code')
      return error('unsupported_response_type', 'Only response_type=code is supported');
    if (!client.grant_types.includes('authorization_code'))
      return error('unauthorized_client', 'This client may not use the authorization code grant');
    const scopes = (params.scope ?? '').split(' ').filter(Boolean);
    if (scopes.some((s) => !SUPPORTED_SCOPES.has(s))) return error('invalid_scope', 'An unknown scope was requested');
    if (this.profile.openid && !scopes.includes('openid'))
      return error(
        'invalid_scope',
        'The OpenID Provider needs the openid scope; use /oauth2/authorize for plain OAuth',
      );
    const challenge = params.code_challenge;
    const method = params.code_challenge_method ?? (challenge ? 'plain' : undefined);
    if (challenge !== undefined) {
      if (method !== 'S256') return error('invalid_request', 'code_challenge_method must be S256');
      if (!isS256Challenge(challenge))
        return error('invalid_request', 'code_challenge is malformed: S256 gives 43 base64url characters');
    } else if (client.client_type === 'public') {
      return error('invalid_request', 'PKCE with code_challenge_method=S256 is required for public clients');
    } else if (params.code_challenge_method !== undefined) {
      return error('invalid_request', 'code_challenge_method without code_challenge');
    }
    if (params.prompt?.split(' ').includes('none'))
      return error('login_required', 'No session exists here; every authorization asks the person to sign in');
    const id = randomToken(24);
    const request: AuthorizationRequest = {
      issuer: this.profile.issuer,
      clientId: client.client_id,
      redirectUri,
      responseMode,
      scope: scopes.join(' '),
      ...(params.state !== undefined ? { state: params.state } : {}),
      ...(params.nonce !== undefined ? { nonce: params.nonce } : {}),
      ...(challenge !== undefined ? { codeChallenge: challenge, codeChallengeMethod: 'S256' } : {}),
      ...(params.prompt !== undefined ? { prompt: params.prompt } : {}),
      expiresAt: this.deps.clock.now() + INTERACTION_TTL_MS,
    };
    await this.deps.interactions.create(id, { type: 'interaction.started', at: this.deps.clock.now(), ...request });
    return { kind: 'interaction', id };
  }

  /** The state of an interaction for its pages, or undefined if unknown, finished or expired. */
  async view(id: string) {
    const { snapshot } = await this.deps.interactions.get(id);
    const request = snapshot.context.request;
    if (!request || request.issuer !== this.profile.issuer || this.deps.clock.now() >= request.expiresAt)
      return undefined;
    if (snapshot.value !== 'login' && snapshot.value !== 'consent') return undefined;
    return {
      step: snapshot.value as 'login' | 'consent',
      request,
      client: this.deps.clients.get(request.clientId)!,
      sub: snapshot.context.sub,
    };
  }

  /** Checks the demo user's password; false when it does not match. */
  async login(id: string, username: string, password: string): Promise<boolean> {
    const user = this.deps.users.get(username);
    if (!user || user.password !== password) return false;
    const outcome = await this.deps.interactions.execute(id, {
      type: 'interaction.authenticated',
      at: this.deps.clock.now(),
      sub: user.id,
    });
    if (!outcome.accepted) throw oauthError('invalid_request', 'This sign-in has expired or already finished');
    return true;
  }

  /** The person's consent decision: issues the code (or access_denied) and says where to send them. */
  async decide(id: string, approve: boolean): Promise<AuthorizationOutcome> {
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
      ...(r.codeChallenge !== undefined
        ? { codeChallenge: r.codeChallenge, codeChallengeMethod: r.codeChallengeMethod }
        : {}),
      expiresAt: at + CODE_TTL_MS,
    });
    return { ...base, params: { code, ...state, iss: this.profile.issuer } };
  }
}
