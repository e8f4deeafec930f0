import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 14: the flow page offers each flow's run options as documented form controls; the run gets what was chosen.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const runWithForm = async (path: string, fields: Record<string, string>) => {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  const id = res.headers.get('location')!.split('/').pop()!;
  return (await (await fetch(`${server.url}/api/runs/${id}`)).json()) as {
    status: string;
    exchanges: Array<{ step: string; request: { body?: Record<string, unknown> } }>;
  };
};

describe('run options on the flow page', () => {
  it('the page shows each option as a documented control; the markdown twin lists them with values and defaults', async () => {
    const html = await (
      await fetch(`${server.url}/protocol/oauth2/flow/client-credentials`, { headers: { accept: 'text/html' } })
    ).text();
    expect(html).toContain('<select id="opt-client_auth" name="client_auth" aria-describedby="opt-client_auth-hint">');
    expect(html).toContain('<option value="private_key_jwt">private_key_jwt</option>');
    expect(html).toContain('id="opt-alg-hint"');
    const twin = await (
      await fetch(`${server.url}/protocol/oauth2/flow/client-credentials`, { headers: { accept: 'text/markdown' } })
    ).text();
    expect(twin).toContain('`client_auth`');
    expect(twin).toContain(
      'One of `client_secret_basic`, `client_secret_post`, `private_key_jwt`; default `client_secret_basic`.',
    );
    const plain = await (
      await fetch(`${server.url}/protocol/oauth2/flow/refresh-token`, { headers: { accept: 'text/html' } })
    ).text();
    expect(plain).not.toContain('<select');
  });

  it('without JavaScript the form post runs the flow with the chosen options; undeclared names and values are dropped', async () => {
    const chosen = await runWithForm('/protocol/oauth2/flow/client-credentials/run', {
      client_auth: 'private_key_jwt',
      alg: 'EdDSA',
      evil: 'x',
    });
    expect(chosen.status).toBe('succeeded');
    expect(chosen.exchanges.map((x) => x.step)).toContain('Token request (private_key_jwt)');
    const fallback = await runWithForm('/protocol/oauth2/flow/client-credentials/run', { client_auth: 'none-such' });
    expect(fallback.exchanges.map((x) => x.step)).toContain('Token request (client_secret_basic)');
    const dpop = await runWithForm('/protocol/oauth2/flow/client-credentials/run', {
      client_auth: 'client_secret_post',
      token_mode: 'dpop',
    });
    expect(dpop.status).toBe('succeeded');
    expect(dpop.exchanges.map((x) => x.step)).toEqual(
      expect.arrayContaining(['Token request (client_secret_post)', 'Resource request with a proof']),
    );
    const email = await runWithForm('/protocol/agentauth/flow/register-and-claim/run', { email: 'chosen@example.com' });
    expect(JSON.stringify(email.exchanges)).toContain('chosen@example.com');
  });

  it('the API contract names the flows each option applies to', async () => {
    const spec = (await (await fetch(`${server.url}/openapi.json`)).json()) as any;
    const body = spec.paths['/api/protocols/{id}/demo/{flow}'].post.requestBody.content['application/json'].schema;
    expect(body.properties.client_auth.description).toContain('Applies to: oauth2/client-credentials');
    expect(body.properties.credential_configuration_id.description).toContain('oid4vci/pre-authorized-code');
  });
});
