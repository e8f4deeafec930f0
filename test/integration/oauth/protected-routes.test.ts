import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 37: every protected resource answers a missing or invalid token with 401 and its challenge, and
// a token without the needed scope with 403 insufficient_scope and the challenge (RFC 6750 §3, RFC 9449 §7.1).
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const PROTECTED: Array<{ method: 'GET' | 'POST'; path: string; body?: Record<string, unknown>; form?: boolean }> = [
  { method: 'GET', path: '/oidc/userinfo' },
  { method: 'POST', path: '/oidc/userinfo', form: true },
  { method: 'GET', path: '/oauth2/resource' },
  { method: 'GET', path: '/agentauth/me' },
  {
    method: 'POST',
    path: '/oid4vci/credential',
    body: { credential_configuration_id: 'UniversityDegreeCredential', proofs: { jwt: ['x'] } },
  },
  { method: 'POST', path: '/oid4vci/deferred_credential', body: { transaction_id: 'x' } },
  { method: 'POST', path: '/oid4vci/notification', body: { notification_id: 'x', event: 'credential_accepted' } },
  // Issue 48: the SCIM service provider (its errors carry SCIM's members besides these).
  { method: 'GET', path: '/scim/v2/Users' },
  { method: 'GET', path: '/scim/v2/Agents/x' },
  { method: 'POST', path: '/scim/v2/Groups', body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'] } },
  { method: 'POST', path: '/scim/v2/.search', body: {} },
  { method: 'POST', path: '/scim/v2/Bulk', body: {} },
];

const call = (route: (typeof PROTECTED)[number], authorization?: string) =>
  fetch(`${server.url}${route.path}`, {
    method: route.method,
    headers: {
      ...(authorization ? { authorization } : {}),
      ...(route.method === 'POST'
        ? { 'content-type': route.form ? 'application/x-www-form-urlencoded' : 'application/json' }
        : {}),
    },
    ...(route.method === 'POST' ? { body: route.form ? '' : JSON.stringify(route.body ?? {}) } : {}),
  });

describe('every protected route', () => {
  for (const route of PROTECTED) {
    it(`[issue 37] ${route.method} ${route.path}: no token, a malformed one and a foreign one are 401 with a Bearer challenge`, async () => {
      for (const authorization of [
        undefined,
        'Bearer',
        'Bearer not-a-token',
        'bearer not.a.token',
        'Basic dXNlcjpwYXNz',
      ]) {
        const res = await call(route, authorization);
        expect(res.status, `${authorization}`).toBe(401);
        expect(res.headers.get('www-authenticate'), `${authorization}`).toMatch(/^Bearer (.*, )?error="invalid_token"/);
        expect(((await res.json()) as { error: string }).error).toBe('invalid_token');
      }
    });
  }

  it('[issue 37] the credential endpoint: a token for another configuration is 403 insufficient_scope with the challenge naming the scope', async () => {
    const offer = (
      await exchange(
        server.url,
        '/oid4vci/offers',
        json({ credential_configuration_ids: ['UniversityDegreeCredential'] }),
      )
    ).body;
    const token = (
      await exchange(
        server.url,
        '/oid4vci/token',
        form({
          grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
          'pre-authorized_code': offer.pre_authorized_code,
        }),
      )
    ).body.access_token as string;
    const res = await exchange(
      server.url,
      '/oid4vci/credential',
      json(
        { credential_configuration_id: 'MobileDrivingLicenceMsoMdoc', proofs: { jwt: ['x'] } },
        { authorization: `Bearer ${token}` },
      ),
    );
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('insufficient_scope');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope", .*scope="vc:mdl"/);
  });
});
