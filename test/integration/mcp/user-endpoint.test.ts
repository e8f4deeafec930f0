import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, json, startMainServer, EXTENSIONS_ON, type TestServer } from '../../support/main-server.ts';

/**
 * `/mcp/user` as the MCP authorization specification has it (challenge, RFC 9728, audience, DPoP,
 * step-up), and the catalog flow mcp/authorization that performs the whole dance against it.
 */
let server: TestServer;
let reader: { id: string; secret: string };
let writer: { id: string; secret: string };
beforeAll(async () => {
  server = await startMainServer({ env: EXTENSIONS_ON });
  const machine = async (scope: string) => {
    const res = await fetch(`${server.url}/oauth2/register`, json({ grant_types: ['client_credentials'], scope }));
    const body = (await res.json()) as { client_id: string; client_secret: string };
    return { id: body.client_id, secret: body.client_secret };
  };
  reader = await machine('mcp:read');
  writer = await machine('mcp:read mcp:write');
});
afterAll(async () => {
  await server.close();
});

const endpoint = () => `${server.url}/mcp/user`;
const metadataUrl = () => `${server.url}/.well-known/oauth-protected-resource/mcp/user`;
const basic = (c: { id: string; secret: string }) => `Basic ${Buffer.from(`${c.id}:${c.secret}`).toString('base64')}`;

async function token(c: { id: string; secret: string }, params: Record<string, string>, dpop?: string) {
  const res = await fetch(
    `${server.url}/oauth2/token`,
    form({ grant_type: 'client_credentials', ...params }, { authorization: basic(c), ...(dpop ? { dpop } : {}) }),
  );
  return (await res.json()) as { access_token: string; token_type: string };
}

const rpc = (method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const initialize = rpc('initialize', {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 't', version: '1' },
});
const call = (name: string, args: Record<string, unknown> = {}) => rpc('tools/call', { name, arguments: args });

async function post(body: string, headers: Record<string, string> = {}) {
  const res = await fetch(endpoint(), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });
  const text = await res.text();
  const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: JSON.parse(data) };
}

