import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, type TestServer } from '../../support/main-server.ts';
import { startTargetBeside } from '../../support/target-server.ts';

// Issue 33: the authorization code flows against a target: the run waits in awaiting_user, the person
// (the test, as a browser) signs in and comes back to {base}/runs/callback, and each answer is judged.
// A small target misbehaves on purpose, one way per tenant path, so exactly its checks fail.
type Json = Record<string, any>;
let portico: TestServer;
let close: () => Promise<void>;
let base = '';
let listed: { privateKey: CryptoKey; jwk: JWK };
let unlisted: { privateKey: CryptoKey; jwk: JWK };
const codes = new Map<string, { nonce?: string; tenant: string }>();

const keyPair = async (kid: string) => {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
};

beforeAll(async () => {
  listed = await keyPair('listed');
  unlisted = await keyPair('unlisted');
  const started = await startTargetBeside(async (req, res) => {
    const url = new URL(req.url!, base);
    const [, tenant = '', rest = ''] =
      /^(\/[a-z-]+)(\/.*)?$/.exec(url.pathname.replace('/.well-known/oauth-authorization-server', '')) ?? [];
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res
        .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
        .end(JSON.stringify(body));
    const issuer = `${base}${tenant}`;
    if (url.pathname.startsWith('/.well-known/oauth-authorization-server'))
      return send(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
      });
    if (rest === '/jwks') return send(200, { keys: [listed.jwk] });
    if (rest === '/authorize') {
      // Signs the person in at once and sends them back, misbehaving as the tenant says.
      const code = `code-${codes.size}`;
      codes.set(code, { nonce: url.searchParams.get('nonce') ?? undefined, tenant });
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', code);
      if (tenant !== '/drops-state') back.searchParams.set('state', url.searchParams.get('state')!);
      if (tenant !== '/omits-iss') back.searchParams.set('iss', issuer);
      return res.writeHead(302, { location: back.href }).end();
    }
    if (rest === '/token') {
      const body = new URLSearchParams(
        await new Promise<string>((r) => {
          let b = '';
          req.on('data', (c) => (b += c));
          req.on('end', () => r(b));
        }),
      );
      if (body.get('grant_type') === 'refresh_token')
        return body.get('refresh_token') === 'rt-1'
          ? send(200, { access_token: 'at-2', token_type: 'Bearer', expires_in: 300, refresh_token: 'rt-2' })
          : send(400, { error: 'invalid_grant' });
      const grant = codes.get(body.get('code') ?? '');
      if (!grant || !body.get('code_verifier')) return send(400, { error: 'invalid_grant' });
      const key = grant.tenant === '/unlisted-key' ? unlisted : listed;
      const idToken = await new SignJWT({ nonce: grant.nonce })
        .setProtectedHeader({ alg: 'ES256', kid: key.jwk.kid })
        .setIssuer(issuer)
        .setAudience('web-client')
        .setSubject('alice')
        .setIssuedAt(Math.floor(portico.clock.now() / 1000))
        .setExpirationTime(Math.floor(portico.clock.now() / 1000) + 300)
        .sign(key.privateKey);
      return send(200, {
        access_token: 'at-1',
        token_type: 'Bearer',
        expires_in: 300,
        id_token: idToken,
        refresh_token: 'rt-1',
      });
    }
    send(404, { error: 'not_found' });
  });
  ({ base, portico, close } = started);
});
afterAll(() => close());

