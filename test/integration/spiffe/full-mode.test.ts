import 'reflect-metadata';
import * as grpc from '@grpc/grpc-js';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workloadApiClientConstructor } from '../../../adapters/workload-api/definition.ts';
import { SPIFFE_ENDPOINTS } from '../../../services/workload/settings.ts';
import { json } from '../../support/main-server.ts';
import { TRUST_DOMAIN, startSpiffeHarness, type SpiffeHarness } from '../../support/spiffe-harness.ts';

let h: SpiffeHarness;
beforeAll(async () => {
  h = await startSpiffeHarness();
});
afterAll(async () => {
  await h?.close();
});

const get = async (path: string) => {
  const res = await fetch(h.url + path);
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, type, body: (type.includes('json') ? await res.json() : await res.text()) as any };
};
const post = async (path: string, body?: unknown) => {
  const res = await fetch(h.url + path, body === undefined ? { method: 'POST' } : json(body));
  return { status: res.status, body: (await res.json()) as any };
};

describe('workload identity service in full mode, over a real Workload API socket', () => {
  it('connects with the security header on every call, and /health reports full mode', async () => {
    const health = (await get('/health')).body;
    expect(health).toMatchObject({ status: 'ok', mode: 'full', trust_domain: TRUST_DOMAIN, full_mode_enabled: true });
    expect(h.agent.calls).toEqual(expect.arrayContaining(['FetchX509SVID', 'FetchJWTBundles']));
    expect(h.agent.refused).toEqual([]);
  });

  it('the test agent refuses a call without the workload.spiffe.io header', async () => {
    const Client = workloadApiClientConstructor();
    const client = new Client(h.agent.address, grpc.credentials.createInsecure()) as grpc.Client & Record<string, any>;
    const error = await new Promise<grpc.ServiceError>((resolve) =>
      client.FetchJWTSVID({ audience: ['x'] }, (e: grpc.ServiceError) => resolve(e)),
    );
    client.close();
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(h.agent.refused).toContain('FetchJWTSVID');
  });

  it('GET /spiffe/status', async () => {
    const { status, body } = await get('/spiffe/status');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      mode: 'full',
      trust_domain: TRUST_DOMAIN,
      spiffe_id: h.agent.spiffeId,
      identities: 1,
      bundle: { x509_authorities: 1, jwt_authorities: 1, trust_domains: [TRUST_DOMAIN] },
    });
    expect(body.workload_api.socket_path).toBe(h.agent.address);
    expect(body.svid.expires_in_seconds).toBeGreaterThan(0);
    expect(body.endpoints).toHaveLength(SPIFFE_ENDPOINTS.length);
  });

  it('GET /spiffe/svid/x509: SPIFFE ID and certificate fields, no private key', async () => {
    const { status, body } = await get('/spiffe/svid/x509');
    expect(status).toBe(200);
    const leaf = new X509Certificate(Buffer.from(h.agent.svid.chain[0]));
    expect(body).toMatchObject({
      spiffe_id: h.agent.spiffeId,
      hint: 'internal',
      serial: leaf.serialNumber.toLowerCase(),
      public_key_algorithm: 'EC P-256',
      signature_algorithm: 'ecdsa-with-SHA256',
      san_uris: [h.agent.spiffeId],
      is_ca: false,
      key_usage: expect.arrayContaining(['digitalSignature']),
      extended_key_usage: ['serverAuth', 'clientAuth'],
    });
    expect(body.issuer).toContain('test intermediate');
    expect(body.subject).toContain('O=SPIRE');
    expect(new Date(body.not_after).getTime()).toBeGreaterThan(new Date(body.not_before).getTime());
    expect(body.chain).toHaveLength(2);
    expect(JSON.stringify(body)).not.toMatch(/PRIVATE KEY|"d":/);
  });

  it('GET /spiffe/svid/x509/chain: PEM chain, leaf first, as application/x-pem-file', async () => {
    const { status, type, body } = await get('/spiffe/svid/x509/chain');
    expect(status).toBe(200);
    expect(type).toContain('application/x-pem-file');
    const blocks = (body as string).match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!;
    expect(blocks).toHaveLength(2);
    expect(new X509Certificate(blocks[0]).subjectAltName).toBe(`URI:${h.agent.spiffeId}`);
    expect(new X509Certificate(blocks[0]).checkIssued(new X509Certificate(blocks[1]))).toBe(true);
  });

  it('GET /spiffe/svid/jwt?audience=: a JWT-SVID with its decoded header and claims', async () => {
    const { status, body } = await get('/spiffe/svid/jwt?audience=spiffe%3A%2F%2Fportico.test%2Fbackend');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      spiffe_id: h.agent.spiffeId,
      audience: ['spiffe://portico.test/backend'],
      header: { alg: 'ES256', kid: h.domain.jwtKid },
      claims: { sub: h.agent.spiffeId, aud: ['spiffe://portico.test/backend'] },
    });
    expect(body.svid.split('.')).toHaveLength(3);
    expect(body.expires_at).toMatch(/^\d{4}-/);
    const two = (await get('/spiffe/svid/jwt?audience=a&audience=b')).body;
    expect(two.claims.aud).toEqual(['a', 'b']);
    expect((await get('/spiffe/svid/jwt')).body.audience).toEqual([h.url]);
  });

  it('GET /spiffe/svid/info: lifetime, remaining time, expected rotation', async () => {
    const { status, body } = await get('/spiffe/svid/info');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      spiffe_id: h.agent.spiffeId,
      trust_domain: TRUST_DOMAIN,
      path: '/ns/portico/sa/workload',
      type: 'x509-svid',
      chain_length: 2,
      public_key: { kty: 'EC', crv: 'P-256' },
    });
    expect(body.lifetime_seconds).toBeGreaterThan(3600);
    expect(body.remaining_seconds).toBeGreaterThan(0);
    expect(new Date(body.rotation_expected_at).getTime()).toBeLessThan(new Date(body.not_after).getTime());
  });

  it('GET /spiffe/workload', async () => {
    const { status, body } = await get('/spiffe/workload');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      spiffe_id: h.agent.spiffeId,
      trust_domain: TRUST_DOMAIN,
      identities: [{ spiffe_id: h.agent.spiffeId, hint: 'internal', default: true }],
      federated_trust_domains: [],
      workload_api: { security_header: 'workload.spiffe.io: true' },
    });
  });

  it('GET /spiffe/.well-known/spiffe-bundle: the SPIFFE bundle as a JWK set', async () => {
    const { status, body } = await get('/spiffe/.well-known/spiffe-bundle');
    expect(status).toBe(200);
    const x509Keys = body.keys.filter((k: any) => k.use === 'x509-svid');
    const jwtKeys = body.keys.filter((k: any) => k.use === 'jwt-svid');
    expect(x509Keys).toHaveLength(1);
    expect(x509Keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256' });
    expect(x509Keys[0].x5c).toHaveLength(1);
    expect(Buffer.from(x509Keys[0].x5c[0], 'base64').equals(Buffer.from(h.domain.bundle()[0]))).toBe(true);
    expect(jwtKeys).toEqual([expect.objectContaining({ kid: h.domain.jwtKid, kty: 'EC', crv: 'P-256' })]);
    expect(body.keys.some((k: any) => 'd' in k)).toBe(false);
    expect(body.spiffe_sequence).toBeGreaterThanOrEqual(1);
    expect(body.spiffe_refresh_hint).toBeGreaterThan(0);
    expect((await get('/spiffe/.well-known/spiffe-bundle')).body.spiffe_sequence).toBe(body.spiffe_sequence);
  });

  it('GET /spiffe/trust-bundle', async () => {
    const { status, body } = await get('/spiffe/trust-bundle');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      trust_domain: TRUST_DOMAIN,
      x509_authorities: [{ is_ca: true, san_uris: [`spiffe://${TRUST_DOMAIN}`] }],
      jwt_authorities: [{ kid: h.domain.jwtKid, kty: 'EC' }],
      federated: [],
      bundle_endpoint: '/spiffe/.well-known/spiffe-bundle',
    });
  });

  it('POST /spiffe/validate/jwt accepts a JWT-SVID from the agent', async () => {
    const token = (await get('/spiffe/svid/jwt?audience=backend')).body.svid;
    const { status, body } = await post('/spiffe/validate/jwt', { token, audience: 'backend' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ valid: true, spiffe_id: h.agent.spiffeId, trust_domain: TRUST_DOMAIN, reasons: [] });
    expect(body.checks.map((c: any) => c.check)).toEqual([
      'format',
      'header',
      'spiffe_id',
      'trust_domain',
      'signature',
      'audience',
      'expiry',
    ]);
  });

  it('POST /spiffe/validate/x509 accepts our own SVID, as PEM and as a base64 DER chain', async () => {
    const pem = (await get('/spiffe/svid/x509/chain')).body as string;
    const asPem = await post('/spiffe/validate/x509', { pem });
    expect(asPem.status).toBe(200);
    expect(asPem.body).toMatchObject({ valid: true, spiffe_id: h.agent.spiffeId, chain_length: 2, reasons: [] });
    expect(asPem.body.checks.map((c: any) => c.check)).toEqual([
      'parse',
      'uri_san',
      'spiffe_id',
      'leaf',
      'validity',
      'trust_domain',
      'chain',
    ]);
    const asDer = await post('/spiffe/validate/x509', {
      chain: h.agent.svid.chain.map((d) => Buffer.from(d).toString('base64')),
    });
    expect(asDer.body).toMatchObject({ valid: true });
  });

  it('POST /spiffe/demo/mtls/call: a real mutual-TLS handshake with SPIRE_SERVER_ADDRESS, peer verified', async () => {
    const { status, body } = await post('/spiffe/demo/mtls/call');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      demo: 'mtls',
      outcome: 'success',
      our_spiffe_id: h.agent.spiffeId,
      peer_spiffe_id: `spiffe://${TRUST_DOMAIN}/spire/server`,
      target: `127.0.0.1:${h.peer.port}`,
    });
    expect(body.steps.map((s: any) => [s.name, s.ok])).toEqual([
      ['Fetch our X.509-SVID', true],
      ['Resolve the target', true],
      ['Mutual TLS handshake', true],
      ['Verify the peer chain', true],
      ['Authorize the peer SPIFFE ID', true],
    ]);
    expect(body.steps[2].data.protocol).toMatch(/^TLSv1\.[23]$/);
    // The peer saw our SVID as the client certificate.
    expect(h.peer.clients).toContain(h.agent.spiffeId);
    // No caller-chosen target.
    const refused = await post('/spiffe/demo/mtls/call', { target: 'evil.example:443' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'invalid_request' });
    expect(refused.body.error_description).toContain('SPIRE_SERVER_ADDRESS');
  });

  it('POST /spiffe/demo/jwt-auth/call: fetch a JWT-SVID and validate it by a ValidateJWTSVID round trip', async () => {
    const before = h.agent.calls.filter((c) => c === 'ValidateJWTSVID').length;
    const { status, body } = await post('/spiffe/demo/jwt-auth/call', { audience: 'spiffe://portico.test/backend' });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      demo: 'jwt-auth',
      outcome: 'success',
      audience: 'spiffe://portico.test/backend',
      spiffe_id: h.agent.spiffeId,
    });
    expect(body.steps.map((s: any) => [s.name, s.ok])).toEqual([
      ['Fetch a JWT-SVID', true],
      ['Validate through the Workload API', true],
      ['Validate locally against the JWT bundle', true],
      ['Refused for another audience', true],
    ]);
    expect(body.steps[1].data.claims).toMatchObject({ sub: h.agent.spiffeId });
    expect(h.agent.calls.filter((c) => c === 'ValidateJWTSVID').length).toBe(before + 2);
    expect((await post('/spiffe/demo/jwt-auth/call')).body.audience).toBe(`spiffe://${TRUST_DOMAIN}/spire/server`);
  });

  it('GET /spiffe/demo/rotation lists the first SVID observed', async () => {
    const { status, body } = await get('/spiffe/demo/rotation');
    expect(status).toBe(200);
    expect(body).toMatchObject({ spiffe_id: h.agent.spiffeId, rotations_observed: 0 });
    expect(body.events[0]).toMatchObject({
      type: 'svid.observed',
      spiffe_id: h.agent.spiffeId,
      serial: body.current.serial,
    });
  });

  it('every endpoint of the spec answers in full mode (no 503, no 5xx)', async () => {
    for (const e of SPIFFE_ENDPOINTS) {
      const res = await fetch(
        h.url + e.path,
        e.method === 'POST'
          ? json(
              e.path.includes('validate/jwt')
                ? { token: 'a.b.c', audience: 'x' }
                : e.path.includes('validate/x509')
                  ? { pem: 'x' }
                  : {},
            )
          : {},
      );
      expect(res.status, e.path).toBeLessThan(500);
    }
  });
});
