import {
  clientAuthenticationAnonymous,
  Oauth2AuthorizationServer,
  Oauth2ResourceServer,
  type Jwk,
  type JwtSigner,
} from '@openid4vc/oauth2';
import { Openid4vciIssuer } from '@openid4vc/openid4vci';
import { digest, ES256, generateSalt } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { compactVerify, exportJWK, generateKeyPair, importJWK, SignJWT } from 'jose';
import { createHash, randomBytes } from 'node:crypto';
import { createDocumentSigner, createIacaRoot } from '../../../services/credentials/mdoc/index.ts';

import type { PeerIssuerOptions } from './peer-issuer-types.ts';

const DAY = 86_400_000;

/** The peer issuer's keys, libraries and metadata: everything its routes use, made before it listens. */
export async function peerIssuerSetup(options: PeerIssuerOptions, issuer: string) {
  const issuerKeys = await generateKeyPair('ES256', { extractable: true });
  const issuerPublic = { ...(await exportJWK(issuerKeys.publicKey)), kid: 'peer-1', alg: 'ES256' } as Jwk;
  const otherKeys = await generateKeyPair('ES256', { extractable: true });
  const otherPublic = { ...(await exportJWK(otherKeys.publicKey)), kid: 'peer-1', alg: 'ES256' } as Jwk;
  const iaca = await createIacaRoot({
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 365 * DAY),
  });
  const ds = await createDocumentSigner({
    iaca,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 365 * DAY),
  });
  const dsPrivate = await exportJWK(ds.privateKey);

  const callbacks = {
    hash: (data: Uint8Array, alg: string) =>
      new Uint8Array(createHash(alg.replace('-', '').toLowerCase()).update(data).digest()),
    generateRandom: (n: number) => new Uint8Array(randomBytes(n)),
    clientAuthentication: clientAuthenticationAnonymous(),
    signJwt: async (
      signer: JwtSigner,
      { header, payload }: { header: Record<string, unknown>; payload: Record<string, unknown> },
    ) => {
      const jwt = await new SignJWT(payload)
        .setProtectedHeader({ ...header, alg: 'ES256', kid: 'peer-1' } as never)
        .sign(issuerKeys.privateKey);
      return { jwt, signerJwk: (signer as { publicJwk?: Jwk }).publicJwk ?? issuerPublic };
    },
    verifyJwt: async (signer: JwtSigner, { header, compact }: { header: Record<string, unknown>; compact: string }) => {
      try {
        const attestation = header.typ === 'oauth-client-attestation+jwt';
        if (attestation && !options.attesterJwk) return { verified: false as const };
        const jwk = signer.method === 'jwk' ? signer.publicJwk : attestation ? options.attesterJwk! : issuerPublic;
        await compactVerify(compact, await importJWK(jwk as never, signer.alg));
        return { verified: true as const, signerJwk: jwk };
      } catch {
        return { verified: false as const };
      }
    },
  };
  const as = new Oauth2AuthorizationServer({ callbacks: callbacks as never });
  // A resource server keeps its authorization server's JWKS rather than fetching it per request.
  const jwksUri = `${issuer}/jwks`;
  const cachedJwks = JSON.stringify({ keys: [issuerPublic] });
  const rsFetch = async (url: string | URL, init?: RequestInit) =>
    String(url) === jwksUri
      ? new Response(cachedJwks, { headers: { 'content-type': 'application/json' } })
      : fetch(url, init);
  const rs = new Oauth2ResourceServer({ callbacks: { ...callbacks, fetch: rsFetch } as never });
  const vci = new Openid4vciIssuer({ callbacks: callbacks as never });
  const sdJwtIssuer = async (privateKey: CryptoKey) =>
    new SDJwtVcInstance({
      signer: await ES256.getSigner(await exportJWK(privateKey)),
      signAlg: 'ES256',
      hasher: digest,
      hashAlg: 'sha-256',
      saltGenerator: generateSalt,
    });
  const sdJwt = {
    jwks: await sdJwtIssuer(issuerKeys.privateKey),
    jwtVcIssuer: await sdJwtIssuer(otherKeys.privateKey),
  };

  const configurations = {
    UniversityDegreeCredential: {
      format: 'dc+sd-jwt',
      vct: `${issuer}/credential-types/university-degree`,
      scope: 'vc:university_degree',
      cryptographic_binding_methods_supported: ['jwk'],
      credential_signing_alg_values_supported: ['ES256'],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256'] } },
    },
    MobileDrivingLicenceMsoMdoc: {
      format: 'mso_mdoc',
      doctype: 'org.iso.18013.5.1.mDL',
      scope: 'vc:mdl',
      cryptographic_binding_methods_supported: ['cose_key'],
      credential_signing_alg_values_supported: [-7],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256'] } },
    },
  };
  const asMetadata = as.createAuthorizationServerMetadata({
    issuer,
    token_endpoint: `${issuer}/token`,
    jwks_uri: jwksUri,
    dpop_signing_alg_values_supported: ['ES256'],
    'pre-authorized_grant_anonymous_access_supported': true,
    authorization_endpoint: `${issuer}/authorize`,
    pushed_authorization_request_endpoint: `${issuer}/par`,
    require_pushed_authorization_requests: true,
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['attest_jwt_client_auth'],
  } as never);
  const issuerMetadata = vci.createCredentialIssuerMetadata({
    credential_issuer: issuer,
    credential_endpoint: `${issuer}/credential`,
    nonce_endpoint: `${issuer}/nonce`,
    notification_endpoint: `${issuer}/notification`,
    credential_configurations_supported: configurations,
  } as never);
  return {
    issuerKeys,
    issuerPublic,
    otherPublic,
    ds,
    dsPrivate,
    callbacks,
    as,
    rs,
    vci,
    sdJwt,
    configurations,
    asMetadata,
    issuerMetadata,
    jwksUri,
    cachedJwks,
  };
}

export type PeerSetup = Awaited<ReturnType<typeof peerIssuerSetup>>;
