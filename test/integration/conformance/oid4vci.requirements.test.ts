import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { form, json } from '../../support/main-server.ts';
import { useRequirementKit } from '../../support/requirement-kit.ts';

// Requirements of OpenID4VCI 1.0; each title starts with the registry id it proves.
const ctx = useRequirementKit();
const PRE = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const issuer = () => `${ctx.server.url}/oid4vci`;

async function tokenFor(body: Record<string, unknown> = {}) {
  const offer = (
    await ctx.k.post('/oid4vci/offers', json({ credential_configuration_ids: ['UniversityDegreeCredential'], ...body }))
  ).body;
  const token = (
    await ctx.k.post(
      '/oid4vci/token',
      form({
        grant_type: PRE,
        'pre-authorized_code': offer.pre_authorized_code,
        ...(offer.tx_code_value ? { tx_code: offer.tx_code_value } : {}),
      }),
    )
  ).body;
  return { offer, token };
}
const nonce = async () => (await ctx.k.post('/oid4vci/nonce', { method: 'POST' })).body.c_nonce as string;
async function proof(claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  return new SignJWT({ aud: issuer(), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: await exportJWK(publicKey), ...header })
    .setIssuedAt(ctx.k.now())
    .sign(privateKey);
}
const credential = (token: string, body: Record<string, unknown>) =>
  ctx.k.post('/oid4vci/credential', json(body, { authorization: `Bearer ${token}` }));

