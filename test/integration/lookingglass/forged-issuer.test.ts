import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 13 item 9: a token that names one of our issuers verifies with that issuer's keys only.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

type Decoded = { signature: { verified: boolean; key_source: string; detail: string }; warnings: string[] };
const decode = async (token: string, jwks?: unknown) =>
  (await (
    await fetch(`${server.url}/api/lookingglass/decode`, json({ token, ...(jwks ? { jwks } : {}) }))
  ).json()) as Decoded;

async function selfSigned(iss: string) {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  const token = await new SignJWT({ sub: 'agent-forged', scope: 'agent:read agent:write' })
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT', jwk })
    .setIssuer(iss)
    .setAudience(iss)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
  return { token, jwk };
}

describe('the looking glass and forged tokens (issue 13 item 9)', () => {
  it("a token claiming this origin's issuer, signed by a key in its own header, is not verified and is called forged", async () => {
    for (const iss of [`${server.url}/agentauth`, server.url, `${server.url}/oauth2`]) {
      const { token, jwk } = await selfSigned(iss);
      const decoded = await decode(token);
      expect(decoded.signature.verified).toBe(false);
      expect(decoded.signature.detail).toMatch(/forged/);
      expect(decoded.warnings.some((w) => /claims to come from this origin/.test(w))).toBe(true);
      // A JWKS supplied by the caller cannot vouch for our issuers either.
      expect((await decode(token, { keys: [jwk] })).signature.verified).toBe(false);
    }
  });

  it('[issue 30 item 26] a self-signed token is self_signed_valid, never verified, with a warning', async () => {
    const { token } = await selfSigned('https://issuer.example');
    const decoded = await decode(token);
    expect(decoded.signature).toMatchObject({ verified: false, self_signed_valid: true, key_source: 'embedded jwk' });
    expect(decoded.warnings.some((w) => /self-signed/.test(w))).toBe(true);
  });

  it('a real assertion of the agentauth issuer still verifies with its keys', async () => {
    const reg = (await (await fetch(`${server.url}/agentauth/identity`, json({ type: 'anonymous' }))).json()) as {
      identity_assertion: string;
    };
    const decoded = await decode(reg.identity_assertion);
    expect(decoded.signature).toMatchObject({ verified: true, key_source: 'portico agentauth keys' });
    expect(decoded.warnings.join(' ')).not.toMatch(/self-signed|claims to come/);
  });
});
