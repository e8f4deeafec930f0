import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import fc from 'fast-check';
import { webcrypto } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/main-server.ts';
import { TestTrustDomain, pem } from '../../support/spiffe-ca.ts';
import { TRUST_DOMAIN, startSpiffeHarness, type SpiffeHarness } from '../../support/spiffe-harness.ts';

let h: SpiffeHarness;
let foreign: TestTrustDomain;
beforeAll(async () => {
  h = await startSpiffeHarness();
  foreign = await TestTrustDomain.create('elsewhere.test');
});
afterAll(async () => {
  await h?.close();
});

const post = async (path: string, body: unknown) => {
  const res = await fetch(h.url + path, json(body));
  return { status: res.status, body: (await res.json()) as any };
};
const failed = (verdict: any) => verdict.checks.filter((c: any) => !c.ok).map((c: any) => c.check);
const now = () => Math.floor(Date.now() / 1000);

describe('JWT-SVID validation negatives', () => {
  it('wrong audience: only the audience check fails', async () => {
    const token = await h.domain.signJwt({
      sub: h.agent.spiffeId,
      aud: 'spiffe://portico.test/backend',
      exp: now() + 300,
    });
    const { status, body } = await post('/spiffe/validate/jwt', { token, audience: 'spiffe://portico.test/other' });
    expect(status).toBe(200);
    expect(body.valid).toBe(false);
    expect(failed(body)).toEqual(['audience']);
    expect(body.reasons[0]).toContain('does not contain spiffe://portico.test/other');
  });

  it('wrong audience on a token the agent issued', async () => {
    const token = ((await (await fetch(`${h.url}/spiffe/svid/jwt?audience=first`)).json()) as any).svid;
    expect(failed((await post('/spiffe/validate/jwt', { token, audience: 'second' })).body)).toEqual(['audience']);
  });

  it('expired JWT-SVID: signed with the bundle key, but exp has passed', async () => {
    const token = await h.domain.signJwt({ sub: h.agent.spiffeId, aud: 'backend', iat: now() - 600, exp: now() - 60 });
    const { body } = await post('/spiffe/validate/jwt', { token, audience: 'backend' });
    expect(body.valid).toBe(false);
    expect(failed(body)).toEqual(['expiry']);
    expect(body.reasons[0]).toMatch(/expired \d+ s ago/);
  });

  it('a fresh token expires when the service clock passes exp', async () => {
    const token = ((await (await fetch(`${h.url}/spiffe/svid/jwt?audience=later`)).json()) as any).svid;
    expect((await post('/spiffe/validate/jwt', { token, audience: 'later' })).body.valid).toBe(true);
    h.clock.advance(h.agent.jwtTtl * 1000 + 1000);
    try {
      expect(failed((await post('/spiffe/validate/jwt', { token, audience: 'later' })).body)).toEqual(['expiry']);
    } finally {
      h.clock.set(Date.now());
    }
  });

  it('foreign trust domain: no bundle, so neither trust domain nor signature pass', async () => {
    const token = await foreign.signJwt({ sub: 'spiffe://elsewhere.test/ns/x', aud: 'backend', exp: now() + 300 });
    const { body } = await post('/spiffe/validate/jwt', { token, audience: 'backend' });
    expect(body.valid).toBe(false);
    expect(failed(body)).toEqual(['trust_domain', 'signature']);
    expect(body.trust_domain).toBe('elsewhere.test');
    expect(body.reasons[0]).toContain('foreign trust domain');
  });

  it('a token claiming our trust domain but signed by another key fails the signature', async () => {
    const token = await foreign.signJwt({ sub: h.agent.spiffeId, aud: 'backend', exp: now() + 300 });
    const { body } = await post('/spiffe/validate/jwt', { token, audience: 'backend' });
    expect(failed(body)).toEqual(['signature']);
  });

  it('a tampered token fails the signature', async () => {
    const token = await h.domain.signJwt({ sub: h.agent.spiffeId, aud: 'backend', exp: now() + 300 });
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = [
      header,
      Buffer.from(JSON.stringify({ ...claims, sub: 'spiffe://portico.test/admin' })).toString('base64url'),
      signature,
    ].join('.');
    const { body } = await post('/spiffe/validate/jwt', { token: forged, audience: 'backend' });
    expect(failed(body)).toEqual(['signature']);
    expect(body.reasons[0]).toContain('does not verify');
  });

  it('sub that is not a SPIFFE ID, alg none and junk are verdicts, not errors', async () => {
    const notSpiffe = await h.domain.signJwt({ sub: 'https://portico.test/user', aud: 'backend', exp: now() + 300 });
    expect(failed((await post('/spiffe/validate/jwt', { token: notSpiffe, audience: 'backend' })).body)).toEqual([
      'spiffe_id',
      'trust_domain',
      'signature',
    ]);
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: h.agent.spiffeId, aud: 'backend', exp: now() + 300 })).toString('base64url')}.`;
    expect(failed((await post('/spiffe/validate/jwt', { token: none, audience: 'backend' })).body)).toEqual([
      'header',
      'signature',
    ]);
    expect(failed((await post('/spiffe/validate/jwt', { token: 'junk', audience: 'backend' })).body)).toEqual([
      'format',
    ]);
  });

  it('bad input is a 400 with the JSON error shape', async () => {
    for (const body of [
      {},
      { token: 'a.b.c' },
      { audience: 'x' },
      { token: 1, audience: 'x' },
      { token: 'a', audience: 'x', extra: true },
      [],
      'text',
    ]) {
      const res = await post('/spiffe/validate/jwt', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect(typeof res.body.error_description).toBe('string');
    }
  });
});

describe('X.509-SVID validation negatives', () => {
  it('tampered certificate: the signature no longer verifies', async () => {
    const leaf = Buffer.from(h.agent.svid.chain[0]);
    const at = leaf.indexOf(Buffer.from('SPIRE'));
    expect(at).toBeGreaterThan(0);
    leaf[at] = 'X'.charCodeAt(0);
    const { status, body } = await post('/spiffe/validate/x509', { pem: pem([leaf, h.agent.svid.chain[1]]) });
    expect(status).toBe(200);
    expect(body.valid).toBe(false);
    expect(failed(body)).toEqual(['chain']);
    expect(body.reasons[0]).toMatch(/does not verify|path validation failed/);
  });

  it('non-SPIFFE certificate (DNS SAN only) from our own CA', async () => {
    const plain = await h.domain.issue('spiffe://unused', { uris: [], dns: ['www.portico.test'] });
    const { body } = await post('/spiffe/validate/x509', { pem: pem(plain.chain) });
    expect(body.valid).toBe(false);
    expect(failed(body)).toEqual(['uri_san', 'spiffe_id', 'trust_domain', 'chain']);
    expect(body.reasons[0]).toContain('no URI SAN');
    expect(body.certificate.san_dns).toEqual(['www.portico.test']);
  });

  it('a URI SAN that is not a SPIFFE ID, and two URI SANs', async () => {
    const https = await h.domain.issue('x', { uris: ['https://portico.test/workload'] });
    expect(failed((await post('/spiffe/validate/x509', { pem: pem(https.chain) })).body)).toEqual([
      'spiffe_id',
      'trust_domain',
      'chain',
    ]);
    const two = await h.domain.issue('x', { uris: ['spiffe://portico.test/a', 'spiffe://portico.test/b'] });
    expect(failed((await post('/spiffe/validate/x509', { pem: pem(two.chain) })).body)).toEqual([
      'uri_san',
      'spiffe_id',
      'trust_domain',
      'chain',
    ]);
  });

  it('foreign trust domain: a valid SVID of another trust domain does not chain to our bundle', async () => {
    const svid = await foreign.issue('spiffe://elsewhere.test/ns/x');
    const { body } = await post('/spiffe/validate/x509', { pem: pem(svid.chain) });
    expect(body.valid).toBe(false);
    expect(body.spiffe_id).toBe('spiffe://elsewhere.test/ns/x');
    expect(failed(body)).toEqual(['trust_domain', 'chain']);
  });

  it('a certificate claiming our trust domain but issued by another CA fails the chain', async () => {
    const svid = await foreign.issue(`spiffe://${TRUST_DOMAIN}/ns/impostor`);
    const { body } = await post('/spiffe/validate/x509', { pem: pem(svid.chain) });
    expect(failed(body)).toEqual(['chain']);
  });

  it('a certificate signed with an SVID key (not a CA) is refused', async () => {
    const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const ours = h.agent.svid;
    const signingKey = await webcrypto.subtle.importKey('pkcs8', ours.key, EC, false, ['sign']);
    const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
    const forged = await x509.X509CertificateGenerator.create({
      subject: 'O=SPIRE',
      issuer: ours.leaf.subject,
      publicKey: keys.publicKey,
      signingKey,
      signingAlgorithm: EC,
      notBefore: new Date(Date.now() - 60_000),
      extensions: [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.SubjectAlternativeNameExtension([{ type: 'url', value: `spiffe://${TRUST_DOMAIN}/admin` }]),
      ],
    });
    const { body } = await post('/spiffe/validate/x509', { pem: pem([new Uint8Array(forged.rawData), ...ours.chain]) });
    expect(failed(body)).toEqual(['chain']);
    expect(body.reasons[0]).toContain('not a CA');
  });

  it('expired certificate, and a CA certificate presented as a leaf', async () => {
    const old = await h.domain.issue(`spiffe://${TRUST_DOMAIN}/old`, {
      notBefore: new Date(Date.now() - 7200_000),
      notAfter: new Date(Date.now() - 3600_000),
    });
    const expired = (await post('/spiffe/validate/x509', { pem: pem(old.chain) })).body;
    expect(failed(expired)).toContain('validity');
    expect(expired.reasons.join(' ')).toContain('expired at');
    const caAsLeaf = (
      await post('/spiffe/validate/x509', { pem: pem([new Uint8Array(h.domain.intermediate.rawData)]) })
    ).body;
    expect(failed(caAsLeaf)).toContain('leaf');
    expect(caAsLeaf.reasons.join(' ')).toContain('CA:true');
  });

  it('bad input: no certificate, both fields, neither field, not PEM -> 400; unparseable DER -> verdict', async () => {
    for (const body of [
      {},
      { pem: 'no certificate here' },
      { pem: 'x', chain: ['y'] },
      { chain: [] },
      { chain: ['%%%'] },
      { pem: 5 },
      null,
    ]) {
      const res = await post('/spiffe/validate/x509', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    }
    const garbage = (
      await post('/spiffe/validate/x509', { chain: [Buffer.from('not a certificate').toString('base64')] })
    ).body;
    expect(garbage.valid).toBe(false);
    expect(failed(garbage)).toEqual(['parse']);
  });
});

