import { SignJWT, exportJWK, importJWK, type JWK } from 'jose';
import { createHash, randomBytes } from 'node:crypto';
import { authorizeAsBrowser } from './browser-like.ts';
import { afterAll, beforeAll } from 'vitest';
import { form, json, startMainServer, type TestServer } from './main-server.ts';

/** The requests the requirement tests share, bound to one running main origin. */
export async function requirementKit(server: TestServer) {
  const clients: Record<string, any> = Object.fromEntries(
    (((await (await fetch(`${server.url}/oauth2/demo/clients`)).json()) as any).clients as any[]).map((c) => [
      c.client_id,
      c,
    ]),
  );
  const b64 = (b: Buffer) => b.toString('base64url');
  const now = () => Math.floor(server.clock.now() / 1000);
  const basic = (id: string, secret = clients[id].client_secret) => ({
    authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
  });
  const post = async (path: string, init: RequestInit) => {
    const res = await fetch(server.url + path, init);
    const text = await res.text();
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    return { status: res.status, headers: res.headers, body };
  };
  const get = (path: string, headers: Record<string, string> = {}) => post(path, { headers });
  const authorizeUrl = (params: Record<string, string>, prefix = '/oidc') =>
    `${server.url}${prefix}/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'demo-app', redirect_uri: `${server.url}/callback`, scope: 'openid offline_access', state: 'st-1', nonce: 'no-1', ...params })}`;
  /** Where the browser lands after the person signs in and consents (or declines). */
  const code = async (
    params: Record<string, string> = {},
    options: { prefix?: string; decision?: 'approve' | 'deny'; username?: string } = {},
  ) => {
    const landed = await authorizeAsBrowser(authorizeUrl(params, options.prefix), {
      decision: options.decision,
      username: options.username,
    });
    return new URL(landed.location!);
  };
  const redeem = (
    c: string,
    extra: Record<string, string> = {},
    auth: Record<string, string> = basic('demo-app'),
    prefix = '/oidc',
  ) =>
    post(
      `${prefix}/token`,
      form({ grant_type: 'authorization_code', code: c, redirect_uri: `${server.url}/callback`, ...extra }, auth),
    );
  const tokensFor = async (params: Record<string, string> = {}) =>
    (await redeem((await code(params)).searchParams.get('code')!)).body;
  const clientCredentials = (
    client = 'machine-client',
    extra: Record<string, string> = {},
    headers: Record<string, string> = {},
  ) => post('/oauth2/token', form({ grant_type: 'client_credentials', ...extra }, { ...basic(client), ...headers }));
  const register = async () =>
    (await (await fetch(`${server.url}/agentauth/identity`, json({ type: 'anonymous' }))).json()) as any;
  const redeemAssertion = (assertion: string) =>
    post('/agentauth/token', form({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }));
  const poll = (claim_token: string) =>
    post('/agentauth/token', form({ grant_type: 'urn:portico:agent-auth:grant-type:claim', claim_token }));
  const startClaim = async (claim_token: string) =>
    (await post('/agentauth/identity/claim', json({ claim_token, email: 'p@example.com' }))).body;
  const dpopProof = async (
    keys: CryptoKeyPair,
    htm: string,
    htu: string,
    extra: Record<string, unknown> = {},
    header: Record<string, unknown> = {},
  ) =>
    new SignJWT({ htm, htu, jti: b64(randomBytes(12)), iat: now(), ...extra })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(keys.publicKey), ...header })
      .sign(keys.privateKey);
  const pkce = () => {
    const verifier = b64(randomBytes(32));
    return { verifier, challenge: b64(createHash('sha256').update(verifier).digest()) };
  };
  const pkjwtKey = (alg = 'ES256') => clients['pkjwt-app'].private_jwks.keys.find((k: JWK) => k.alg === alg) as JWK;
  const clientAssertion = async (
    claims: Record<string, unknown> = {},
    options: { aud?: string; key?: JWK; exp?: number | null } = {},
  ) => {
    const jwk = options.key ?? pkjwtKey();
    const exp = options.exp === null ? {} : { exp: options.exp ?? now() + 60 };
    const jwt = new SignJWT({
      iss: 'pkjwt-app',
      sub: 'pkjwt-app',
      aud: options.aud ?? `${server.url}/oauth2/token`,
      jti: b64(randomBytes(9)),
      ...exp,
      ...claims,
    }).setProtectedHeader({ alg: jwk.alg!, kid: jwk.kid });
    return jwt.sign(await importJWK(jwk, jwk.alg));
  };
  return {
    clients,
    b64,
    now,
    basic,
    post,
    get,
    authorizeUrl,
    code,
    redeem,
    tokensFor,
    clientCredentials,
    register,
    redeemAssertion,
    poll,
    startClaim,
    dpopProof,
    pkce,
    pkjwtKey,
    clientAssertion,
  };
}

export type RequirementKit = Awaited<ReturnType<typeof requirementKit>>;

/** Starts a main origin for the enclosing test file and hands its kit to the tests. */
export function useRequirementKit(env: Record<string, string> = {}): { server: TestServer; k: RequirementKit } {
  const ctx = {} as { server: TestServer; k: RequirementKit };
  beforeAll(async () => {
    ctx.server = await startMainServer({ env });
    ctx.k = await requirementKit(ctx.server);
  });
  afterAll(async () => {
    await ctx.server.close();
  });
  return ctx;
}
