import { SignJWT, exportJWK, generateKeyPair, importJWK } from 'jose';
import { signDPoPProof } from '../../dpop/create.ts';
import { randomBytes } from 'node:crypto';
import { FlowFailure, expectStatus, stringIn, type FlowRunners, type RunContext } from '../registry.ts';
import { authorizeAsPerson, b64url, basic, checkAuthorizationResponse, demoClient, pkcePair } from './oauth-helpers.ts';
import { clientRequest, type ClientAuthentication } from '../../oauth/client-kit.ts';

const RESOURCE = '/oauth2/resource';

/** A fresh DPoP key and proofs over it (RFC 9449 §4.2): htm, htu, a new jti, ath when a token goes with it. */
async function dpopProver(nowS: () => number) {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const key = { alg: 'ES256', privateKey, publicJwk: await exportJWK(publicKey) };
  return (htm: string, htu: string, accessToken?: string) =>
    signDPoPProof(key, { method: htm, url: htu, nowS: nowS(), ...(accessToken ? { accessToken } : {}) });
}
type DpopProver = Awaited<ReturnType<typeof dpopProver>>;

/** The resource call with a DPoP-bound token: Authorization: DPoP and a proof whose ath hashes the token. */
function callResourceWithProof(run: RunContext, token: string, prove: DpopProver) {
  const resource = `${run.base}${RESOURCE}`;
  return prove('GET', resource, token).then((dpop) =>
    run.http.send('Resource request with a proof', resource, { headers: { authorization: `DPoP ${token}`, dpop } }, [
      'RFC 9449 §7: Authorization: DPoP and a proof whose ath hashes the token',
    ]),
  );
}

async function authorizationCode(run: RunContext, options: { clientId: string; pkce: boolean; scope?: string }) {
  const client = await demoClient(run, options.clientId);
  const redirectUri = `${run.base}/callback`;
  const state = b64url(randomBytes(12));
  const pkce = options.pkce ? pkcePair() : undefined;
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    scope: options.scope ?? 'api:read',
    state,
    ...(pkce ? { code_challenge: pkce.challenge, code_challenge_method: 'S256' } : {}),
  });
  const landed = await authorizeAsPerson(run, `${run.base}/oauth2/authorize?${params}`);
  const code = checkAuthorizationResponse(landed, `${run.base}/oauth2`, state);
  const request = clientRequest(
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      ...(pkce ? { code_verifier: pkce.verifier } : {}),
    },
    client.client_secret
      ? { method: 'client_secret_basic', clientId: client.client_id, secret: client.client_secret }
      : { method: 'none', clientId: client.client_id },
  );
  const token = await run.http.send(
    'Token request',
    `${run.base}/oauth2/token`,
    request,
    pkce
      ? [
          'RFC 7636 §4.5: code_verifier instead of a secret',
          'RFC 7636 §4.6: the server compares SHA-256(verifier) with the challenge',
        ]
      : ['RFC 6749 §4.1.3: code and redirect_uri, client_secret_basic (RFC 6749 §2.3.1)'],
  );
  expectStatus(token.status, 200, 'token request');
  return { client, token: token.body as { access_token: string; refresh_token?: string; token_type: string } };
}

async function callResource(run: RunContext, token: string, step = 'Resource request') {
  const res = await run.http.send(step, `${run.base}${RESOURCE}`, { headers: { authorization: `Bearer ${token}` } }, [
    'RFC 6750 §2.1: Authorization: Bearer',
  ]);
  return res;
}

