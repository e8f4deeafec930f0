import { generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { findTokens } from '../../../services/flows/token-finder.ts';

// Issue 31: a stored exchange keeps every token readable (header and payload) and none replayable.
const key = (await generateKeyPair('ES256')).privateKey;
const jwt = (payload: Record<string, unknown>, typ = 'JWT') =>
  new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ }).sign(key);
const disclosure = (salt: string, name: string, value: unknown) =>
  Buffer.from(JSON.stringify([salt, name, value])).toString('base64url');

describe('findTokens', () => {
  it('decodes response members by name, then request headers, body and nested JSON by their place', async () => {
    const access = await jwt({ sub: 'alice', scope: 'api:read' }, 'at+jwt');
    const proof = await jwt({ nonce: 'n1' }, 'openid4vci-proof+jwt');
    const dpop = await jwt({ htm: 'POST' }, 'dpop+jwt');
    const sdJwt = `${await jwt({ vct: 'degree', _sd: ['x'] }, 'dc+sd-jwt')}~${disclosure('salt', 'degree', 'MSc')}~${await jwt({ nonce: 'n2' }, 'kb+jwt')}`;
    const tokens = findTokens({
      request: {
        headers: { authorization: `DPoP ${access}`, dpop },
        body: { proofs: { jwt: [proof] }, vp_token: JSON.stringify({ degree: [sdJwt] }) },
      },
      response: { body: { access_token: access, credentials: [{ credential: sdJwt }], token_type: 'DPoP' } },
    });
    expect(tokens.map((t) => t.name)).toEqual([
      'access_token',
      'request.headers.authorization',
      'request.headers.dpop',
      'request.body.proofs.jwt.0',
      'request.body.vp_token.degree.0',
      'request.body.vp_token.degree.0.kb_jwt',
      'response.body.credentials.0.credential',
      'response.body.credentials.0.credential.kb_jwt',
    ]);
    expect(tokens.every((t) => t.signature === 'removed')).toBe(true);
    expect(tokens[0]).toMatchObject({ header: { typ: 'at+jwt' }, payload: { sub: 'alice' } });
    expect(tokens[4]).toMatchObject({ payload: { vct: 'degree' }, disclosures: [['degree', 'MSc']] });
    expect(tokens[5]).toMatchObject({ header: { typ: 'kb+jwt' }, payload: { nonce: 'n2' } });
    // Nothing kept is a token that could be sent again: no signature segment anywhere.
    expect(JSON.stringify(tokens)).not.toMatch(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./);
  });

  it('leaves opaque values, JWEs and malformed text alone', () => {
    expect(
      findTokens({
        request: { headers: { authorization: 'Bearer opaque-token' }, body: { a: 'x.y.z', b: '{not json' } },
        response: { body: { access_token: 'opaque', id_token: 'a.b.c.d.e' } },
      }),
    ).toEqual([]);
  });
});