describe('fuzzed bodies in full mode', () => {
  const realCert = () => Buffer.from(h.agent.svid.chain[0]);
  const pemOf = (bytes: Uint8Array) =>
    `-----BEGIN CERTIFICATE-----\n${Buffer.from(bytes).toString('base64')}\n-----END CERTIFICATE-----`;

  it('never a 5xx, always the JSON error shape on errors', async () => {
    const text = fc.string({ maxLength: 60 });
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record(
        {
          token: fc.oneof(text, fc.jsonValue({ maxDepth: 1 })),
          audience: fc.oneof(text, fc.jsonValue({ maxDepth: 1 })),
        },
        { requiredKeys: [] },
      ),
      fc.record({
        token: fc.tuple(text, text, text).map((p) => p.map((s) => Buffer.from(s).toString('base64url')).join('.')),
        audience: text,
      }),
      fc.record({ pem: fc.oneof(text, fc.uint8Array({ maxLength: 300 }).map(pemOf)) }),
      fc.record({
        chain: fc.array(
          fc.oneof(
            text,
            fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('base64')),
          ),
          { maxLength: 4 },
        ),
      }),
      // Real certificates cut short or with a flipped byte.
      fc.tuple(fc.nat(), fc.nat(255)).map(([at, value]) => {
        const bytes = realCert();
        const i = at % bytes.length;
        return {
          chain: [
            bytes.subarray(0, Math.max(1, i)).toString('base64'),
            (() => {
              const c = Buffer.from(bytes);
              c[i] = value;
              return c.toString('base64');
            })(),
          ],
        };
      }),
      fc.record({ audience: fc.oneof(text, fc.integer()) }, { requiredKeys: [] }),
    );
    const paths = [
      '/spiffe/validate/jwt',
      '/spiffe/validate/x509',
      '/spiffe/demo/mtls/call',
      '/spiffe/demo/jwt-auth/call',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), body, fc.boolean(), async (path, b, raw) => {
        const res = await fetch(h.url + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: raw && typeof b === 'string' ? b : JSON.stringify(b),
        });
        const text = await res.text();
        expect(res.status, `${path} ${JSON.stringify(b).slice(0, 200)} -> ${text.slice(0, 200)}`).toBeLessThan(500);
        const parsed = JSON.parse(text);
        if (res.status >= 400) expect(typeof parsed.error).toBe('string');
        expect(text).not.toMatch(/\n\s+at .+\.(ts|js):\d+/);
      }),
      { numRuns: 250 },
    );
  }, 120_000);

  it('fuzzed queries of GET endpoints never give a 5xx', async () => {
    const gets = [
      '/spiffe/status',
      '/spiffe/svid/x509',
      '/spiffe/svid/x509/chain',
      '/spiffe/svid/jwt',
      '/spiffe/svid/info',
      '/spiffe/workload',
      '/spiffe/trust-bundle',
      '/spiffe/.well-known/spiffe-bundle',
      '/spiffe/demo/rotation',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...gets),
        fc.array(fc.tuple(fc.constantFrom('audience', 'x'), fc.string({ maxLength: 30 })), { maxLength: 4 }),
        async (path, query) => {
          const qs = new URLSearchParams(query).toString();
          const res = await fetch(`${h.url}${path}${qs ? `?${qs}` : ''}`);
          expect(res.status, `${path}?${qs}`).toBeLessThan(500);
          await res.arrayBuffer();
        },
      ),
      { numRuns: 120 },
    );
  });
});
