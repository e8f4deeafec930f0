import { OAuthError } from '../../errors.ts';
import type { PresentedRequest } from '../service.ts';
import { authorizationCodeGrant } from './authorization-code.ts';
import type { GrantContext, GrantHandler } from './context.ts';
import type { TokenResponse } from './mint.ts';
import { preAuthorizedCodeGrant } from './pre-authorized-code.ts';

export const PRE_AUTHORIZED_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/** The issuer's token endpoint is this table: one handler per grant_type, one file per grant. */
const GRANTS = new Map<string, GrantHandler>([
  [PRE_AUTHORIZED_GRANT, preAuthorizedCodeGrant],
  ['authorization_code', authorizationCodeGrant],
]);

export function tokenResponse(
  ctx: GrantContext,
  form: Record<string, string | undefined>,
  request: PresentedRequest,
): Promise<TokenResponse> {
  const handler = typeof form.grant_type === 'string' ? GRANTS.get(form.grant_type) : undefined;
  if (!handler)
    throw new OAuthError(
      'unsupported_grant_type',
      'This authorization server issues tokens for the pre-authorized_code and authorization_code grants only',
      400,
    );
  return handler(ctx, form, request);
}
