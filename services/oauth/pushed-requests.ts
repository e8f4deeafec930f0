import { randomToken, sha256 } from '../crypto/random.ts';
import { isErrorCode, oauthError } from '../errors.ts';
import { checkAuthorizationParams, isRefusal } from './authorization-request.ts';
import type { OAuthClient } from './clients/client.ts';
import type { OAuthDeps } from './deps.ts';
import { isRegisteredRedirectUri } from './redirect-uri.ts';
import { PAR_TTL_S, type IssuerProfile } from './issuers.ts';

const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

/** Parameters that belong to client authentication at the PAR endpoint, not to the request (RFC 9126 §2.1). */
const AUTHENTICATION_PARAMS = new Set(['client_secret', 'client_assertion', 'client_assertion_type']);

/**
 * Pushed authorization requests (RFC 9126) of one issuer: the client posts its parameters, they are
 * checked as the authorization endpoint would, and a `request_uri` good for 60 seconds, once, stands in
 * for them.
 */
export class PushedRequests {
  constructor(
    private readonly deps: OAuthDeps,
    private readonly profile: IssuerProfile,
  ) {}

  /** RFC 9126 §2.1 and §2.2: the authenticated client's request, checked, for a request_uri. */
  async push(
    form: Record<string, string | undefined>,
    client: OAuthClient,
  ): Promise<{ request_uri: string; expires_in: number }> {
    if (form.request_uri !== undefined)
      throw oauthError('invalid_request', 'request_uri cannot be pushed (RFC 9126 §2.1)');
    const redirectUri = form.redirect_uri;
    if (!redirectUri || !isRegisteredRedirectUri(client.redirect_uris, redirectUri))
      throw oauthError('invalid_request', 'redirect_uri is missing or is not registered for this client (exact match)');
    const checked = checkAuthorizationParams(form, client, redirectUri, this.profile);
    if (isRefusal(checked))
      throw oauthError(isErrorCode(checked.error) ? checked.error : 'invalid_request', checked.description);
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(form))
      if (value !== undefined && !AUTHENTICATION_PARAMS.has(name)) params[name] = value;
    const id = randomToken(32);
    const at = this.deps.clock.now();
    await this.deps.pushed.create(sha256(id), {
      type: 'par.pushed',
      at,
      issuer: this.profile.issuer,
      clientId: client.client_id,
      params,
      expiresAt: at + PAR_TTL_S * 1000,
    });
    return { request_uri: `${REQUEST_URI_PREFIX}${id}`, expires_in: PAR_TTL_S };
  }

  /** RFC 9126 §4: the pushed parameters of a request_uri, for the client that pushed them, once, in time. */
  async redeem(requestUri: string, client: OAuthClient): Promise<Record<string, string>> {
    const unusable = () =>
      oauthError('invalid_request_uri', 'The request_uri is unknown, expired, already used, or another client’s');
    if (!requestUri.startsWith(REQUEST_URI_PREFIX)) throw unusable();
    const key = sha256(requestUri.slice(REQUEST_URI_PREFIX.length));
    const { snapshot } = await this.deps.pushed.get(key);
    const request = snapshot.context.request;
    if (!request || request.issuer !== this.profile.issuer || request.clientId !== client.client_id) throw unusable();
    const used = await this.deps.pushed.execute(key, { type: 'par.used', at: this.deps.clock.now() });
    if (!used.accepted) throw unusable();
    return request.params;
  }
}
