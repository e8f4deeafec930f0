import { randomBytes } from 'node:crypto';
import { clientRequest } from '../../../services/oauth/client-kit.ts';
import { authorizeAsPerson } from '../browser.ts';
import type { Http } from '../http.ts';
import { newPkcePair } from '../../../services/oauth/client-kit.ts';
import { expectAnswer, expectEqual, ModelMismatch } from '../model.ts';

/** The public demo client of decisions §3: PKCE S256, no secret, the code and refresh grants. */
export const CLIENT_ID = 'public-app';
export const PREFIX = '/oauth2';

/** What one authorization gave the client: the code, its verifier, and the tokens it was redeemed for. */
export interface Grant {
  code: string;
  verifier: string;
  accessToken?: string;
  refreshToken?: string;
}

/** The client kit's PKCE pair (services/oauth/client-kit.ts). */
export const pkce = newPkcePair;

/** RFC 6749 §4.1 with RFC 7636: the person signs in and consents; the redirect carries code, state and iss. */
export async function authorize(http: Http, scope: string): Promise<Grant> {
  const { verifier, challenge } = pkce();
  const state = randomBytes(8).toString('base64url');
  const redirectUri = `${http.base}/callback`;
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: redirectUri,
    scope,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const landed = await authorizeAsPerson(http, `${PREFIX}/authorize?${query}`);
  expectEqual('redirect target', landed.origin + landed.pathname, redirectUri);
  expectEqual('state echoed', landed.searchParams.get('state'), state);
  expectEqual('iss (RFC 9207)', landed.searchParams.get('iss'), `${http.base}${PREFIX}`);
  const code = landed.searchParams.get('code');
  if (!code) throw new ModelMismatch(`authorization: no code in ${landed.search}`);
  return { code, verifier };
}

export const redeemCode = (http: Http, grant: Grant, verifier = grant.verifier) =>
  http.call(
    `${PREFIX}/token`,
    clientRequest(
      {
        grant_type: 'authorization_code',
        code: grant.code,
        redirect_uri: `${http.base}/callback`,
        code_verifier: verifier,
      },
      { method: 'none', clientId: CLIENT_ID },
    ),
  );

/** RFC 7662: the documented read endpoint for these actors, whose streams are not exported. */
export async function active(http: Http, token: string): Promise<boolean> {
  const answer = await http.call(
    `${PREFIX}/introspect`,
    clientRequest({ token }, { method: 'none', clientId: CLIENT_ID }),
  );
  expectAnswer('introspection', answer, 200);
  return answer.body.active === true;
}
