import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 49: the catalog's SAML flows run for real over HTTP against this origin's IdP and SP.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(() => server.close());

const run = async (flow: string, options: Record<string, unknown> = {}) => {
  const res = await fetch(`${server.url}/api/protocols/saml/demo/${flow}`, json(options));
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body).slice(0, 500)).toBe(201);
  expect(body.status, body.error).toBe('succeeded');
  return body;
};

describe('SAML flows of the catalog', () => {
  it('[saml-profiles-010] web-sso over both bindings, idp-initiated and single-logout succeed, every exchange below 500', async () => {
    for (const [flow, options] of [
      ['web-sso', {}],
      ['web-sso', { binding: 'post' }],
      ['idp-initiated', {}],
      ['single-logout', {}],
    ] as const) {
      const body = await run(flow, options);
      expect(
        body.exchanges.every((x: any) => x.response.status < 500),
        flow,
      ).toBe(true);
    }
  });

  it('[saml-bindings-003] the run timeline shows each SAML message decoded, signature values removed', async () => {
    const body = await run('web-sso');
    const messages = (body.exchanges as any[]).flatMap((x) => x.saml ?? []);
    expect(messages.map((m: any) => `${m.field} ${m.binding} ${m.where}`)).toEqual(
      expect.arrayContaining([
        'SAMLRequest HTTP-Redirect response.location',
        'SAMLRequest HTTP-Redirect request.url',
        'SAMLResponse HTTP-POST response.form',
        'SAMLResponse HTTP-POST request.form',
      ]),
    );
    const response = messages.find((m: any) => m.field === 'SAMLResponse')!;
    expect(response.xml).toContain('<samlp:Response');
    expect(response.xml).toContain('SignatureValue>(removed)<');
    const page = await (await fetch(`${server.url}/runs/${body.run_id}`)).text();
    expect(page).toContain('SAMLResponse (HTTP-POST, response.form; decoded, signature values removed)');
    expect(page).toContain('&lt;samlp:AuthnRequest');
  });

  it('single-logout ends the SP login and the IdP session in the log', async () => {
    await run('single-logout');
    const logins = await server.main.ctx.log.streamIds('saml-login:');
    const types = await Promise.all(
      logins.map(async (id) => (await server.main.ctx.log.readStream(id)).map((e) => e.type)),
    );
    expect(types).toContainEqual(['login.requested', 'login.consumed', 'login.ended']);
    const sessions = await server.main.ctx.log.streamIds('sign-in-session:');
    const ended = await Promise.all(
      sessions.map(async (id) => (await server.main.ctx.log.readStream(id)).map((e) => e.type)),
    );
    expect(ended).toContainEqual(
      expect.arrayContaining([
        'session.started',
        'session.sp_joined',
        'logout.started',
        'logout.sp_answered',
        'session.ended',
      ]),
    );
  });

  it('the protocol page lists the SAML flows, each flow page runs it from a form', async () => {
    const page = await (await fetch(`${server.url}/protocol/saml`)).text();
    for (const flow of ['web-sso', 'idp-initiated', 'single-logout', 'attack-lab'])
      expect(page).toContain(`/protocol/saml/flow/${flow}`);
    const flowPage = await (await fetch(`${server.url}/protocol/saml/flow/attack-lab`)).text();
    expect(flowPage).toContain('action="/protocol/saml/flow/attack-lab/run"');
    const ran = await fetch(`${server.url}/protocol/saml/flow/web-sso/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'binding=post',
      redirect: 'manual',
    });
    expect(ran.status).toBe(303);
    const run = await (await fetch(new URL(ran.headers.get('location')!, server.url))).text();
    expect(run).toContain('SAMLResponse (HTTP-POST');
  });
});
