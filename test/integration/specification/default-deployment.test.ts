import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 45 part A: with no variable set, the deployment is exactly the specification. Dynamic clients
// and the protected MCP endpoint are extensions, off by default (decisions §11).
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(() => server.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers });

describe('dynamic clients are off by default (item 1)', () => {
  it('no metadata document offers registration or client ID metadata documents', async () => {
    for (const path of [
      '/.well-known/openid-configuration',
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-authorization-server/oauth2',
      '/oidc/.well-known/openid-configuration',
    ]) {
      const res = await get(path);
      if (res.status !== 200) continue;
      const doc = (await res.json()) as Record<string, unknown>;
      expect(doc, path).not.toHaveProperty('registration_endpoint');
      expect(doc, path).not.toHaveProperty('client_id_metadata_document_supported');
    }
  });

  it('/oauth2/register and /oauth2/register/{id} answer 404 in the error contract', async () => {
    const register = await exchange(
      server.url,
      '/oauth2/register',
      json({ redirect_uris: ['https://app.example/cb'] }),
    );
    expect(register.status).toBe(404);
    expect(register.body).toMatchObject({ error: expect.any(String), error_description: expect.any(String) });
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await fetch(`${server.url}/oauth2/register/some-client`, { method });
      expect(res.status, method).toBe(404);
      expect(((await res.json()) as { error: string }).error).toBe('not_found');
    }
  });

  it('an https client_id is an unknown client, at the token endpoint and at /authorize', async () => {
    const clientId = 'https://client.example/metadata.json';
    const token = await exchange(
      server.url,
      '/oauth2/token',
      form({ grant_type: 'client_credentials', client_id: clientId }),
    );
    expect(token.status).toBe(401);
    expect(token.body.error).toBe('invalid_client');
    const authorize = await get(
      `/oauth2/authorize?${new URLSearchParams({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: 'https://client.example/cb',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      })}`,
    );
    // The same error page as any unknown client: nothing is fetched, nothing is redirected to.
    expect(authorize.status).toBe(400);
    expect(await authorize.text()).toMatch(/Unknown or missing client_id/);
  });

  it('llms.txt, the skills, the catalog and the conformance registry do not offer registration', async () => {
    expect(await (await get('/llms.txt')).text()).not.toMatch(/oauth2\/register/);
    const skill = await (await get('/.well-known/agent-skills/use-mcp/SKILL.md')).text();
    expect(skill).not.toMatch(/oauth2\/register|\/mcp\/user|start_flow/);
    const flows = (await (await get('/api/protocols/mcp/flows')).json()) as { flows: Array<{ id: string }> };
    expect(flows.flows.map((f) => f.id)).not.toContain('authorization');
    expect((await get('/api/protocols/mcp/flows/authorization')).status).toBe(404);
    const specs = (await (await get('/api/conformance/specs')).json()) as { specs: Array<{ id: string }> };
    expect(specs.specs.map((s) => s.id)).not.toContain('rfc7591');
    expect(specs.specs.map((s) => s.id)).not.toContain('rfc7592');
  });
});

describe('the protected MCP endpoint is off by default (item 2)', () => {
  it('/mcp/user and its RFC 9728 document answer 404; the card and the AI catalog list /mcp alone', async () => {
    const user = await fetch(`${server.url}/mcp/user`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(user.status).toBe(404);
    expect((await get('/.well-known/oauth-protected-resource/mcp/user')).status).toBe(404);
    const card = (await (await get('/mcp/server-card')).json()) as { remotes: Array<{ url: string }> };
    expect(card.remotes.map((r) => r.url)).toEqual([`${server.url}/mcp`]);
    const catalog = (await (await get('/.well-known/ai-catalog.json')).json()) as {
      entries: Array<{ endpoint: string }>;
    };
    expect(catalog.entries.map((e) => e.endpoint)).toEqual([`${server.url}/mcp`]);
    const index = (await (await get('/api')).json()) as { endpoints: Record<string, string> };
    expect(index.endpoints).not.toHaveProperty('mcp_user');
  });

  it('/mcp serves only tools annotated readOnlyHint, and says so truthfully', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    const text = await res.text();
    const body = JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as {
      result: { tools: Array<{ name: string; annotations?: { readOnlyHint?: boolean } }> };
    };
    const names = body.result.tools.map((t) => t.name);
    expect(names).not.toEqual(expect.arrayContaining(['start_flow']));
    for (const name of ['start_flow', 'step_run', 'continue_run']) expect(names).not.toContain(name);
    for (const tool of body.result.tools) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
  });
});
