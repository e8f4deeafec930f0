import Database from 'better-sqlite3';
import { Tag } from 'cbor-x';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentSigner, createIacaRoot, issueMdoc } from '../../../services/credentials/mdoc/index.ts';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 30 items 25-27: each test failed before its fix.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const decodeCredential = (credential: string) =>
  exchange(server.url, '/api/lookingglass/decode/credential', json({ credential }));

async function mdocWith(value: unknown): Promise<string> {
  const ms = server.clock.now();
  const iaca = await createIacaRoot({ notBefore: new Date(ms - 86_400_000), notAfter: new Date(ms + 86_400_000) });
  const ds = await createDocumentSigner({
    iaca,
    notBefore: new Date(ms - 86_400_000),
    notAfter: new Date(ms + 86_400_000),
  });
  const { publicKey } = await generateKeyPair('ES256', { extractable: true });
  const nowS = Math.floor(ms / 1000);
  const issued = issueMdoc({
    docType: 'org.iso.18013.5.1.mDL',
    namespaces: { 'org.iso.18013.5.1': { family_name: 'X', birth_date: value } },
    deviceKey: await exportJWK(publicKey),
    signer: { privateKey: ds.privateKey, x5chain: [ds.certificate] },
    signed: nowS,
    validFrom: nowS,
    validUntil: nowS + 3600,
  });
  return Buffer.from(issued.encoded).toString('base64url');
}

describe('mdoc date tags (item 25)', () => {
  const bignum = new Tag(Buffer.from('0102030405060708090a', 'hex'), 2);
  for (const [name, value] of [
    ['tag 0 over a bignum', new Tag(bignum, 0)],
    ['tag 1004 over a bignum', new Tag(bignum, 1004)],
    ['tag 1 over a bignum', new Tag(bignum, 1)],
    ['tag 1004 over a number', new Tag(20240101, 1004)],
  ] as const) {
    it(`[item 25] ${name} is 400, never a value without its tag`, async () => {
      const res = await decodeCredential(await mdocWith(value));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_credential');
      expect(res.body.error_description).toMatch(/tag (0|1|1004)/);
    });
  }

  it('[item 25] well-formed date tags still decode to their text', async () => {
    const res = await decodeCredential(await mdocWith(new Tag('2001-02-03', 1004)));
    expect(res.status).toBe(200);
    expect(res.body.claims['org.iso.18013.5.1'].birth_date).toBe('2001-02-03');
  });
});

describe('verified means a key we trust (item 26)', () => {
  it('[item 26] a token that verifies only with its embedded jwk is self_signed_valid, not verified', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'ES256', jwk: await exportJWK(publicKey) })
      .setIssuer('https://issuer.example')
      .setExpirationTime('1h')
      .sign(privateKey);
    const decoded = (await exchange(server.url, '/api/lookingglass/decode', json({ token }))).body;
    expect(decoded.signature).toMatchObject({ verified: false, self_signed_valid: true, key_source: 'embedded jwk' });
    // A tampered self-signed token is neither.
    const [h, p] = token.split('.');
    const tampered = `${h}.${p}.${Buffer.from('nope').toString('base64url')}`;
    const bad = (await exchange(server.url, '/api/lookingglass/decode', json({ token: tampered }))).body;
    expect(bad.signature.verified).toBe(false);
    expect(bad.signature.self_signed_valid).toBeUndefined();
  });
});

describe('verified means a key we trust: x5c (item 26)', () => {
  it('[item 26] a token whose x5c leads to no CA of this origin is self_signed_valid, not verified', async () => {
    const ms = server.clock.now();
    const iaca = await createIacaRoot({ notBefore: new Date(ms - 86_400_000), notAfter: new Date(ms + 86_400_000) });
    const ds = await createDocumentSigner({
      iaca,
      notBefore: new Date(ms - 86_400_000),
      notAfter: new Date(ms + 86_400_000),
    });
    const x5c = [Buffer.from(ds.certificate).toString('base64'), Buffer.from(iaca.certificate).toString('base64')];
    const token = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'ES256', x5c })
      .setIssuer('https://issuer.example')
      .setExpirationTime('1h')
      .sign(ds.privateKey);
    const decoded = (await exchange(server.url, '/api/lookingglass/decode', json({ token }))).body;
    expect(decoded.signature).toMatchObject({
      verified: false,
      self_signed_valid: true,
      key_source: 'x5c leaf certificate',
    });
  });

  it("[item 26] our issuer's signed metadata, whose x5c chains to our IACA, is verified", async () => {
    const signed = await (
      await fetch(`${server.url}/.well-known/openid-credential-issuer/oid4vci`, {
        headers: { accept: 'application/jwt' },
      })
    ).text();
    const decoded = (await exchange(server.url, '/api/lookingglass/decode', json({ token: signed }))).body;
    expect(decoded.signature).toMatchObject({ verified: true, key_source: 'x5c chain' });
  });
});

describe('saved runs keep no offer secret whole (item 27)', () => {
  it('[item 27] the pre-authorized tx_code flow stores neither pre_authorized_code nor tx_code_value nor the offer by value', async () => {
    const run = (await exchange(server.url, '/api/protocols/oid4vci/demo/pre-authorized-tx-code', json({}))).body;
    expect(run.status).toBe('succeeded');
    const offer = run.exchanges
      .map((x: any) => x.response.body)
      .find((b: any) => b && typeof b === 'object' && 'offer_id' in b);
    expect(offer).toBeDefined();
    // What the caller got back is its own run; what the log keeps must not hold these whole.
    const stored = JSON.stringify((await exchange(server.url, `/api/runs/${run.run_id}`, { method: 'GET' })).body);
    const rows = new Database(join(server.dataDir, 'main.db'), { readonly: true })
      .prepare('SELECT data FROM events WHERE stream_id = ?')
      .all(`run:${run.run_id}`) as Array<{ data: string }>;
    const raw = rows.map((r) => r.data).join('\n');
    const code = offer.pre_authorized_code as string;
    const secretOfCode = code.includes('[redacted') ? undefined : code.split('.')[1];
    expect(raw).toContain('pre_authorized_code');
    for (const text of [stored, raw]) {
      expect(text).toMatch(/"pre_authorized_code":"\[redacted hmac:/);
      expect(text).toMatch(/"tx_code_value":"\[redacted hmac:/);
      if (secretOfCode) expect(text).not.toContain(secretOfCode);
    }
  });
});
