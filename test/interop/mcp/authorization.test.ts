import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAsBrowser } from '../../support/browser-like.ts';
import { startMainServer, EXTENSIONS_ON, type TestServer } from '../../support/main-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startMainServer({ env: EXTENSIONS_ON });
});
afterAll(async () => {
  await server.close();
});

/**
 * An OAuthClientProvider kept in memory, as an MCP host would keep one: it registers dynamically and
 * hands the authorization URL to "the browser", which here is the test driving the demo login.
 */
class MemoryProvider implements OAuthClientProvider {
  information?: any;
  stored?: any;
  verifier = '';
  authorizationUrls: URL[] = [];
  constructor(private readonly redirect: string) {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata() {
    return {
      client_name: 'MCP SDK test host',
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: any) {
    this.information = information;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: any) {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The person signs in and consents; the code and `iss` (RFC 9207) come back on the redirect. */
async function loginFor(url: URL): Promise<URLSearchParams> {
  const landed = await authorizeAsBrowser(url);
  expect(landed.location, landed.pages.at(-1)?.body.slice(0, 300)).toBeDefined();
  return new URL(landed.location!).searchParams;
}

describe('the MCP SDK’s own client OAuth support against /mcp/user', () => {
  it('starts from the 401 alone: discovers, registers, authorizes with PKCE and resource, calls whoami, and steps up for start_flow', async () => {
    server.clock.set(Date.now());
    const endpoint = new URL(`${server.url}/mcp/user`);
    const provider = new MemoryProvider(`${server.url}/callback`);
    const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
    const client = new Client({ name: 'sdk-oauth-test', version: '1' });
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);

    // It followed the challenge: the RFC 9728 document, then the AS, then registration (RFC 7591).
    expect(provider.information?.client_id).toBeTypeOf('string');
    const first = provider.authorizationUrls.at(-1)!;
    expect(first.origin + first.pathname).toBe(`${server.url}/oauth2/authorize`);
    expect(first.searchParams.get('resource')).toBe(endpoint.href);
    expect(first.searchParams.get('code_challenge_method')).toBe('S256');
    // The challenge's scope; the SDK adds offline_access since the AS offers refresh tokens.
    expect(first.searchParams.get('scope')?.split(' ')).toContain('mcp:read');
    expect(first.searchParams.get('scope')?.split(' ')).not.toContain('mcp:write');

    await transport.finishAuth(await loginFor(first));
    const access = decodeJwt(provider.stored.access_token);
    expect(access).toMatchObject({ aud: endpoint.href, sub: 'alice' });
    const granted = access.scope as string;
    expect(granted.split(' ')).not.toContain('mcp:write');

    const connected = new Client({ name: 'sdk-oauth-test', version: '1' });
    const authed = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
    await connected.connect(authed);
    const tools = await connected.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual([
      'continue_run',
      'my_runs',
      'start_flow',
      'step_run',
      'whoami',
    ]);
    const me = await connected.callTool({ name: 'whoami', arguments: {} });
    expect(me.structuredContent).toMatchObject({
      sub: 'alice',
      client_id: provider.information.client_id,
      scope: granted,
      aud: endpoint.href,
      exp: access.exp,
    });

    // start_flow needs mcp:write: 403 insufficient_scope, and the SDK goes back to authorize for more.
    const before = provider.authorizationUrls.length;
    await expect(
      connected.callTool({ name: 'start_flow', arguments: { protocolId: 'oauth2', flowId: 'client-credentials' } }),
    ).rejects.toBeDefined();
    const stepUp = provider.authorizationUrls.at(-1)!;
    expect(provider.authorizationUrls.length).toBe(before + 1);
    expect(stepUp.searchParams.get('scope')?.split(' ')).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write']));
    await authed.finishAuth(await loginFor(stepUp));
    expect((decodeJwt(provider.stored.access_token).scope as string).split(' ')).toContain('mcp:write');

    const writer = new Client({ name: 'sdk-oauth-test', version: '1' });
    await writer.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
    const run = await writer.callTool({
      name: 'start_flow',
      arguments: { protocolId: 'oauth2', flowId: 'client-credentials' },
    });
    expect(run.isError, JSON.stringify(run.content)).toBeFalsy();
    const runId = (run.structuredContent as { run_id: string }).run_id;
    const mine = await writer.callTool({ name: 'my_runs', arguments: {} });
    expect((mine.structuredContent as { runs: any[] }).runs).toEqual([
      expect.objectContaining({ runId, protocol: 'oauth2', flow: 'client-credentials', status: 'succeeded' }),
    ]);
    await Promise.all([client.close(), connected.close(), writer.close()]);
  });
});
