import { jsonObject } from '../response-schemas.ts';

/** Schema pieces the OAuth server's routes share. */
export const userInfoResponse = jsonObject("UserInfo claims of the token's user (OpenID Connect Core §5.3.2)", {
  sub: { type: 'string' },
});

export const errorResponse = { $ref: 'OAuthError#' };
export const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
export const formBody = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  required,
  properties: Object.fromEntries(
    Object.entries(properties).map(([k, v]) => [k, v ?? { type: 'string', maxLength: 4096 }]),
  ),
});
export const str = (max = 4096) => ({ type: 'string', maxLength: max });
export const clientAuthFields = {
  // A client id may be the URL of its metadata document.
  client_id: str(2000),
  client_secret: str(500),
  client_assertion_type: str(200),
  client_assertion: str(8192),
};
export const AUTHORIZE_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'response_mode',
  'prompt',
  'request',
  'request_uri',
  'max_age',
  'id_token_hint',
  'login_hint',
  'ui_locales',
  'claims',
  'acr_values',
  'display',
  'resource',
];
