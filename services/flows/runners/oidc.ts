import { createRemoteJWKSet, jwtVerify } from 'jose';
import { clientRequest } from '../../oauth/client-kit.ts';
import { createHash, randomBytes } from 'node:crypto';
import { FlowFailure, expectStatus, stringIn, type FlowRunners } from '../registry.ts';
import { authorizeAsPerson, b64url, checkAuthorizationResponse, demoClient, pkcePair } from './oauth-helpers.ts';

export function registerOidcRunners(runners: FlowRunners): void {
  runners.register('oidc', 'authorization-code-id-token', async (run) => {
    const discovery = await run.http.send(
      'Provider configuration',
      `${run.base}/.well-known/openid-configuration`,
      {},
      ['OIDC Discovery §4'],
    );
    expectStatus(discovery.status, 200, 'discovery');
    const meta = discovery.body as {
      issuer: string;
      authorization_endpoint: string;
      token_endpoint: string;
      userinfo_endpoint: string;
      jwks_uri: string;
    };
    const client = await demoClient(run, 'demo-app');
    const redirectUri = `${run.base}/callback`;
    const state = b64url(randomBytes(12));
    const nonce = b64url(randomBytes(12));
    const pkce = pkcePair();
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: 'openid profile email',
      state,
      nonce,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
    });
    const landed = await authorizeAsPerson(run, `${meta.authorization_endpoint}?${params}`);
    const code = checkAuthorizationResponse(landed, meta.issuer, state);
    const token = await run.http.send(
      'Token request',
      meta.token_endpoint,
      clientRequest(
        { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: pkce.verifier },
        { method: 'client_secret_basic', clientId: client.client_id, secret: client.client_secret! },
      ),
      ['OIDC Core §3.1.3.1', 'The response carries an ID token'],
    );
    expectStatus(token.status, 200, 'token request');
    const { payload } = await jwtVerify(stringIn(token, 'id_token'), createRemoteJWKSet(new URL(meta.jwks_uri)), {
      issuer: meta.issuer,
      audience: client.client_id,
    });
    if (payload.nonce !== nonce) throw new FlowFailure('ID token nonce mismatch (OIDC Core §3.1.3.7 item 11)');
    const atHash = createHash('sha256')
      .update(stringIn(token, 'access_token'))
      .digest()
      .subarray(0, 16)
      .toString('base64url');
    if (payload.at_hash !== atHash) throw new FlowFailure('at_hash does not match the access token');
    const info = await run.http.send(
      'UserInfo request',
      meta.userinfo_endpoint,
      { headers: { authorization: `Bearer ${stringIn(token, 'access_token')}` } },
      ['OIDC Core §5.3.1: bearer token in the header', 'OIDC Core §5.3.2: sub equals the ID token sub'],
    );
    expectStatus(info.status, 200, 'userinfo');
    if (info.json.sub !== payload.sub) throw new FlowFailure('UserInfo sub differs from the ID token sub');
  });

  runners.register('oidc', 'discovery', async (run) => {
    const config = await run.http.send('Provider configuration', `${run.base}/.well-known/openid-configuration`, {}, [
      'OIDC Discovery §4.3: issuer equals the URL the document was fetched for',
    ]);
    expectStatus(config.status, 200, 'openid-configuration');
    if (config.json.issuer !== run.base) throw new FlowFailure('issuer mismatch');
    expectStatus(
      (await run.http.send('Provider keys', stringIn(config, 'jwks_uri'), {}, ['OIDC Discovery §3: jwks_uri'])).status,
      200,
      'jwks',
    );
    const as = await run.http.send(
      'OAuth 2.0 server metadata',
      `${run.base}/.well-known/oauth-authorization-server/oauth2`,
      {},
      ['RFC 8414 §3.1: the well-known segment goes before the issuer path'],
    );
    if (as.json.issuer !== `${run.base}/oauth2`) throw new FlowFailure('RFC 8414 issuer mismatch');
    const prm = await run.http.send(
      'UserInfo protected resource metadata',
      `${run.base}/.well-known/oauth-protected-resource/oidc/userinfo`,
      {},
      ['RFC 9728 §3: resource and authorization_servers'],
    );
    expectStatus(prm.status, 200, 'protected resource metadata');
  });
}
