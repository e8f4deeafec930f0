import 'reflect-metadata';
import { clientAuthenticationAnonymous, clientAuthenticationNone, type Jwk, type JwtSigner } from '@openid4vc/oauth2';
import { Openid4vciClient, type Openid4vciClientOptions } from '@openid4vc/openid4vci';
import { setGlobalConfig } from '@openid4vc/utils';
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Verifier } from '@auth0/mdl';
import {
  createDeviceResponse,
  dataItem,
  decodeCbor,
  encodeCbor,
  oid4vpSessionTranscript,
  verifyIssuerSigned,
} from '../../../services/credentials/mdoc/index.ts';
import { verifySdJwtVc } from '../../../services/credentials/sd-jwt/verify.ts';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 15: @openid4vc/openid4vci 0.4.6, unmodified, as the wallet against our issuer on loopback.
setGlobalConfig({ allowInsecureUrls: true });

let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

/** Holder keys by thumbprint: the peer names the key to sign with by its public JWK. */
const privateKeys = new Map<string, CryptoKey>();
async function newKey(): Promise<Jwk> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = (await exportJWK(publicKey)) as Jwk;
  privateKeys.set(await calculateJwkThumbprint(jwk as JWK), privateKey);
  return jwk;
}

const callbacks: Openid4vciClientOptions['callbacks'] = {
  hash: (data, alg) => new Uint8Array(createHash(alg.replace('-', '').toLowerCase()).update(data).digest()),
  generateRandom: (n) => new Uint8Array(randomBytes(n)),
  clientAuthentication: clientAuthenticationAnonymous(),
  signJwt: async (signer: JwtSigner, { header, payload }) => {
    if (signer.method !== 'jwk') throw new Error(`test signer does not do ${signer.method}`);
    const key = privateKeys.get(await calculateJwkThumbprint(signer.publicJwk as JWK))!;
    const jwt = await new SignJWT(payload as Record<string, unknown>)
      .setProtectedHeader({ ...header, alg: signer.alg } as never)
      .sign(key);
    return { jwt, signerJwk: signer.publicJwk };
  },
};
const client = new Openid4vciClient({ callbacks });
/** A public client with a client_id (RFC 6749 §4.1.3): the authorization code grant needs it at the token endpoint. */
const publicClient = new Openid4vciClient({
  callbacks: { ...callbacks, clientAuthentication: clientAuthenticationNone({ clientId: 'peer-wallet' }) },
});

async function issueWithPeer(
  body: Record<string, unknown>,
  configurationId: string,
  options: { dpop?: boolean; proofs?: number } = {},
) {
  const created = (await (await fetch(`${server.url}/oid4vci/offers`, json(body))).json()) as {
    offer_url: string;
    tx_code_value?: string;
    status_uri: string;
  };
  const credentialOffer = await client.resolveCredentialOffer(created.offer_url);
  const issuerMetadata = await client.resolveIssuerMetadata(credentialOffer.credential_issuer);
  const dpopSigner = options.dpop ? { method: 'jwk' as const, alg: 'ES256', publicJwk: await newKey() } : undefined;
  const { accessTokenResponse, dpop } = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
    credentialOffer,
    issuerMetadata,
    txCode: created.tx_code_value,
    ...(dpopSigner ? { dpop: { signer: dpopSigner } } : {}),
  });
  const { c_nonce } = await client.requestNonce({ issuerMetadata });
  const holders = await Promise.all(Array.from({ length: options.proofs ?? 1 }, () => newKey()));
  const proofs = await Promise.all(
    holders.map(
      async (publicJwk) =>
        (
          await client.createCredentialRequestJwtProof({
            issuerMetadata,
            credentialConfigurationId: configurationId,
            signer: { method: 'jwk', alg: 'ES256', publicJwk },
            nonce: c_nonce,
          })
        ).jwt,
    ),
  );
  const response = await client.retrieveCredentials({
    issuerMetadata,
    accessToken: accessTokenResponse.access_token,
    credentialConfigurationId: configurationId,
    proofs: { jwt: proofs },
    ...(dpop ? { dpop } : {}),
  });
  return { created, issuerMetadata, accessTokenResponse, response, holders, dpop };
}