describe('OpenID4VCI 1.0', () => {
  it('[oid4vci-001] the issuer metadata is served at the well-known URI built from the issuer identifier, and names the issuer', async () => {
    const res = await ctx.k.get('/.well-known/openid-credential-issuer/oid4vci');
    expect(res.status).toBe(200);
    expect(res.body.credential_issuer).toBe(issuer());
  });
  it('[oid4vci-002] a credential offer names the credential issuer and configurations it offers', async () => {
    const { offer } = await tokenFor({ by_value: true, credential_configuration_ids: ['MobileDrivingLicenceMsoMdoc'] });
    expect(offer.credential_offer).toMatchObject({
      credential_issuer: issuer(),
      credential_configuration_ids: ['MobileDrivingLicenceMsoMdoc'],
    });
  });
  it('[oid4vci-003] a pre-authorized code offered with a tx_code is not redeemed without it', async () => {
    const offer = (await ctx.k.post('/oid4vci/offers', json({ tx_code: true }))).body;
    const res = await ctx.k.post(
      '/oid4vci/token',
      form({ grant_type: PRE, 'pre-authorized_code': offer.pre_authorized_code }),
    );
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
  });
  it('[oid4vci-004] a pre-authorized code is redeemed once', async () => {
    const offer = (await ctx.k.post('/oid4vci/offers', json({}))).body;
    const redeem = () =>
      ctx.k.post('/oid4vci/token', form({ grant_type: PRE, 'pre-authorized_code': offer.pre_authorized_code }));
    expect((await redeem()).status).toBe(200);
    expect((await redeem()).body.error).toBe('invalid_grant');
  });
  it('[oid4vci-005] the nonce endpoint answers a c_nonce that is not cached', async () => {
    const res = await ctx.k.post('/oid4vci/nonce', { method: 'POST' });
    expect(res.body.c_nonce).toEqual(expect.any(String));
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
  it('[oid4vci-006] a key proof whose typ is not openid4vci-proof+jwt is refused with invalid_proof', async () => {
    const { token } = await tokenFor();
    const res = await credential(token.access_token, {
      credential_configuration_id: 'UniversityDegreeCredential',
      proofs: { jwt: [await proof({ nonce: await nonce() }, { typ: 'JWT' })] },
    });
    expect(res.body.error).toBe('invalid_proof');
  });
  it('[oid4vci-007] a key proof whose aud is not the credential issuer is refused', async () => {
    const { token } = await tokenFor();
    const jwt = await proof({ nonce: await nonce(), aud: 'https://elsewhere.example' });
    const res = await credential(token.access_token, {
      credential_configuration_id: 'UniversityDegreeCredential',
      proofs: { jwt: [jwt] },
    });
    expect(res.body.error).toBe('invalid_proof');
  });
  it('[oid4vci-008] a c_nonce is accepted once; a used one is invalid_nonce', async () => {
    const { token } = await tokenFor();
    const n = await nonce();
    expect(
      (
        await credential(token.access_token, {
          credential_configuration_id: 'UniversityDegreeCredential',
          proofs: { jwt: [await proof({ nonce: n })] },
        })
      ).status,
    ).toBe(200);
    const again = await credential(token.access_token, {
      credential_configuration_id: 'UniversityDegreeCredential',
      proofs: { jwt: [await proof({ nonce: n })] },
    });
    expect(again.body.error).toBe('invalid_nonce');
  });
  it('[oid4vci-009] a credential request names exactly one of credential_configuration_id and credential_identifier', async () => {
    const { token } = await tokenFor();
    const res = await credential(token.access_token, { proofs: { jwt: [await proof({ nonce: await nonce() })] } });
    expect(res.body.error).toBe('invalid_credential_request');
  });
  it('[oid4vci-010] a batch is limited by batch_size and each credential is bound to its own proof key', async () => {
    const { token } = await tokenFor();
    const n = await nonce();
    const three = await credential(token.access_token, {
      credential_configuration_id: 'UniversityDegreeCredential',
      proofs: { jwt: [await proof({ nonce: n }), await proof({ nonce: n }), await proof({ nonce: n })] },
    });
    expect(three.body.error).toBe('invalid_credential_request');
    const two = await credential(token.access_token, {
      credential_configuration_id: 'UniversityDegreeCredential',
      proofs: { jwt: [await proof({ nonce: n }), await proof({ nonce: n })] },
    });
    expect(two.body.credentials).toHaveLength(2);
  });
  it('[oid4vci-011] a deferred credential request answers transaction_id and interval, and the deferred endpoint the credential', async () => {
    const { token } = await tokenFor({ deferred: true });
    const accepted = await credential(token.access_token, {
      credential_configuration_id: 'UniversityDegreeCredential',
      proofs: { jwt: [await proof({ nonce: await nonce() })] },
    });
    expect([accepted.status, accepted.body.interval]).toEqual([202, 3]);
    ctx.server.clock.advance(3_000);
    const ready = await ctx.k.post(
      '/oid4vci/deferred_credential',
      json({ transaction_id: accepted.body.transaction_id }, { authorization: `Bearer ${token.access_token}` }),
    );
    expect(ready.body.credentials).toHaveLength(1);
  });
  it('[oid4vci-012] the notification endpoint answers 204 to credential_accepted and invalid_notification_id to an unknown id', async () => {
    const { token } = await tokenFor();
    const issued = await credential(token.access_token, {
      credential_configuration_id: 'UniversityDegreeCredential',
      proofs: { jwt: [await proof({ nonce: await nonce() })] },
    });
    const notify = (id: string) =>
      ctx.k.post(
        '/oid4vci/notification',
        json({ notification_id: id, event: 'credential_accepted' }, { authorization: `Bearer ${token.access_token}` }),
      );
    expect((await notify(issued.body.notification_id)).status).toBe(204);
    expect((await notify('unknown')).body.error).toBe('invalid_notification_id');
  });
});

describe('RFC 9126 (pushed authorization requests) at the issuer', () => {
  const challenge = () => createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const par = (extra: Record<string, string> = {}) =>
    ctx.k.post(
      '/oid4vci/par',
      form({
        client_id: 'w',
        response_type: 'code',
        redirect_uri: 'https://wallet.example/cb',
        code_challenge: challenge(),
        code_challenge_method: 'S256',
        scope: 'vc:mdl',
        ...extra,
      }),
    );
  it('[rfc9126-001] a pushed request is answered 201 with request_uri and expires_in', async () => {
    const res = await par();
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/),
      expires_in: 90,
    });
  });
  it('[rfc9126-002] the request_uri is used once at the authorization endpoint', async () => {
    const { body } = await par();
    const go = () =>
      fetch(
        `${ctx.server.url}/oid4vci/authorize?${new URLSearchParams({ client_id: 'w', request_uri: body.request_uri })}`,
        { redirect: 'manual' },
      );
    expect((await go()).status).toBe(303);
    expect((await go()).status).toBe(400);
  });
  it('[rfc9126-003] a request_uri parameter in the pushed request is refused', async () => {
    expect((await par({ request_uri: 'urn:ietf:params:oauth:request_uri:x' })).body.error).toBe('invalid_request');
  });
  it('[rfc9126-004] the authorization server metadata says PAR is required and where its endpoint is', async () => {
    const meta = (await ctx.k.get('/.well-known/oauth-authorization-server/oid4vci')).body;
    expect(meta).toMatchObject({
      pushed_authorization_request_endpoint: `${issuer()}/par`,
      require_pushed_authorization_requests: true,
    });
  });
});