async function clientCredentials(run: RunContext, prove?: DpopProver) {
  const method = String(run.options.client_auth ?? 'client_secret_basic');
  const scope = String(run.options.scope ?? 'api:read');
  const url = `${run.base}/oauth2/token`;
  // token_mode dpop: a proof with the token request binds the token to the key (RFC 9449 §5).
  const dpop = async (): Promise<Record<string, string>> => (prove ? { dpop: await prove('POST', url) } : {});
  let res;
  if (method === 'client_secret_basic') {
    const client = await demoClient(run, 'machine-client');
    res = await run.http.send(
      'Token request (client_secret_basic)',
      url,
      clientRequest(
        { grant_type: 'client_credentials', scope },
        { method: 'client_secret_basic', clientId: client.client_id, secret: client.client_secret! },
        await dpop(),
      ),
      ['RFC 6749 §4.4.2', 'RFC 6749 §2.3.1: HTTP Basic with form-urlencoded id and secret'],
    );
  } else if (method === 'client_secret_post') {
    const client = await demoClient(run, 'demo-app-post');
    res = await run.http.send(
      'Token request (client_secret_post)',
      url,
      clientRequest(
        { grant_type: 'client_credentials', scope },
        { method: 'client_secret_post', clientId: client.client_id, secret: client.client_secret! },
        await dpop(),
      ),
      ['RFC 6749 §4.4.2', 'RFC 6749 §2.3.1: credentials in the form body'],
    );
  } else if (method === 'private_key_jwt') {
    const client = await demoClient(run, 'pkjwt-app');
    const jwk = client.private_jwks!.keys.find((k) => k.alg === String(run.options.alg ?? 'ES256'));
    if (!jwk) throw new FlowFailure('no published key for that alg');
    const key = await importJWK(jwk, jwk.alg);
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: jwk.alg, kid: jwk.kid })
      .setIssuer(client.client_id)
      .setSubject(client.client_id)
      .setAudience(url)
      .setIssuedAt(run.nowS())
      .setExpirationTime(run.nowS() + 60)
      .setJti(b64url(randomBytes(16)))
      .sign(key);
    res = await run.http.send(
      'Token request (private_key_jwt)',
      url,
      clientRequest(
        { grant_type: 'client_credentials', scope },
        { method: 'private_key_jwt', assertion },
        await dpop(),
      ),
      ['RFC 7523 §2.2: a JWT signed with the client key; iss = sub = client_id, aud = token endpoint, single-use jti'],
    );
  } else {
    throw new FlowFailure('client_auth must be client_secret_basic, client_secret_post or private_key_jwt');
  }
  expectStatus(res.status, 200, 'client credentials');
  return res.body as { access_token: string; token_type: string };
}