describe('/mcp/user', () => {
  it('without a token: 401 with exactly the resource_metadata and scope challenge', async () => {
    const res = await post(initialize);
    expect(res.status).toBe(401);
    expect(res.challenge).toBe(`Bearer resource_metadata="${metadataUrl()}", scope="mcp:read"`);
    expect(res.body.error).toBe('invalid_token');
  });

  it('serves its RFC 9728 document naming the authorization server, whose metadata it can then read', async () => {
    const res = await fetch(metadataUrl());
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const doc = (await res.json()) as Record<string, any>;
    expect(doc).toMatchObject({
      resource: endpoint(),
      authorization_servers: [`${server.url}/oauth2`],
      scopes_supported: ['mcp:read', 'mcp:write'],
      bearer_methods_supported: ['header'],
    });
    const as = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server/oauth2`)).json()) as any;
    expect(as.issuer).toBe(doc.authorization_servers[0]);
    expect(as.scopes_supported).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write']));
  });

  it('accepts only tokens whose audience is /mcp/user (RFC 8707)', async () => {
    const general = await token(reader, { scope: 'mcp:read' });
    const refused = await post(initialize, { authorization: `Bearer ${general.access_token}` });
    expect(refused.status).toBe(401);
    expect(refused.challenge).toMatch(/^Bearer error="invalid_token".*resource_metadata="/);
    const bound = await token(reader, { scope: 'mcp:read', resource: endpoint() });
    const ok = await post(initialize, { authorization: `Bearer ${bound.access_token}` });
    expect(ok.status).toBe(200);
    expect(ok.body.result.serverInfo.name).toBe('io.portico/identity-sandbox');
    const me = await post(call('whoami'), { authorization: `Bearer ${bound.access_token}` });
    expect(me.body.result.structuredContent).toMatchObject({
      sub: reader.id,
      client_id: reader.id,
      scope: 'mcp:read',
      aud: endpoint(),
      token_type: 'Bearer',
    });
  });

  it('a token without mcp:read is refused with 403 insufficient_scope', async () => {
    const bare = await fetch(
      `${server.url}/oauth2/register`,
      json({ grant_types: ['client_credentials'], scope: 'api:read' }),
    );
    const c = (await bare.json()) as { client_id: string; client_secret: string };
    const t = await token({ id: c.client_id, secret: c.client_secret }, { resource: endpoint() });
    const res = await post(initialize, { authorization: `Bearer ${t.access_token}` });
    expect(res.status).toBe(403);
    expect(res.challenge).toMatch(/error="insufficient_scope"/);
    expect(res.challenge).toMatch(/scope="mcp:read"/);
  });

  it('start_flow without mcp:write is the step-up 403; with it, the run is recorded as this token’s', async () => {
    const read = await token(reader, { scope: 'mcp:read', resource: endpoint() });
    const stepUp = await post(call('start_flow', { protocolId: 'oauth2', flowId: 'client-credentials' }), {
      authorization: `Bearer ${read.access_token}`,
    });
    expect(stepUp.status).toBe(403);
    expect(stepUp.challenge).toMatch(/^Bearer error="insufficient_scope"/);
    expect(stepUp.challenge).toMatch(/scope="mcp:read mcp:write"/);
    expect(stepUp.challenge).toMatch(new RegExp(`resource_metadata="${metadataUrl()}"`));

    const write = await token(writer, { scope: 'mcp:read mcp:write', resource: endpoint() });
    const auth = { authorization: `Bearer ${write.access_token}` };
    const started = await post(call('start_flow', { protocolId: 'oauth2', flowId: 'client-credentials' }), auth);
    expect(started.status).toBe(200);
    const runId = started.body.result.structuredContent.run_id;
    const mine = await post(call('my_runs'), auth);
    expect(mine.body.result.structuredContent.runs).toEqual([expect.objectContaining({ runId, status: 'succeeded' })]);
    // Another token of the same client has its own list.
    const other = await token(writer, { scope: 'mcp:read mcp:write', resource: endpoint() });
    const theirs = await post(call('my_runs'), { authorization: `Bearer ${other.access_token}` });
    expect(theirs.body.result.structuredContent.runs).toEqual([]);
  });

  // Issue 45 item 39: each MCP caller is its own client for the two-targeted-runs limit, not one shared bucket.
  it('[issue 45 item 39] targeted runs are limited per MCP caller: two each, a third refused, another caller free', async () => {
    const target = { issuer: `${server.url}/oauth2`, client_id: 'demo-app', client_secret: 'demo-app-secret' };
    const startAs = async (c: { id: string; secret: string }) => {
      const t = await token(c, { scope: 'mcp:read mcp:write', resource: endpoint() });
      return post(call('start_flow', { protocolId: 'oauth2', flowId: 'authorization-code-pkce', target }), {
        authorization: `Bearer ${t.access_token}`,
      });
    };
    const first = await startAs(writer);
    const second = await startAs(writer);
    for (const started of [first, second])
      expect(started.body.result.structuredContent.status, JSON.stringify(started.body).slice(0, 300)).toBe(
        'awaiting_user',
      );
    const third = await startAs(writer);
    expect(third.body.result.isError).toBe(true);
    expect(third.body.result.content[0].text).toMatch(/^rate_limited/);
    const another = await fetch(
      `${server.url}/oauth2/register`,
      json({ grant_types: ['client_credentials'], scope: 'mcp:read mcp:write' }),
    );
    const other = (await another.json()) as { client_id: string; client_secret: string };
    const theirs = await startAs({ id: other.client_id, secret: other.client_secret });
    expect(theirs.body.result.structuredContent.status).toBe('awaiting_user');
    // The waiting runs end as expired once their 10 minutes pass, and give their places back.
    server.clock.advance(10 * 60_000 + 1_000);
    for (const started of [first, second, theirs]) {
      const { run_id, run_token } = started.body.result.structuredContent;
      const read = await fetch(`${server.url}/api/runs/${run_id}`, {
        headers: { authorization: `Bearer ${run_token}` },
      });
      expect(((await read.json()) as { status: string }).status).toBe('expired');
    }
  });

  it('[issue 45 item 2] step_run and continue_run live here, behind mcp:write, and move a stepped run to its end', async () => {
    const write = await token(writer, { scope: 'mcp:read mcp:write', resource: endpoint() });
    const auth = { authorization: `Bearer ${write.access_token}` };
    const stepped = await post(
      call('start_flow', {
        protocolId: 'oauth2',
        flowId: 'client-credentials',
        mode: 'step',
        options: { scope: 'api:write' },
      }),
      auth,
    );
    const { run_id: runId, run_token: runToken } = stepped.body.result.structuredContent;
    expect(stepped.body.result.structuredContent).toMatchObject({ status: 'paused', next_request: { method: 'GET' } });
    const read = await token(reader, { scope: 'mcp:read', resource: endpoint() });
    const stepUp = await post(call('step_run', { runId, runToken }), { authorization: `Bearer ${read.access_token}` });
    expect(stepUp.status).toBe(403);
    expect(stepUp.challenge).toMatch(/scope="mcp:read mcp:write"/);
    const next = await post(call('step_run', { runId, runToken }), auth);
    expect(next.body.result.structuredContent.next_request.body).toMatchObject({
      grant_type: 'client_credentials',
      scope: 'api:write',
    });
    // A removal is named, not a null value: the token request goes out without its scope.
    const trimmed = await post(call('step_run', { runId, runToken, remove: { form: ['scope'] } }), auth);
    expect(trimmed.body.result.isError ?? false).toBe(false);
    const wrong = await post(call('step_run', { runId, runToken: 'x'.repeat(22) }), auth);
    expect(wrong.body.result.isError).toBe(true);
    const done = await post(call('continue_run', { runId, runToken }), auth);
    expect(done.body.result.structuredContent.status).toBe('succeeded');
    // Issue 45 item 26: no input schema has a type array (portable to strict MCP clients).
    const listed = await post(rpc('tools/list'), auth);
    expect(JSON.stringify(listed.body.result.tools)).not.toMatch(/"type":\[/);
  });

  it('takes a DPoP-bound token with a proof carrying ath, and refuses it as Bearer', async () => {
    const keys = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(keys.publicKey);
    const proof = (htu: string, extra: Record<string, unknown> = {}) =>
      new SignJWT({
        jti: randomBytes(12).toString('base64url'),
        iat: Math.floor(server.clock.now() / 1000),
        htm: 'POST',
        htu,
        ...extra,
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(keys.privateKey);
    const bound = await token(
      reader,
      { scope: 'mcp:read', resource: endpoint() },
      await proof(`${server.url}/oauth2/token`),
    );
    expect(bound.token_type).toBe('DPoP');
    const ath = createHash('sha256').update(bound.access_token).digest('base64url');
    const ok = await post(initialize, {
      authorization: `DPoP ${bound.access_token}`,
      dpop: await proof(endpoint(), { ath }),
    });
    expect(ok.status).toBe(200);
    const asBearer = await post(initialize, { authorization: `Bearer ${bound.access_token}` });
    expect(asBearer.status).toBe(401);
    const noProof = await post(initialize, { authorization: `DPoP ${bound.access_token}` });
    expect(noProof.status).toBe(401);
    expect(noProof.challenge).toMatch(/^DPoP /);
  });

  it('the server card and the AI catalog list both endpoints and say which one needs authorization', async () => {
    const card = (await (await fetch(`${server.url}/mcp/server-card`)).json()) as any;
    expect(card.remotes.map((r: any) => r.url)).toEqual([`${server.url}/mcp`, endpoint()]);
    expect(card.remotes[0].headers).toBeUndefined();
    expect(card.remotes[1].headers[0]).toMatchObject({ name: 'Authorization', isRequired: true, isSecret: true });
    expect(card.remotes[1]._meta['io.portico/authorization']).toMatchObject({
      required: true,
      protected_resource_metadata: metadataUrl(),
    });
    const catalog = (await (await fetch(`${server.url}/.well-known/ai-catalog.json`)).json()) as any;
    expect(catalog.entries.map((e: any) => [e.endpoint, e.authorization.required])).toEqual([
      [`${server.url}/mcp`, false],
      [endpoint(), true],
    ]);
  });
});

async function runDance(options: Record<string, string>) {
  const res = await fetch(`${server.url}/api/protocols/mcp/demo/authorization`, json(options));
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body).slice(0, 400)).toBe(201);
  expect(body.status, `${body.error} ${JSON.stringify(body.exchanges?.at(-1))?.slice(0, 600)}`).toBe('succeeded');
  return body.exchanges as Array<{ step: string; request: any; response: any }>;
}

describe('mcp/authorization', () => {
  it('401, PRM, AS metadata, the runner’s metadata document as client_id, PAR, token, the call, and step-up', async () => {
    const exchanges = await runDance({});
    expect(exchanges.map((x) => x.step)).toEqual([
      'Connect without a token',
      'Protected resource metadata',
      'Authorization server metadata',
      'Our client metadata document',
      'Push the read request',
      'Authorization request (browser)',
      'Login page (person)',
      'Sign in as a demo user (person)',
      'Consent page (person)',
      'Allow (person)',
      'Token (read)',
      'Connect with the token',
      'Call whoami',
      'Call start_flow with mcp:read',
      'Push the step-up request',
      'Authorization request (browser)',
      'Login page (person)',
      'Sign in as a demo user (person)',
      'Consent page (person)',
      'Allow (person)',
      'Token (step-up)',
      'Call start_flow after step-up',
    ]);
    const token = exchanges.find((x) => x.step === 'Token (read)')!;
    expect(token.request.body.client_id).toBe(`${server.url}/mcp/flow-client.json`);
    expect(token.response.status).toBe(200);
    expect(exchanges[0].response.headers['www-authenticate']).toMatch(/resource_metadata="/);
    expect(exchanges.find((x) => x.step === 'Call start_flow with mcp:read')!.response.status).toBe(403);
  });

  it('with registration=dcr, registers by RFC 7591 instead', async () => {
    const exchanges = await runDance({ registration: 'dcr' });
    const registered = exchanges.find((x) => x.step === 'Register the client (DCR fallback)')!;
    expect(registered.response.status).toBe(201);
    expect(exchanges.some((x) => x.step === 'Our client metadata document')).toBe(false);
    const token = exchanges.find((x) => x.step === 'Token (step-up)')!;
    expect(token.request.body.client_id).toBe(registered.response.body.client_id);
  });
});
