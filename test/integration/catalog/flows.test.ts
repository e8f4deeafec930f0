import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const get = async (path: string) => {
  const res = await fetch(server.url + path);
  return { status: res.status, body: (await res.json()) as any };
};
const run = async (protocol: string, flow: string, options: Record<string, unknown> = {}) => {
  const res = await fetch(`${server.url}/api/protocols/${protocol}/demo/${flow}`, json(options));
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body).slice(0, 500)).toBe(201);
  expect(body.status, body.error).toBe('succeeded');
  return body;
};
const steps = (body: any) => body.exchanges.map((x: any) => x.step);
const tokenNamed = (body: any, name: string) => body.tokens.find((t: any) => t.name === name);

describe('catalog', () => {
  it('lists every protocol of decisions section 4 with its specs', async () => {
    const { body } = await get('/api/protocols');
    expect(body.protocols.map((p: any) => p.id).sort()).toEqual([
      'agentauth',
      'mcp',
      'oauth2',
      'oid4vci',
      'oid4vp',
      'oidc',
      'saml',
      'scim',
      'spiffe',
      'ssf',
    ]);
    const oauth = (await get('/api/protocols/oauth2')).body;
    expect(oauth.specs.map((s: any) => s.id)).toContain('rfc7636');
    expect((await get('/api/protocols/nope')).status).toBe(404);
  });

  it('marks flows without a runner as not executable, and refuses to run them with 409', async () => {
    const { body } = await get('/api/protocols/mcp/flows');
    const toolCall = body.flows.find((f: any) => f.id === 'tool-call');
    expect(toolCall).toMatchObject({ executable: false });
    expect(toolCall.steps[0]).toMatchObject({ order: 1 });
    // mcp/authorization needs two extensions (decisions §11): the default deployment does not list it.
    expect(body.flows.find((f: any) => f.id === 'authorization')).toBeUndefined();
    const res = await fetch(`${server.url}/api/protocols/mcp/demo/tool-call`, json({}));
    expect([res.status, ((await res.json()) as any).error]).toEqual([409, 'flow_not_executable']);
    const missing = await fetch(`${server.url}/api/protocols/oauth2/demo/nope`, json({}));
    expect(missing.status).toBe(404);
    const oauthFlows = (await get('/api/protocols/oauth2/flows')).body.flows;
    expect(oauthFlows.every((f: any) => f.executable)).toBe(true);
  });
});