/** Starts the run, plays the person's browser through the target and back, and reads the finished run. */
async function signInRun(tenant: string, flow = 'oidc/authorization-code-id-token'): Promise<Json> {
  const started = await exchange(
    portico.url,
    `/api/protocols/${flow.replace('/', '/demo/')}`,
    json({ target: { issuer: `${base}${tenant}`, client_id: 'web-client', client_secret: 's3cret', scope: 'openid' } }),
  );
  expect(started.status, JSON.stringify(started.body).slice(0, 300)).toBe(202);
  expect(started.body).toMatchObject({ status: 'awaiting_user', redirect_uri: `${portico.url}/runs/callback` });
  const atTarget = await fetch(started.body.authorization_url, { redirect: 'manual' });
  const callback = await fetch(atTarget.headers.get('location')!, { redirect: 'manual' });
  expect([callback.status, callback.headers.get('location')]).toEqual([303, `/runs/${started.body.run_id}`]);
  let run: Json = started.body;
  while (run.status === 'awaiting_user' || run.status === 'running')
    run = (await exchange(portico.url, `/api/runs/${started.body.run_id}`, byToken(started.body))).body;
  return { ...run, run_token: started.body.run_token };
}
/** A targeted run is read with its run_token. */
const byToken = (started: Json) => ({ headers: { authorization: `Bearer ${started.run_token}` } });
const failing = (run: Json) => (run.checks as Json[]).filter((c) => c.verdict === 'failed').map((c) => c.check);

describe('the authorization code flow against a target', () => {
  it('a well-behaved target: awaiting_user, the person comes back, and every check holds', async () => {
    const run = await signInRun('/good');
    expect(run.status).toBe('succeeded');
    expect(run.checks.map((c: Json) => [c.check, c.verdict])).toEqual([
      ['issuer match', 'passed'],
      ['PKCE advertised', 'passed'],
      ['state echoed', 'passed'],
      ['iss parameter', 'passed'],
      ['token response', 'passed'],
      ['PKCE honoured', 'passed'],
      ['ID token signature', 'passed'],
      ['ID token claims', 'passed'],
    ]);
    const events = (
      (await exchange(portico.url, `/api/streams/run:${run.run_id}/export`, byToken(run))).body.events as Json[]
    ).map((e) => e.type);
    expect(events).toContain('run.awaiting_user');
    expect(events).toContain('run.user_returned');
  });

  it('a target that drops state fails exactly "state echoed"', async () => {
    expect(failing(await signInRun('/drops-state'))).toEqual(['state echoed']);
  });

  it('a target that advertises iss but omits it fails exactly "iss parameter" (RFC 9207)', async () => {
    expect(failing(await signInRun('/omits-iss'))).toEqual(['iss parameter']);
  });

  it('a target that signs with a key it does not list fails exactly "ID token signature"', async () => {
    const run = await signInRun('/unlisted-key');
    expect(failing(run)).toEqual(['ID token signature']);
    expect(run.checks.find((c: Json) => c.check === 'ID token signature').detail).toMatch(/ERR_JWKS_NO_MATCHING_KEY/);
  });

  it('OAuth 2.0 authorization code + PKCE (no ID token), and a callback nobody waits for is refused', async () => {
    const run = await signInRun('/good', 'oauth2/authorization-code-pkce');
    expect(run.status).toBe('succeeded');
    expect(run.checks.map((c: Json) => c.check)).not.toContain('ID token signature');
    const stray = await fetch(`${portico.url}/runs/callback?code=x&state=nobody`, { redirect: 'manual' });
    expect(stray.status).toBe(400);
  });

  it('refresh token: the code flow, then the refresh grant, each token response judged', async () => {
    const run = await signInRun('/good', 'oauth2/refresh-token');
    expect(run.status).toBe('succeeded');
    expect(run.exchanges.at(-1).request.body).toMatchObject({ grant_type: 'refresh_token' });
    expect(run.checks.filter((c: Json) => c.check === 'token response').map((c: Json) => c.verdict)).toEqual([
      'passed',
      'passed',
    ]);
    // Secrets of the target stay out of the log: the refresh token is fingerprinted.
    expect(JSON.stringify(run)).not.toContain('rt-1');
  });

  it('a run left in awaiting_user for 10 minutes ends as expired', async () => {
    const started = await exchange(
      portico.url,
      '/api/protocols/oauth2/demo/authorization-code-pkce',
      json({ target: { issuer: `${base}/good`, client_id: 'web-client', client_secret: 's3cret' } }),
    );
    portico.clock.advance(10 * 60_000);
    const read = await exchange(portico.url, `/api/runs/${started.body.run_id}`, byToken(started.body));
    expect(read.body.status).toBe('expired');
  });
});
