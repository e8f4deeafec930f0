import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { authorizeAsBrowser } from '../../support/browser-like.ts';
import { form, json } from '../../support/main-server.ts';
import { useRequirementKit } from '../../support/requirement-kit.ts';

// Requirements of RFC 7591, 7592, 8707, 9126 (at the OAuth server) and 9728 (the MCP endpoint); each title starts with its registry id.
const ctx = useRequirementKit();

const url = (path: string) => `${ctx.server.url}${path}`;
const register = async (metadata: unknown) => {
  const res = await fetch(url('/oauth2/register'), json(metadata));
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
const machineToken = async (resource: string) => {
  const res = await fetch(
    url('/oauth2/token'),
    form({ grant_type: 'client_credentials', resource }, ctx.k.basic('machine-client')),
  );
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe('RFC 7591', () => {
  it('[rfc7591-001] a registration is answered 201 with client_id and the metadata registered', async () => {
    const res = await register({ redirect_uris: ['https://app.example/cb'], client_name: 'Conformance' });
    expect(res.status).toBe(201);
    expect(res.body.client_id).toBeTypeOf('string');
    expect(res.body).toMatchObject({ client_name: 'Conformance', redirect_uris: ['https://app.example/cb'] });
  });
  it('[rfc7591-002] an invalid redirect URI is refused with invalid_redirect_uri', async () => {
    const res = await register({ redirect_uris: ['https://app.example/cb#fragment'] });
    expect([res.status, res.body.error]).toEqual([400, 'invalid_redirect_uri']);
  });
  it('[rfc7591-003] inconsistent metadata is refused with invalid_client_metadata', async () => {
    const res = await register({
      redirect_uris: ['https://app.example/cb'],
      response_types: ['code'],
      grant_types: ['client_credentials'],
    });
    expect([res.status, res.body.error]).toEqual([400, 'invalid_client_metadata']);
  });
});

describe('RFC 7592', () => {
  it('[rfc7592-001] the client configuration endpoint refuses a wrong registration access token with 401', async () => {
    const { body } = await register({ redirect_uris: ['https://app.example/cb'] });
    const res = await fetch(body.registration_client_uri, { headers: { authorization: 'Bearer not-the-token' } });
    expect(res.status).toBe(401);
  });
  it('[rfc7592-002] a deleted client can no longer get tokens', async () => {
    const { body } = await register({ grant_types: ['client_credentials'], scope: 'api:read' });
    const basic = `Basic ${Buffer.from(`${body.client_id}:${body.client_secret}`).toString('base64')}`;
    const token = () =>
      fetch(url('/oauth2/token'), form({ grant_type: 'client_credentials' }, { authorization: basic }));
    expect((await token()).status).toBe(200);
    const deleted = await fetch(body.registration_client_uri, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${body.registration_access_token}` },
    });
    expect(deleted.status).toBe(204);
    expect((await token()).status).toBe(401);
  });
});

describe('RFC 8707', () => {
  it('[rfc8707-001] the access token is audience-restricted to the resource requested', async () => {
    const res = await machineToken(url('/mcp/user'));
    expect(decodeJwt(res.body.access_token).aud).toBe(url('/mcp/user'));
  });
  it('[rfc8707-002] an unknown or malformed resource is invalid_target', async () => {
    for (const resource of ['https://unknown.example/api', 'relative/path', `${url('/mcp/user')}#f`]) {
      const res = await machineToken(resource);
      expect([res.status, res.body.error], resource).toEqual([400, 'invalid_target']);
    }
  });
});

describe('RFC 9126 at the OAuth server', () => {
  it('[rfc9126-005] a client registered to require PAR is refused a plain authorization request', async () => {
    const { body } = await register({
      redirect_uris: [url('/callback')],
      token_endpoint_auth_method: 'none',
      require_pushed_authorization_requests: true,
    });
    const plain = await fetch(
      `${url('/oauth2/authorize')}?${new URLSearchParams({ client_id: body.client_id, redirect_uri: url('/callback'), response_type: 'code', scope: 'mcp:read', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`,
      { redirect: 'manual' },
    );
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const pushed = await fetch(
      url('/oauth2/par'),
      form({
        client_id: body.client_id,
        redirect_uri: url('/callback'),
        response_type: 'code',
        scope: 'mcp:read',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }),
    );
    const { request_uri } = (await pushed.json()) as { request_uri: string };
    const landed = await authorizeAsBrowser(
      `${url('/oauth2/authorize')}?${new URLSearchParams({ client_id: body.client_id, request_uri })}`,
    );
    expect(new URL(landed.location!).searchParams.get('code')).toBeTruthy();
  });
});

describe('RFC 9728 at the MCP endpoint', () => {
  it('[rfc9728-006] the protected MCP endpoint answers 401 naming its metadata, which names its resource', async () => {
    const res = await fetch(url('/mcp/user'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(res.status).toBe(401);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(res.headers.get('www-authenticate') ?? '')?.[1];
    expect(metadataUrl).toBe(url('/.well-known/oauth-protected-resource/mcp/user'));
    const metadata = (await (await fetch(metadataUrl!)).json()) as { resource: string };
    expect(metadata.resource).toBe(url('/mcp/user'));
  });
});
