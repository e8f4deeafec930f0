import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAsBrowser } from '../../support/browser-like.ts';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 15: the authorization code flow of the issuer: PAR (required), authorize with client_id and
// request_uri only, login and consent, code with iss, token with PKCE and the PAR's DPoP key.
let server: TestServer;
let issuer: string;
beforeAll(async () => {
  server = await startMainServer();
  issuer = `${server.url}/oid4vci`;
});
afterAll(async () => {
  await server.close();
});

type Json = Record<string, any>;
const post = (path: string, init: RequestInit) => exchange(server.url, path, init);
const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};
const REDIRECT = 'https://wallet.example/cb';
const CLIENT = 'wallet-client-1';
const keyPair = async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  return { privateKey, jwk: await exportJWK(publicKey) };
};
const dpopProof = async (key: { privateKey: CryptoKey; jwk: JWK }, htm: string, htu: string, ath?: string) =>
  new SignJWT({ htm, htu, jti: crypto.randomUUID(), ...(ath ? { ath } : {}) })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .setIssuedAt(Math.floor(server.clock.now() / 1000))
    .sign(key.privateKey);

async function authorizationCode(params: Record<string, string>, headers: Record<string, string> = {}) {
  const { verifier, challenge } = pkce();
  const par = await post(
    '/oid4vci/par',
    form(
      {
        client_id: CLIENT,
        response_type: 'code',
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 's-1',
        ...params,
      },
      headers,
    ),
  );
  return { par, verifier };
}

