import type { AuthorizationRequest } from '../../machines/interaction.ts';
import { OAuthError } from '../errors.ts';
import type { OAuthClient } from './clients/client.ts';
import type { IssuerProfile } from './issuers.ts';
import { isS256Challenge } from './pkce.ts';
import { checkResource } from './resources.ts';
import { USER_GRANTABLE_SCOPES } from './scopes.ts';

const SUPPORTED_SCOPES = new Set(USER_GRANTABLE_SCOPES);

/** An authorization request refused with an error the client is told at its redirect URI (or PAR's JSON). */
export interface RequestRefusal {
  error: string;
  description: string;
}

export type CheckedRequest = Omit<AuthorizationRequest, 'issuer' | 'expiresAt' | 'responseMode'> & {
  responseMode: 'query' | 'form_post';
};

/**
 * RFC 6749 §4.1.1 with RFC 7636, RFC 8707 and OpenID Connect Core §3.1.2.1: the parameters of an
 * authorization request from a known client whose redirect URI is registered. The same checks serve
 * the authorization endpoint and the pushed authorization request endpoint (RFC 9126 §2.1).
 */
export function checkAuthorizationParams(
  params: Record<string, string | undefined>,
  client: OAuthClient,
  redirectUri: string,
  profile: IssuerProfile,
): CheckedRequest | RequestRefusal {
  const refuse = (error: string, description: string): RequestRefusal => ({ error, description });
  const responseMode = params.response_mode ?? 'query';
  if (responseMode !== 'query' && responseMode !== 'form_post')
    return refuse('invalid_request', 'response_mode must be query or form_post');
  if (params.request !== undefined) return refuse('request_not_supported', 'Request objects are not supported here');
  if (params.response_type !== 'code')
    return refuse('unsupported_response_type', 'Only response_type=code is supported');
  if (!client.grant_types.includes('authorization_code'))
    return refuse('unauthorized_client', 'This client may not use the authorization code grant');
  const scopes = (params.scope ?? '').split(' ').filter(Boolean);
  if (scopes.some((s) => !SUPPORTED_SCOPES.has(s))) return refuse('invalid_scope', 'An unknown scope was requested');
  if (profile.openid && !scopes.includes('openid'))
    return refuse('invalid_scope', 'The OpenID Provider needs the openid scope; use /oauth2/authorize for plain OAuth');
  const challenge = params.code_challenge;
  if (challenge !== undefined) {
    if ((params.code_challenge_method ?? 'plain') !== 'S256')
      return refuse('invalid_request', 'code_challenge_method must be S256');
    if (!isS256Challenge(challenge))
      return refuse('invalid_request', 'code_challenge is malformed: S256 gives 43 base64url characters');
  } else if (client.client_type === 'public') {
    return refuse('invalid_request', 'PKCE with code_challenge_method=S256 is required for public clients');
  } else if (params.code_challenge_method !== undefined) {
    return refuse('invalid_request', 'code_challenge_method without code_challenge');
  }
  let resource: string | undefined;
  try {
    resource = checkResource(params.resource, profile.resources);
  } catch (error) {
    if (error instanceof OAuthError) return refuse(error.error, error.description);
    throw error;
  }
  const prompts = (params.prompt ?? '').split(' ').filter(Boolean);
  if (prompts.includes('none') && prompts.length > 1)
    return refuse('invalid_request', 'prompt=none cannot be combined with another value (OIDC Core §3.1.2.1)');
  const maxAge = params.max_age;
  if (maxAge !== undefined && !/^\d{1,9}$/.test(maxAge))
    return refuse('invalid_request', 'max_age must be a number of seconds');
  return {
    clientId: client.client_id,
    redirectUri,
    responseMode,
    scope: scopes.join(' '),
    ...(params.state !== undefined ? { state: params.state } : {}),
    ...(params.nonce !== undefined ? { nonce: params.nonce } : {}),
    ...(challenge !== undefined ? { codeChallenge: challenge, codeChallengeMethod: 'S256' } : {}),
    ...(params.prompt !== undefined ? { prompt: params.prompt } : {}),
    ...(maxAge !== undefined ? { maxAge: Number(maxAge) } : {}),
    ...(resource !== undefined ? { resource } : {}),
  };
}

export const isRefusal = (checked: CheckedRequest | RequestRefusal): checked is RequestRefusal => 'error' in checked;
