import 'reflect-metadata';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateDcql } from '../../../services/credentials/dcql/index.ts';
import { Tag, dataItem, encodeCbor, issueMdoc, verifyIssuerSigned } from '../../../services/credentials/mdoc/index.ts';
import { decodeSdJwt } from '../../../services/credentials/sd-jwt/decode.ts';
import { createDisclosure } from '../../../services/credentials/sd-jwt/disclosure.ts';
import { recordFrom } from '../../../services/untrusted/keys.ts';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { mdocFixture, type MdocFixture } from '../../unit/credentials/mdoc-helpers.ts';

// Issue 13 items 1 and 5: no decoder writes attacker-chosen names onto Object.prototype or Object,
// and nesting or big integers never reach a recursive step or the serializer.
let server: TestServer;
let fx: MdocFixture;
beforeAll(async () => {
  server = await startMainServer();
  fx = await mdocFixture(Math.floor(server.clock.now() / 1000));
});
afterAll(async () => {
  await server.close();
});

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const b64bytes = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
/** An unsigned JWT: the looking glass decodes it and reports the signature as unverified. */
const jwt = (payload: unknown, header: Record<string, unknown> = { alg: 'ES256', typ: 'JWT' }) =>
  `${b64(header)}.${b64(payload)}.AAAA`;
const post = async (path: string, body: unknown) => {
  const res = await fetch(`${server.url}${path}`, json(body));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** The names that reach a prototype, names Object.prototype already has, and arbitrary ones. */
const names = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'valueOf',
    'hasOwnProperty',
    '__defineGetter__',
    'isAdmin',
  ),
  fc.string({ minLength: 1, maxLength: 12 }),
);

const prototypeShape = () => ({
  objectPrototype: Object.getOwnPropertyNames(Object.prototype).sort().join(','),
  object: Object.getOwnPropertyNames(Object).sort().join(','),
  functionPrototype: Object.getOwnPropertyNames(Function.prototype).sort().join(','),
  toString: Object.prototype.toString,
  protoOfEmpty: Object.getPrototypeOf({}),
});
const untouched = prototypeShape();
const expectPrototypesUntouched = () => {
  expect(prototypeShape()).toEqual(untouched);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect((Object as unknown as Record<string, unknown>).polluted).toBeUndefined();
};

/** A signed mdoc whose only element is `namespace`/`element` (issued through the codec with prototype-free maps). */
function mdocWith(namespace: string, element: string, value: unknown = 'x') {
  const now = Math.floor(server.clock.now() / 1000);
  return issueMdoc({
    docType: 'org.iso.18013.5.1.mDL',
    namespaces: recordFrom([[namespace, recordFrom([[element, value]])]]),
    deviceKey: fx.device.publicJwk,
    signer: { privateKey: fx.signer.privateKey, x5chain: [fx.signer.certificate] },
    signed: now - 60,
    validFrom: now - 60,
    validUntil: now + 86_400,
  });
}

/** An unsigned SD-JWT whose payload has a member `member` and one disclosure named `disclosed`. */
function sdJwtWith(member: string, disclosed: string) {
  const disclosure = createDisclosure(disclosed, 'x');
  const payload = JSON.parse(
    `{${JSON.stringify(member)}: 1, "_sd": [${JSON.stringify(disclosure.digest)}], "vct": "urn:x"}`,
  );
  return `${jwt(payload, { alg: 'ES256', typ: 'dc+sd-jwt' })}~${disclosure.encoded}~`;
}

describe('untrusted names never become keys of ordinary objects (issue 13 item 1)', () => {
  it('an mdoc with namespace __proto__ or constructor is refused by the looking glass and pollutes nothing', async () => {
    for (const namespace of ['__proto__', 'constructor', 'prototype']) {
      const { encoded } = mdocWith(namespace, 'polluted', 'yes');
      const res = await post('/api/lookingglass/decode/credential', { credential: b64bytes(encoded) });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_credential');
      expectPrototypesUntouched();
    }
    const { encoded } = mdocWith('org.iso.18013.5.1', '__proto__', 'yes');
    expect((await post('/api/lookingglass/decode/credential', { credential: b64bytes(encoded) })).status).toBe(400);
    expectPrototypesUntouched();
    // The process still works: health, a registration, a valid decode.
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await post('/agentauth/identity', { type: 'anonymous' })).status).toBe(201);
    const fine = await post('/api/lookingglass/decode/credential', {
      credential: b64bytes(mdocWith('org.iso.18013.5.1', 'family_name', 'Anderson').encoded),
    });
    expect(fine.status).toBe(200);
    expect(fine.body.claims).toEqual({ 'org.iso.18013.5.1': { family_name: 'Anderson' } });
  });

  it('the codec refuses prototype names in verified mdocs and SD-JWT disclosures with a named check', async () => {
    const now = Math.floor(server.clock.now() / 1000);
    const verified = await verifyIssuerSigned(mdocWith('__proto__', 'polluted').encoded, {
      trustedRoots: [fx.iaca.certificate],
      now,
    });
    expect(verified).toMatchObject({ valid: false, check: 'format' });
    expect(() => decodeSdJwt(sdJwtWith('vct2', '__proto__'))).toThrow(/must not be named __proto__/);
    expect(() => decodeSdJwt(sdJwtWith('constructor', 'given_name'))).toThrow(/must not be named constructor/);
    expectPrototypesUntouched();
  });

  it('property: any name fed to every decoder leaves Object.prototype untouched and the server answering', async () => {
    const now = Math.floor(server.clock.now() / 1000);
    await fc.assert(
      fc.asyncProperty(names, names, async (a, b) => {
        const answers = [
          await post('/api/lookingglass/decode/credential', { credential: b64bytes(mdocWith(a, b).encoded) }),
          await post('/api/lookingglass/decode/credential', { credential: sdJwtWith(a, b) }),
          await post('/api/lookingglass/decode', {
            token: jwt(JSON.parse(`{${JSON.stringify(a)}: {${JSON.stringify(b)}: 1}}`)),
          }),
          await post('/api/lookingglass/decode/credential', {
            credential: JSON.parse(
              `{"@context": ["https://www.w3.org/ns/credentials/v2"], "type": ["VerifiableCredential"], "credentialSubject": {${JSON.stringify(a)}: {${JSON.stringify(b)}: 1}}}`,
            ),
          }),
        ];
        for (const answer of answers) expect(answer.status).toBeLessThan(500);
        await verifyIssuerSigned(mdocWith(a, b).encoded, { trustedRoots: [fx.iaca.certificate], now });
        try {
          decodeSdJwt(sdJwtWith(a, b));
        } catch {
          // refusal is fine; only the prototypes matter here
        }
        const id = /^[A-Za-z0-9_-]+$/.test(a) ? a : 'q';
        const result = evaluateDcql({ credentials: [{ id, format: 'dc+sd-jwt', claims: [{ path: [b] }] }] }, [
          {
            id: 'c1',
            format: 'dc+sd-jwt',
            vct: 'urn:x',
            claims: JSON.parse(`{${JSON.stringify(b)}: 1}`),
            cryptographicHolderBinding: true,
          },
        ]);
        expect(result.satisfied).toBe(true);
        expect(Object.keys(result.queries)).toEqual([id]);
        expectPrototypesUntouched();
      }),
      { numRuns: 60 },
    );
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  }, 60_000);
});