describe('@openid4vc/openid4vci as the wallet', () => {
  it('authorization code: the peer pushes the request (PAR required), the person consents, the code and PKCE verifier give a DPoP token, then a credential', async () => {
    const created = (await (
      await fetch(
        `${server.url}/oid4vci/offers`,
        json({ grant: 'authorization_code', credential_configuration_ids: ['UniversityDegreeCredential'] }),
      )
    ).json()) as { offer_url: string; status_uri: string };
    const credentialOffer = await client.resolveCredentialOffer(created.offer_url);
    const issuerMetadata = await client.resolveIssuerMetadata(credentialOffer.credential_issuer);
    const redirectUri = 'https://wallet.example/cb';
    const signer = { method: 'jwk' as const, alg: 'ES256', publicJwk: await newKey() };
    const { authorizationRequestUrl, pkce, dpop } = await client.createAuthorizationRequestUrlFromOffer({
      credentialOffer,
      issuerMetadata,
      clientId: 'peer-wallet',
      redirectUri,
      dpop: { signer },
    });
    const url = new URL(authorizationRequestUrl);
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const { authorizeAsBrowser } = await import('../../support/browser-like.ts');
    const landed = new URL((await authorizeAsBrowser(authorizationRequestUrl)).location!);
    expect(landed.searchParams.get('iss')).toBe(`${server.url}/oid4vci`);
    const { accessTokenResponse, dpop: tokenDpop } = await publicClient.retrieveAuthorizationCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      authorizationCode: landed.searchParams.get('code')!,
      pkceCodeVerifier: pkce?.codeVerifier,
      redirectUri,
      dpop: dpop ?? { signer },
    });
    expect(accessTokenResponse.token_type).toBe('DPoP');
    const { c_nonce } = await client.requestNonce({ issuerMetadata });
    const holder = await newKey();
    const proof = (
      await client.createCredentialRequestJwtProof({
        issuerMetadata,
        credentialConfigurationId: 'UniversityDegreeCredential',
        signer: { method: 'jwk', alg: 'ES256', publicJwk: holder },
        nonce: c_nonce,
        clientId: 'peer-wallet',
      })
    ).jwt;
    const response = await client.retrieveCredentials({
      issuerMetadata,
      accessToken: accessTokenResponse.access_token,
      credentialConfigurationId: 'UniversityDegreeCredential',
      proofs: { jwt: [proof] },
      dpop: tokenDpop ?? { signer },
    });
    expect((response.credentialResponse as { credentials: unknown[] }).credentials).toHaveLength(1);
    expect(((await (await fetch(created.status_uri)).json()) as { client_id: string }).client_id).toBe('peer-wallet');
  });

  it('with DPOP_NONCE_REQUIRED=true the peer retries use_dpop_nonce at the token (400) and credential (401) endpoints, each side with its own nonce', async () => {
    const strict = await startMainServer({ env: { DPOP_NONCE_REQUIRED: 'true' } });
    try {
      const created = (await (
        await fetch(
          `${strict.url}/oid4vci/offers`,
          json({ credential_configuration_ids: ['UniversityDegreeCredential'] }),
        )
      ).json()) as { offer_url: string; status_uri: string };
      const credentialOffer = await client.resolveCredentialOffer(created.offer_url);
      const issuerMetadata = await client.resolveIssuerMetadata(credentialOffer.credential_issuer);
      const signer = { method: 'jwk' as const, alg: 'ES256', publicJwk: await newKey() };
      const { accessTokenResponse, dpop } = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
        credentialOffer,
        issuerMetadata,
        dpop: { signer },
      });
      expect(accessTokenResponse.token_type).toBe('DPoP');
      expect(dpop?.nonce).toEqual(expect.any(String));
      const { c_nonce } = await client.requestNonce({ issuerMetadata });
      const holder = await newKey();
      const proof = (
        await client.createCredentialRequestJwtProof({
          issuerMetadata,
          credentialConfigurationId: 'UniversityDegreeCredential',
          signer: { method: 'jwk', alg: 'ES256', publicJwk: holder },
          nonce: c_nonce,
        })
      ).jwt;
      // The token's nonce came from the authorization server; the resource side challenges again with its own.
      const response = await client.retrieveCredentials({
        issuerMetadata,
        accessToken: accessTokenResponse.access_token,
        credentialConfigurationId: 'UniversityDegreeCredential',
        proofs: { jwt: [proof] },
        dpop: { signer, nonce: dpop!.nonce },
      });
      expect((response.credentialResponse as { credentials: unknown[] }).credentials).toHaveLength(1);
      expect(response.dpop?.nonce).toEqual(expect.any(String));
      expect(response.dpop?.nonce).not.toBe(dpop!.nonce);
      // Each side challenged once, and the issuance records both.
      expect(
        ((await (await fetch(created.status_uri)).json()) as { dpop_nonce_challenges: number }).dpop_nonce_challenges,
      ).toBe(2);
    } finally {
      await strict.close();
    }
  });

  it('reads the offer by reference and the metadata, redeems a tx_code, proves a key and gets an SD-JWT VC', async () => {
    const { created, issuerMetadata, accessTokenResponse, response, holders } = await issueWithPeer(
      { credential_configuration_ids: ['UniversityDegreeCredential'], tx_code: true },
      'UniversityDegreeCredential',
    );
    expect(issuerMetadata.credentialIssuer.credential_issuer).toBe(`${server.url}/oid4vci`);
    expect(accessTokenResponse.token_type).toBe('Bearer');
    const body = response.credentialResponse as { credentials: Array<{ credential: string }>; notification_id: string };
    const jwks = (await (await fetch(`${server.url}/oid4vci/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    const verified = await verifySdJwtVc(body.credentials[0].credential, {
      issuerJwks: jwks,
      now: Math.floor(server.clock.now() / 1000),
    } as never);
    expect(verified).toMatchObject({ valid: true });
    expect((verified as { holderJwk: JWK }).holderJwk.x).toBe(holders[0].x);
    const notified = await client.sendNotification({
      issuerMetadata,
      accessToken: accessTokenResponse.access_token,
      notification: { notificationId: body.notification_id, event: 'credential_accepted' },
    });
    expect(notified.response.status).toBe(204);
    expect(((await (await fetch(created.status_uri)).json()) as { status: string }).status).toBe('notified');
  });

  it('deferred: the peer reads 202 transaction_id and interval; its deferred-response check departs from OpenID4VCI 1.0 (pinned)', async () => {
    const { issuerMetadata, accessTokenResponse, response, holders } = await issueWithPeer(
      { credential_configuration_ids: ['UniversityDegreeCredential'], deferred: true },
      'UniversityDegreeCredential',
    );
    const pending = response.credentialResponse as { transaction_id: string; interval: number };
    expect(pending).toMatchObject({ transaction_id: expect.any(String), interval: 3 });
    server.clock.advance(3_000);
    // OpenID4VCI 1.0 §9.2: a deferred credential response has the credential response's parameters,
    // notification_id included. 0.4.6's schema refuses notification_id beside credentials (its check is
    // inverted: the message says "when 'credentials' is not defined"). The answer itself is right:
    const failure = await client
      .retrieveDeferredCredentials({
        issuerMetadata,
        accessToken: accessTokenResponse.access_token,
        transactionId: pending.transaction_id,
      })
      .then(
        () => undefined,
        (e: { response?: unknown; deferredCredentialResponseResult?: { error?: { message?: string } } }) => e,
      );
    expect(JSON.stringify(failure)).toContain(
      "'notification_id' MUST NOT be defined when 'credentials' is not defined.",
    );
    // The collection was made (the credential was issued once): the raw answer carries it, bound to the proven key.
    const status = (await (
      await fetch(`${server.url}/oid4vci/offers/${pending.transaction_id.split('.')[0]}/status`)
    ).json()) as { status: string; holder_jkts: string[] };
    expect(status.status).toBe('credential_issued');
    expect(status.holder_jkts).toEqual([await calculateJwkThumbprint(holders[0] as JWK)]);
  });

  it('by value, DPoP-bound, a batch of two mdocs under the served IACA', async () => {
    const { accessTokenResponse, response, holders } = await issueWithPeer(
      { credential_configuration_ids: ['MobileDrivingLicenceMsoMdoc'], by_value: true },
      'MobileDrivingLicenceMsoMdoc',
      { dpop: true, proofs: 2 },
    );
    expect(accessTokenResponse.token_type).toBe('DPoP');
    const credentials = (response.credentialResponse as { credentials: Array<{ credential: string }> }).credentials;
    expect(credentials).toHaveLength(2);
    const iaca = await (await fetch(`${server.url}/oid4vci/iaca.pem`)).text();
    const results = await Promise.all(
      credentials.map((c) =>
        verifyIssuerSigned(Buffer.from(c.credential, 'base64url'), {
          trustedRoots: [iaca],
          now: Math.floor(server.clock.now() / 1000),
        }),
      ),
    );
    expect(results.map((r) => (r as { valid: boolean; deviceKey: JWK }).deviceKey?.x)).toEqual(holders.map((h) => h.x));
    // @auth0/mdl's Verifier, unmodified, on a DeviceResponse made from the first issued mdoc and its device key.
    const decoded = decodeCbor(Buffer.from(credentials[0].credential, 'base64url')) as Map<string, unknown>;
    const sessionTranscript = await oid4vpSessionTranscript({
      clientId: 'x509_san_dns:verifier.example',
      nonce: 'n-1',
      responseUri: 'https://verifier.example/response',
    });
    const deviceKey = privateKeys.get(await calculateJwkThumbprint(holders[0] as JWK))!;
    const deviceResponse = createDeviceResponse({
      issuerSigned: { nameSpaces: decoded.get('nameSpaces'), issuerAuth: decoded.get('issuerAuth') } as never,
      disclose: 'all',
      deviceKey: { privateKey: deviceKey },
      sessionTranscript,
    });
    const checks: Array<{ status: string; check: string }> = [];
    await new Verifier([iaca]).verify(deviceResponse, {
      encodedSessionTranscript: encodeCbor(dataItem(sessionTranscript)),
      onCheck: (c) => void checks.push(c),
    });
    expect(checks.filter((c) => c.status !== 'PASSED')).toEqual([]);
    expect(checks.map((c) => c.check)).toEqual(
      expect.arrayContaining([
        'Issuer certificate must be valid',
        'Issuer signature must be valid',
        'Device signature must be valid',
      ]),
    );
  });
});
