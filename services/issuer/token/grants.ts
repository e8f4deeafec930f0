import { GrantTable } from '../../oauth/token/grant-table.ts';
import type { PresentedRequest } from '../service.ts';
import { authorizationCodeGrant } from './authorization-code.ts';
import type { GrantContext, GrantHandler } from './context.ts';
import type { TokenResponse } from './mint.ts';
import { preAuthorizedCodeGrant } from './pre-authorized-code.ts';

export const PRE_AUTHORIZED_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/** The issuer's token endpoint is this table (the core's GrantTable): one handler per grant_type, one file per grant. */
const GRANTS = new GrantTable<GrantHandler>([
  [PRE_AUTHORIZED_GRANT, preAuthorizedCodeGrant],
  ['authorization_code', authorizationCodeGrant],
]);

export function tokenResponse(
  ctx: GrantContext,
  form: Record<string, string | undefined>,
  request: PresentedRequest,
): Promise<TokenResponse> {
  return GRANTS.handlerFor(GRANTS.grantTypeOf(form))(ctx, form, request);
}