describe('executable flows over HTTP', () => {
  it('oauth2/authorization-code: login and consent as the person, code at the redirect URI, token, resource', async () => {
    const body = await run('oauth2', 'authorization-code');
    expect(steps(body)).toEqual(
      expect.arrayContaining([
        'Authorization request (browser)',
        'Sign in as a demo user (person)',
        'Allow (person)',
        'Token request',
        'Resource request',
      ]),
    );
    const token = body.exchanges.find((x: any) => x.step === 'Token request');
    expect(token.request.headers.authorization).toMatch(/^Basic /);
    expect(token.response.body.token_type).toBe('Bearer');
    expect(tokenNamed(body, 'access_token').header).toMatchObject({ typ: 'at+jwt', alg: 'ES256' });
    expect(tokenNamed(body, 'access_token').payload).toMatchObject({
      sub: 'alice',
      client_id: 'demo-app',
      iss: `${server.url}/oauth2`,
    });
    expect(body.exchanges.at(-1).response.status).toBe(200);
  });

  it('oauth2/authorization-code-pkce: verifier instead of a secret', async () => {
    const body = await run('oauth2', 'authorization-code-pkce');
    const authorize = new URL(
      body.exchanges.find((x: any) => x.step === 'Authorization request (browser)').request.url,
    );
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    const token = body.exchanges.find((x: any) => x.step === 'Token request');
    expect(token.request.body.code_verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(token.request.headers.authorization).toBeUndefined();
    expect(tokenNamed(body, 'access_token').payload.client_id).toBe('public-app');
  });

  it('oauth2/client-credentials with each client authentication method', async () => {
    const basic = await run('oauth2', 'client-credentials');
    expect(tokenNamed(basic, 'access_token').payload).toMatchObject({ sub: 'machine-client', scope: 'api:read' });
    const post = await run('oauth2', 'client-credentials', { client_auth: 'client_secret_post' });
    expect(
      post.exchanges.find((x: any) => x.step.startsWith('Token request')).request.body.client_secret,
    ).toBeDefined();
    for (const alg of ['ES256', 'RS256', 'EdDSA']) {
      const pk = await run('oauth2', 'client-credentials', { client_auth: 'private_key_jwt', alg });
      const req = pk.exchanges.find((x: any) => x.step === 'Token request (private_key_jwt)').request.body;
      expect(req.client_assertion_type).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      expect(tokenNamed(pk, 'access_token').payload.client_id).toBe('pkjwt-app');
    }
    const bad = await fetch(`${server.url}/api/protocols/oauth2/demo/client-credentials`, json({ client_auth: 'tls' }));
    expect(bad.status).toBe(400);
  });

  it('oauth2/refresh-token: rotation, then reuse revokes the family', async () => {
    const body = await run('oauth2', 'refresh-token');
    const reuse = body.exchanges.find((x: any) => x.step === 'Reuse the rotated refresh token');
    expect(reuse.response.body.error).toBe('invalid_grant');
    expect(body.exchanges.at(-1).response.body.error).toBe('invalid_grant');
  });

  it('oauth2/token-introspection and token-revocation', async () => {
    const intro = await run('oauth2', 'token-introspection');
    expect(intro.exchanges.at(-1).response.body).toMatchObject({ active: true, client_id: 'machine-client' });
    const rev = await run('oauth2', 'token-revocation');
    expect(rev.exchanges.find((x: any) => x.step === 'Introspection after revocation').response.body).toEqual({
      active: false,
    });
    expect(rev.exchanges.at(-1).response.status).toBe(401);
  });

  it('oauth2/dpop-bound-token: DPoP token with cnf.jkt, accepted with a proof, refused as bearer', async () => {
    const body = await run('oauth2', 'dpop-bound-token');
    expect(tokenNamed(body, 'access_token').payload.cnf.jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.exchanges.find((x: any) => x.step === 'Resource request with a proof').response.status).toBe(200);
    expect(body.exchanges.at(-1).response.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
  });

  it('oidc/authorization-code-id-token and oidc/discovery', async () => {
    const body = await run('oidc', 'authorization-code-id-token');
    expect(tokenNamed(body, 'id_token').header.alg).toBe('RS256');
    expect(tokenNamed(body, 'id_token').payload).toMatchObject({ iss: server.url, aud: 'demo-app', sub: 'alice' });
    expect(body.exchanges.at(-1).response.body).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
    const discovery = await run('oidc', 'discovery');
    expect(discovery.exchanges[0].response.body.issuer).toBe(server.url);
  });

  it('agentauth/register-and-claim: the person approves as a separate actor; write scope after the poll interval', async () => {
    const body = await run('agentauth', 'register-and-claim');
    expect(steps(body)).toEqual([
      'Register',
      'Redeem the identity assertion',
      'Replay the assertion',
      'Start the claim',
      'Poll',
      'Person approves on the claim page (separate actor)',
      'Poll after approval',
    ]);
    expect(body.exchanges[2].response.body.error).toBe('invalid_grant');
    expect(tokenNamed(body, 'identity_assertion').payload.claimed).toBe(false);
    const last = body.exchanges.at(-1);
    expect(last.response.body).toMatchObject({ scope: 'agent:read agent:write', claimed: true });
    expect(body.tokens.filter((t: any) => t.name === 'identity_assertion').map((t: any) => t.payload.claimed)).toEqual([
      false,
      true,
    ]);
  });
});

describe('runs are event streams', () => {
  it('GET /api/runs/{id} replays the stream with secrets redacted; the SSE stream ends with run.finished', async () => {
    const body = await run('oauth2', 'client-credentials');
    const stored = (await get(`/api/runs/${body.run_id}`)).body;
    expect(stored).toMatchObject({
      run_id: body.run_id,
      protocol: 'oauth2',
      flow: 'client-credentials',
      status: 'succeeded',
    });
    expect(stored.exchanges.length).toBe(body.exchanges.length);
    const raw = JSON.stringify(stored);
    expect(raw).not.toContain(
      body.exchanges.find((x: any) => x.response.body?.access_token).response.body.access_token,
    );
    expect(raw).toContain('[redacted hmac:');
    expect(stored.tokens[0].payload.client_id).toBe('machine-client');
    // The run machine's position after each event of its stream: running, then the final state.
    expect(stored.machine.map((m: any) => m.event)).toEqual([
      'run.started',
      ...stored.exchanges.map(() => 'run.exchange_recorded'),
      'run.finished',
    ]);
    expect(stored.machine.at(-1).state).toBe('succeeded');
    expect(stored.machine.slice(0, -1).every((m: any) => m.state === 'running')).toBe(true);
    expect(body.machine.at(-1).state).toBe('succeeded');
    const page = await (await fetch(`${server.url}/runs/${body.run_id}`, { headers: { accept: 'text/html' } })).text();
    // Issue 31: each state links to its event on the stream's time-travel page.
    expect(page).toContain(
      `Run machine after this exchange: <a href="/streams/run:${body.run_id}?at=2"><code>running</code></a>`,
    );
    expect(page).toMatch(
      new RegExp(
        `The <a href="/machines/flowRun\\?state=succeeded">run machine</a> ends in <a href="/streams/run:${body.run_id}\\?at=\\d+">succeeded</a>`,
      ),
    );

    const res = await fetch(`${server.url}/api/runs/${body.run_id}/events`);
    const text = await res.text();
    expect(text).toContain('event: run.started');
    expect(text.match(/event: run.exchange_recorded/g)?.length).toBe(body.exchanges.length);
    expect(text.trim().split('\n\n').at(-1)).toMatch(/event: run.finished/);
    expect((await get('/api/runs/unknown')).status).toBe(404);
  });
});