export function registerOAuth2Runners(runners: FlowRunners): void {
  runners.register('oauth2', 'authorization-code', async (run) => {
    const { token } = await authorizationCode(run, { clientId: 'demo-app', pkce: false });
    expectStatus((await callResource(run, token.access_token)).status, 200, 'resource');
  });

  runners.register('oauth2', 'authorization-code-pkce', async (run) => {
    const { token } = await authorizationCode(run, { clientId: 'public-app', pkce: true });
    expectStatus((await callResource(run, token.access_token)).status, 200, 'resource');
  });

  runners.register('oauth2', 'client-credentials', async (run) => {
    const prove = run.options.token_mode === 'dpop' ? await dpopProver(run.nowS) : undefined;
    const token = await clientCredentials(run, prove);
    if (prove && token.token_type !== 'DPoP') throw new FlowFailure('token_type should be DPoP');
    expectStatus(
      (await (prove ? callResourceWithProof(run, token.access_token, prove) : callResource(run, token.access_token)))
        .status,
      200,
      'resource',
    );
  });

  runners.register('oauth2', 'refresh-token', async (run) => {
    const { client, token } = await authorizationCode(run, { clientId: 'demo-app', pkce: false });
    const auth: ClientAuthentication = {
      method: 'client_secret_basic',
      clientId: client.client_id,
      secret: client.client_secret!,
    };
    const url = `${run.base}/oauth2/token`;
    const first = await run.http.send(
      'Refresh',
      url,
      clientRequest({ grant_type: 'refresh_token', refresh_token: token.refresh_token! }, auth),
      ['RFC 6749 §6', 'The refresh token rotates: a new one comes back'],
    );
    expectStatus(first.status, 200, 'refresh');
    const reuse = await run.http.send(
      'Reuse the rotated refresh token',
      url,
      clientRequest({ grant_type: 'refresh_token', refresh_token: token.refresh_token! }, auth),
      ['RFC 9700 §4.14.2: reuse of a rotated token revokes the family'],
    );
    expectStatus(reuse.status, 400, 'reuse');
    const after = await run.http.send(
      'The newest refresh token is revoked too',
      url,
      clientRequest({ grant_type: 'refresh_token', refresh_token: first.json.refresh_token as string }, auth),
      ['The whole family is revoked'],
    );
    expectStatus(after.status, 400, 'family revoked');
  });

  runners.register('oauth2', 'token-introspection', async (run) => {
    const token = await clientCredentials({ ...run, options: { client_auth: 'client_secret_basic' } });
    const client = await demoClient(run, 'demo-app');
    const res = await run.http.send(
      'Introspection request',
      `${run.base}/oauth2/introspect`,
      {
        form: { token: token.access_token },
        headers: { authorization: basic(client.client_id, client.client_secret!) },
      },
      ['RFC 7662 §2.1: the caller authenticates as a client', 'RFC 7662 §2.2: active and the token metadata'],
    );
    expectStatus(res.status, 200, 'introspection');
    if (res.json.active !== true) throw new FlowFailure('the fresh token should be active');
  });

  runners.register('oauth2', 'token-revocation', async (run) => {
    const client = await demoClient(run, 'machine-client');
    const auth = { authorization: basic(client.client_id, client.client_secret!) };
    const token = await run.http.send(
      'Token request',
      `${run.base}/oauth2/token`,
      { form: { grant_type: 'client_credentials', scope: 'api:read' }, headers: auth },
      ['RFC 6749 §4.4'],
    );
    expectStatus(token.status, 200, 'token');
    const revoked = await run.http.send(
      'Revocation request',
      `${run.base}/oauth2/revoke`,
      { form: { token: stringIn(token, 'access_token'), token_type_hint: 'access_token' }, headers: auth },
      ['RFC 7009 §2.2: 200 whether or not the token was known'],
    );
    expectStatus(revoked.status, 200, 'revocation');
    const introspected = await run.http.send(
      'Introspection after revocation',
      `${run.base}/oauth2/introspect`,
      { form: { token: stringIn(token, 'access_token') }, headers: auth },
      ['RFC 7662 §2.2: a revoked token is {active: false}'],
    );
    if (introspected.json.active !== false) throw new FlowFailure('the revoked token is still active');
    expectStatus(
      (await callResource(run, stringIn(token, 'access_token'), 'Resource request with the revoked token')).status,
      401,
      'revoked token at the resource',
    );
  });

  runners.register('oauth2', 'dpop-bound-token', async (run) => {
    const proof = await dpopProver(run.nowS);
    const client = await demoClient(run, 'machine-client');
    const url = `${run.base}/oauth2/token`;
    const token = await run.http.send(
      'Token request with a DPoP proof',
      url,
      {
        form: { grant_type: 'client_credentials', scope: 'api:read' },
        headers: { authorization: basic(client.client_id, client.client_secret!), dpop: await proof('POST', url) },
      },
      [
        'RFC 9449 §4.2: proof with htm, htu, iat, jti and the public jwk',
        'RFC 9449 §5: token_type DPoP',
        'RFC 9449 §6: cnf.jkt is the key thumbprint',
      ],
    );
    expectStatus(token.status, 200, 'DPoP token request');
    if (token.json.token_type !== 'DPoP') throw new FlowFailure('token_type should be DPoP');
    const ok = await callResourceWithProof(run, stringIn(token, 'access_token'), proof);
    expectStatus(ok.status, 200, 'DPoP resource request');
    const stolen = await callResource(run, stringIn(token, 'access_token'), 'The same token as a bearer token');
    expectStatus(stolen.status, 401, 'bearer use of a DPoP-bound token');
  });
}