describe('issuer authorization code flow', () => {
  it('offer with issuer_state -> PAR with authorization_details -> login/consent -> code with iss -> DPoP token with credential_identifiers -> credential by identifier', async () => {
    const offer = (
      await post(
        '/oid4vci/offers',
        json({ grant: 'authorization_code', credential_configuration_ids: ['UniversityDegreeCredential'] }),
      )
    ).body;
    expect(offer.issuer_state).toEqual(expect.any(String));
    const fetched = (await (await fetch(offer.credential_offer_uri)).json()) as Json;
    expect(fetched.grants.authorization_code.issuer_state).toBe(offer.issuer_state);
    const dpopKey = await keyPair();
    const { par, verifier } = await authorizationCode(
      {
        issuer_state: offer.issuer_state,
        authorization_details: JSON.stringify([
          { type: 'openid_credential', credential_configuration_id: 'UniversityDegreeCredential' },
        ]),
      },
      { dpop: await dpopProof(dpopKey, 'POST', `${issuer}/par`) },
    );
    expect(par.status).toBe(201);
    expect(par.body).toEqual({
      request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/),
      expires_in: 90,
    });
    const landed = await authorizeAsBrowser(
      `${issuer}/authorize?${new URLSearchParams({ client_id: CLIENT, request_uri: par.body.request_uri })}`,
    );
    expect(landed.pages[0].body).toContain(CLIENT);
    const back = new URL(landed.location!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('iss')).toBe(issuer);
    expect(back.searchParams.get('state')).toBe('s-1');
    const code = back.searchParams.get('code')!;
    // A token request with another DPoP key than the one bound at PAR is refused.
    const other = await keyPair();
    const wrongKey = await post(
      '/oid4vci/token',
      form(
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: CLIENT },
        { dpop: await dpopProof(other, 'POST', `${issuer}/token`) },
      ),
    );
    expect(wrongKey.body.error).toBe('invalid_dpop_proof');
    const token = await post(
      '/oid4vci/token',
      form(
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: CLIENT },
        { dpop: await dpopProof(dpopKey, 'POST', `${issuer}/token`) },
      ),
    );
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({
      token_type: 'DPoP',
      authorization_details: [
        {
          type: 'openid_credential',
          credential_configuration_id: 'UniversityDegreeCredential',
          credential_identifiers: ['UniversityDegreeCredential#1'],
        },
      ],
    });
    expect(token.body.refresh_token).toBeUndefined();
    // The code is single use.
    expect(
      (
        await post(
          '/oid4vci/token',
          form(
            {
              grant_type: 'authorization_code',
              code,
              redirect_uri: REDIRECT,
              code_verifier: verifier,
              client_id: CLIENT,
            },
            { dpop: await dpopProof(dpopKey, 'POST', `${issuer}/token`) },
          ),
        )
      ).body.error,
    ).toBe('invalid_grant');

    const at = token.body.access_token as string;
    const ath = createHash('sha256').update(at).digest('base64url');
    const holder = await keyPair();
    const c_nonce = (await post('/oid4vci/nonce', { method: 'POST' })).body.c_nonce;
    const proof = async (iss?: string) =>
      new SignJWT({ nonce: c_nonce, ...(iss ? { iss } : {}) })
        .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: holder.jwk })
        .setAudience(issuer)
        .setIssuedAt(Math.floor(server.clock.now() / 1000))
        .sign(holder.privateKey);
    const ask = async (body: Json) =>
      post(
        '/oid4vci/credential',
        json(body, {
          authorization: `DPoP ${at}`,
          dpop: await dpopProof(dpopKey, 'POST', `${issuer}/credential`, ath),
        }),
      );
    expect(
      (await ask({ credential_configuration_id: 'UniversityDegreeCredential', proofs: { jwt: [await proof(CLIENT)] } }))
        .body.error,
    ).toBe('invalid_credential_request');
    expect((await ask({ credential_identifier: 'Nope#1', proofs: { jwt: [await proof(CLIENT)] } })).body.error).toBe(
      'unknown_credential_identifier',
    );
    expect(
      (await ask({ credential_identifier: 'UniversityDegreeCredential#1', proofs: { jwt: [await proof()] } })).body
        .error,
    ).toBe('invalid_proof'); // iss must be the client
    const issued = await ask({
      credential_identifier: 'UniversityDegreeCredential#1',
      proofs: { jwt: [await proof(CLIENT)] },
    });
    expect(issued.status).toBe(200);
    const status = (await (await fetch(offer.status_uri)).json()) as Json;
    expect(status).toMatchObject({
      status: 'credential_issued',
      grant: 'authorization_code',
      client_id: CLIENT,
      token_type: 'DPoP',
      holder_jkts: [await calculateJwkThumbprint(holder.jwk)],
    });
  });

  it('wallet-initiated by scope, without an offer; a declined consent is access_denied with iss', async () => {
    const { par, verifier } = await authorizationCode({ scope: 'vc:mdl' });
    expect(par.status).toBe(201);
    const landed = await authorizeAsBrowser(
      `${issuer}/authorize?${new URLSearchParams({ client_id: CLIENT, request_uri: par.body.request_uri })}`,
    );
    const code = new URL(landed.location!).searchParams.get('code')!;
    const token = await post(
      '/oid4vci/token',
      form({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: CLIENT,
      }),
    );
    expect(token.body).toMatchObject({ token_type: 'Bearer', scope: 'vc:mdl' });
    expect(token.body.authorization_details).toBeUndefined();
    const declined = await authorizationCode({ scope: 'vc:university_degree' });
    const denied = await authorizeAsBrowser(
      `${issuer}/authorize?${new URLSearchParams({ client_id: CLIENT, request_uri: declined.par.body.request_uri })}`,
      { decision: 'deny' },
    );
    const url = new URL(denied.location!);
    expect([url.searchParams.get('error'), url.searchParams.get('iss'), url.searchParams.get('state')]).toEqual([
      'access_denied',
      issuer,
      's-1',
    ]);
  });

  it('negatives: PAR rules, authorize with more than client_id and request_uri, a used request_uri, PKCE, redirect_uri, client, expired code', async () => {
    const { challenge } = pkce();
    const base = {
      client_id: CLIENT,
      response_type: 'code',
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'vc:mdl',
    };
    const parWith = (overrides: Record<string, string | undefined>) =>
      post(
        '/oid4vci/par',
        form(
          Object.fromEntries(Object.entries({ ...base, ...overrides }).filter(([, v]) => v !== undefined)) as Record<
            string,
            string
          >,
        ),
      );
    expect((await parWith({ code_challenge_method: 'plain' })).body.error).toBe('invalid_request');
    expect((await parWith({ code_challenge: undefined })).body.error).toBe('invalid_request');
    expect((await parWith({ redirect_uri: 'http://wallet.example/cb' })).body.error).toBe('invalid_request');
    expect((await parWith({ response_type: 'token' })).body.error).toBe('unsupported_response_type');
    expect((await parWith({ scope: 'vc:unknown' })).body.error).toBe('invalid_scope');
    expect(
      (
        await parWith({
          scope: undefined,
          authorization_details: '[{"type":"openid_credential","credential_configuration_id":"Nope"}]',
        })
      ).body.error,
    ).toBe('invalid_authorization_details');
    expect((await parWith({ issuer_state: 'unknown.issuer-state-value-xx' })).body.error).toBe('invalid_request');
    expect((await parWith({ client_id: undefined })).status).toBe(401);
    expect((await parWith({ request_uri: 'urn:x' })).body.error).toBe('invalid_request');
    expect((await parWith({ redirect_uri: 'http://127.0.0.1:9/cb' })).status).toBe(201);

    const { par, verifier } = await authorizationCode({ scope: 'vc:mdl' });
    const authorize = (query: Record<string, string>) =>
      fetch(`${issuer}/authorize?${new URLSearchParams(query)}`, { redirect: 'manual' });
    expect((await authorize({ client_id: CLIENT, request_uri: par.body.request_uri, scope: 'vc:mdl' })).status).toBe(
      400,
    );
    expect((await authorize({ client_id: 'other', request_uri: par.body.request_uri })).status).toBe(400);
    const landed = await authorizeAsBrowser(
      `${issuer}/authorize?${new URLSearchParams({ client_id: CLIENT, request_uri: par.body.request_uri })}`,
    );
    expect((await authorize({ client_id: CLIENT, request_uri: par.body.request_uri })).status).toBe(400); // used
    const code = new URL(landed.location!).searchParams.get('code')!;
    const redeem = (overrides: Record<string, string>) =>
      post(
        '/oid4vci/token',
        form({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
          client_id: CLIENT,
          ...overrides,
        }),
      );
    expect((await redeem({ code_verifier: pkce().verifier })).body.error).toBe('invalid_grant');
    expect((await redeem({ redirect_uri: 'https://wallet.example/other' })).body.error).toBe('invalid_grant');
    expect((await redeem({ client_id: 'other' })).body.error).toBe('invalid_grant');
    server.clock.advance(61_000);
    expect((await redeem({})).body.error).toBe('invalid_grant');
    // A lapsed request_uri (90 s).
    const late = await authorizationCode({ scope: 'vc:mdl' });
    server.clock.advance(91_000);
    expect((await authorize({ client_id: CLIENT, request_uri: late.par.body.request_uri })).status).toBe(400);
  });
});
