import { oauthError } from '../../errors.ts';
import { checkResource } from '../resources.ts';
import { tokenType, type OAuthGrantHandler } from './context.ts';

/** Scopes that speak of a user, which a client acting for itself never gets. */
const USER_SCOPES = new Set(['openid', 'offline_access', 'profile', 'email', 'phone']);

/** RFC 6749 §4.4: a confidential client's token for itself, within its registered scope. */
export const clientCredentialsGrant: OAuthGrantHandler = async ({ client, jkt, deps, tokens, profile }, body) => {
  if (client.client_type === 'public')
    throw oauthError('unauthorized_client', 'Public clients cannot use client_credentials');
  const allowed = client.scope.split(' ').filter((s) => !USER_SCOPES.has(s));
  const requested = body.scope === undefined ? allowed : body.scope.split(' ').filter(Boolean);
  if (requested.some((s) => !allowed.includes(s)))
    throw oauthError('invalid_scope', `This client may request: ${allowed.join(' ')}`);
  const scope = requested.join(' ');
  const resource = checkResource(body.resource, profile.resources);
  const access = await tokens.accessToken({
    resource,
    sub: client.client_id,
    clientId: client.client_id,
    scope,
    nowMs: deps.clock.now(),
    jkt,
  });
  return { access_token: access.token, token_type: tokenType(jkt), expires_in: access.expiresIn, scope };
};