describe('nesting and big integers are refused, never a 500 (issue 13 item 5)', () => {
  // Built as text: serialising such values recursively is exactly what overflows a stack.
  const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const postText = async (path: string, text: string) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: text,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const b64text = (text: string) => Buffer.from(text).toString('base64url');

  it('a JWT payload nested 5,000 deep: 400 invalid_token from the API, the page and the MCP tool', async () => {
    // 4,000 levels still fit the API's 32 KiB token field; the page and the MCP tool get 5,000.
    const api = await post('/api/lookingglass/decode', {
      token: `${b64({ alg: 'ES256' })}.${b64text(nestedText(4000))}.AAAA`,
    });
    const token = `${b64({ alg: 'ES256' })}.${b64text(nestedText(5000))}.AAAA`;
    expect(api.status).toBe(400);
    expect(api.body.error).toBe('invalid_token');
    const page = await fetch(`${server.url}/looking-glass?token=${encodeURIComponent(token)}`);
    expect(page.status).toBeLessThan(500);
    expect(await page.text()).not.toMatch(/Maximum call stack/);
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'decode_jwt', arguments: { token } },
      }),
    });
    const text = await mcp.text();
    expect(mcp.status).toBeLessThan(500);
    expect(text).not.toMatch(/Maximum call stack/);
  });

  it('a credentialSubject nested 20,000 deep and an SD-JWT disclosure nested deep: 400 invalid_credential', async () => {
    const vc = `{"@context": ["https://www.w3.org/ns/credentials/v2"], "type": ["VerifiableCredential"], "credentialSubject": ${nestedText(20_000)}}`;
    const asObject = await postText('/api/lookingglass/decode/credential', `{"credential": ${vc}}`);
    expect(asObject.status).toBe(400);
    expect(asObject.body.error).toBe('invalid_credential');
    const asText = await post('/api/lookingglass/decode/credential', { credential: vc });
    expect(asText.status).toBe(400);
    const encoded = b64text(`["salt", "deep", ${nestedText(2000)}]`);
    const digest = createHash('sha256').update(encoded).digest('base64url');
    const sdJwt = `${jwt({ _sd: [digest], vct: 'urn:x' }, { alg: 'ES256', typ: 'dc+sd-jwt' })}~${encoded}~`;
    const deepDisclosure = await post('/api/lookingglass/decode/credential', { credential: sdJwt });
    expect(deepDisclosure.status).toBe(400);
    expect(deepDisclosure.body.error).toBe('invalid_credential');
  });

  it('mdoc values that decode to BigInt come back as decimal strings; date tags over them are malformed (issue 30 item 25)', async () => {
    const big = 2n ** 64n - 1n;
    for (const value of [big, [big]]) {
      const res = await post('/api/lookingglass/decode/credential', {
        credential: b64bytes(mdocWith('org.iso.18013.5.1', 'weird', value).encoded),
      });
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body.claims)).toContain(big.toString());
    }
    for (const value of [new Tag(big, 1004), new Tag(big, 0), [new Tag(big, 1004)]]) {
      const res = await post('/api/lookingglass/decode/credential', {
        credential: b64bytes(mdocWith('org.iso.18013.5.1', 'weird', value).encoded),
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_credential');
    }
  });

  it('CBOR nested deeper than the decoder allows is refused', async () => {
    let value: unknown = 1;
    for (let i = 0; i < 100; i++) value = [value];
    const res = await post('/api/lookingglass/decode/credential', {
      credential: b64bytes(encodeCbor(new Map([['nameSpaces', new Map([['ns', [dataItem(value)]]])]]))),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_credential');
  });
});
