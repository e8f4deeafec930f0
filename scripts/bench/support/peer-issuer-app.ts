/**
 * An OID4VCI issuer built from the peer libraries: the token endpoint from @openid4vc/oauth2's
 * Oauth2AuthorizationServer, access tokens and DPoP at the credential endpoint checked by its
 * Oauth2ResourceServer, credential requests parsed and proofs verified by @openid4vc/openid4vci's
 * Openid4vciIssuer, SD-JWT VCs from @sd-jwt/sd-jwt-vc and mdocs from @auth0/mdl; state in memory.
 *
 * `npm run bench -- issuer` runs it as its own process (peer-issuer.ts) for the per-flow comparison;
 * the wallet's interop tests run it in process as an issuer the wallet was not written with, and
 * switch `options` between tests to stage what a real issuer may do: demand DPoP nonces, advertise a
 * large batch and answer it out of order, name another issuer, sign with a key only
 * `/.well-known/jwt-vc-issuer` lists. `hits` counts requests by path.
 */
import 'reflect-metadata';
import { Document, MDoc } from '@auth0/mdl';
import { ES256, digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import {
  Oauth2AuthorizationServer,
  Oauth2ResourceServer,
  Oauth2ResourceUnauthorizedError,
  Oauth2ServerErrorResponseError,
  clientAuthenticationAnonymous,
  type Jwk,
  type JwtSigner,
} from '@openid4vc/oauth2';
import { Openid4vciClient, Openid4vciIssuer } from '@openid4vc/openid4vci';
import { setGlobalConfig } from '@openid4vc/utils';
import Fastify from 'fastify';
import formbody from '@fastify/formbody';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { SignJWT, calculateJwkThumbprint, compactVerify, decodeJwt, exportJWK, generateKeyPair, importJWK } from 'jose';
import { createDocumentSigner, createIacaRoot } from '../../../services/credentials/mdoc/index.ts';

export interface PeerIssuerOptions {
  /** AS answers 400 and the credential endpoint 401 `use_dpop_nonce` until the current nonce comes back. */
  dpopNonce?: boolean;
  /** `batch_credential_issuance.batch_size` advertised (none when absent). */
  batchSize?: number;
  /** Batch credentials in the reverse order of the proofs. */
  reverseBatch?: boolean;
  /** The issuer metadata names this `credential_issuer` instead of its own. */
  credentialIssuerOverride?: string;
  /** The authorization server metadata names this `issuer` instead of its own. */
  asIssuerOverride?: string;
  /** SD-JWT VCs signed with the key that only `/.well-known/jwt-vc-issuer` lists, not `jwks_uri`. */
  signWithJwtVcIssuerKey?: boolean;
  /** The wallet attester's public key: client attestations it signed pass at PAR and token. */
  attesterJwk?: Jwk;
}

export interface PeerIssuer {
  url: string;
  issuer: string;
  options: PeerIssuerOptions;
  hits: Map<string, number>;
  /** DPoP nonce challenges sent, by side. */
  challenges: { as: number; rs: number };
  /** Per credential request: how many proofs came and how many distinct keys they held. */
  batches: { proofs: number; distinctKeys: number }[];
  /** `x-fapi-interaction-id` and event of each notification. */
  notifications: { event: unknown; interactionId?: string; dpop: boolean }[];
  /** The query parameter names of each authorization request that reached the authorize endpoint. */
  authorizeQueries: string[][];
  /** Each read of the protected resource `{issuer}/resource`: the token's scope and whether DPoP bound it. */
  resourceReads: { scope?: string; dpop: boolean; interactionId?: string }[];
  /** An offer by value (`openid-credential-offer://…`) with a fresh pre-authorized code. */
  createOffer(configurationIds?: string[]): Promise<string>;
  close(): Promise<void>;
}

const DAY = 86_400_000;
const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

export async function startPeerIssuer(options: PeerIssuerOptions = {}): Promise<PeerIssuer> {
  setGlobalConfig({ allowInsecureUrls: true });
  const app = Fastify({ logger: false });
  await app.register(formbody);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const issuer = `${base}/oid4vci`;

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

  const hits = new Map<string, number>();
  const peer: PeerIssuer = {
    url: base,
    issuer,
    options,
    hits,
    challenges: { as: 0, rs: 0 },
    batches: [],
    notifications: [],
    authorizeQueries: [],
    resourceReads: [],
    createOffer: async (ids) => (await newOffer(ids)).credentialOffer,
    close: () => app.close(),
  };
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
  });

  app.get('/.well-known/openid-credential-issuer/oid4vci', async () => ({
    ...issuerMetadata,
    ...(options.credentialIssuerOverride ? { credential_issuer: options.credentialIssuerOverride } : {}),
    ...(options.batchSize ? { batch_credential_issuance: { batch_size: options.batchSize } } : {}),
  }));
  app.get('/.well-known/oauth-authorization-server/oid4vci', async () => ({
    ...asMetadata,
    ...(options.asIssuerOverride ? { issuer: options.asIssuerOverride } : {}),
  }));
  app.get('/oid4vci/.well-known/openid-configuration', async () => ({
    ...asMetadata,
    ...(options.asIssuerOverride ? { issuer: options.asIssuerOverride } : {}),
  }));
  app.get('/oid4vci/jwks', async (_request, reply) => reply.type('application/json').send(cachedJwks));
  // SD-JWT VC issuer metadata, which a wallet following spec behaviour 11 never reads.
  app.get('/.well-known/jwt-vc-issuer/oid4vci', async () => ({ issuer, jwks: { keys: [otherPublic] } }));

  const codes = new Map<string, string[]>();
  const nonces = new Set<string>();
  const dpopNonces = { as: randomBytes(12).toString('base64url'), rs: randomBytes(12).toString('base64url') };
  const requestOf = (request: { headers: Record<string, unknown>; method: string; url: string }) => ({
    headers: new Headers(
      Object.entries(request.headers).filter(([, v]) => typeof v === 'string') as [string, string][],
    ),
    method: request.method as 'POST',
    url: `${base}${request.url}`,
  });
  /** The nonce policy is the server's: true when the DPoP proof carries the side's current nonce (or none is demanded). */
  const hasDpopNonce = (dpopJwt: unknown, side: 'as' | 'rs') => {
    if (!options.dpopNonce) return true;
    try {
      return typeof dpopJwt === 'string' && decodeJwt(dpopJwt).nonce === dpopNonces[side];
    } catch {
      return false;
    }
  };

  async function newOffer(ids = ['UniversityDegreeCredential']): Promise<{ credentialOffer: string; code: string }> {
    const code = randomBytes(24).toString('base64url');
    codes.set(code, ids);
    const { credentialOffer } = await vci.createCredentialOffer({
      issuerMetadata: metadataResult,
      credentialConfigurationIds: ids,
      grants: { [PRE_AUTHORIZED]: { 'pre-authorized_code': code } },
    } as never);
    return { credentialOffer, code };
  }

  // The bench's bootstrap: a fresh pre-authorized offer, as `POST {issuer}/offers` on ours.
  app.post('/oid4vci/offers', async (request, reply) => {
    const { credentialOffer, code } = await newOffer(
      (request.body as { credential_configuration_ids?: string[] } | undefined)?.credential_configuration_ids,
    );
    return reply.code(201).send({ offer_url: credentialOffer, pre_authorized_code: code });
  });

  /** Pushed requests by request_uri, then codes by value: what the token endpoint checks the code against. */
  const pushed = new Map<string, { params: Record<string, string>; dpopJkt?: string }>();
  const authorizationCodes = new Map<string, { params: Record<string, string>; dpopJkt?: string }>();

  app.post('/oid4vci/par', async (request, reply) => {
    const req = requestOf(request);
    const parsed = await as.parsePushedAuthorizationRequest({ request: req, authorizationRequest: request.body });
    if (!hasDpopNonce(parsed.dpop?.jwt, 'as')) {
      peer.challenges.as += 1;
      return reply
        .code(400)
        .header('dpop-nonce', dpopNonces.as)
        .send({ error: 'use_dpop_nonce', error_description: 'Send the DPoP-Nonce value in the proof' });
    }
    const verified = await as.verifyPushedAuthorizationRequest({
      authorizationServerMetadata: asMetadata,
      authorizationRequest: parsed.authorizationRequest,
      request: req,
      clientAttestation: { required: true, ...parsed.clientAttestation },
      ...(parsed.dpop ? { dpop: { ...parsed.dpop, allowedSigningAlgs: ['ES256'] } } : {}),
    });
    const params = parsed.authorizationRequest as Record<string, string>;
    if (params.code_challenge_method !== 'S256' || typeof params.code_challenge !== 'string')
      throw new Oauth2ServerErrorResponseError({
        error: 'invalid_request',
        error_description: 'PKCE S256 is required',
      });
    const requestUri = `urn:ietf:params:oauth:request_uri:${randomBytes(16).toString('base64url')}`;
    pushed.set(requestUri, { params, dpopJkt: verified.dpop?.jwkThumbprint });
    return reply
      .code(201)
      .send(as.createPushedAuthorizationResponse({ requestUri, expiresInSeconds: 60 }).pushedAuthorizationResponse);
  });

  // The person consents at once: the peer answers the pushed request with a code (RFC 9207 iss included).
  app.get('/oid4vci/authorize', async (request, reply) => {
    const query = request.query as Record<string, string>;
    peer.authorizeQueries.push(Object.keys(query).sort());
    const found = pushed.get(query.request_uri);
    if (!found || found.params.client_id !== query.client_id)
      return reply.code(400).send({ error: 'invalid_request', error_description: 'unknown request_uri' });
    pushed.delete(query.request_uri);
    const code = randomBytes(16).toString('base64url');
    authorizationCodes.set(code, found);
    const back = new URL(found.params.redirect_uri);
    back.search = new URLSearchParams({ code, state: found.params.state, iss: issuer }).toString();
    return reply.redirect(back.toString(), 302);
  });

  app.get('/oid4vci/resource', async (request) => {
    const { tokenPayload, dpop } = await authorizeResourceRequest(request);
    const interaction = request.headers['x-fapi-interaction-id'];
    peer.resourceReads.push({
      scope: typeof tokenPayload.scope === 'string' ? tokenPayload.scope : undefined,
      dpop: dpop !== undefined,
      interactionId: typeof interaction === 'string' ? interaction : undefined,
    });
    return { resource: 'peer demo resource', scope: tokenPayload.scope };
  });

  app.post('/oid4vci/token', async (request, reply) => {
    const req = requestOf(request);
    const parsed = as.parseAccessTokenRequest({
      request: req,
      accessTokenRequest: request.body as Record<string, unknown>,
    });
    if (!hasDpopNonce(parsed.dpop?.jwt, 'as')) {
      peer.challenges.as += 1;
      return reply
        .code(400)
        .header('dpop-nonce', dpopNonces.as)
        .send({ error: 'use_dpop_nonce', error_description: 'Send the DPoP-Nonce value in the proof' });
    }
    if (parsed.grant.grantType === 'authorization_code') return authorizationCodeToken(req, parsed);
    const code = (parsed.grant as { preAuthorizedCode: string }).preAuthorizedCode;
    const ids = codes.get(code);
    if (!ids) return reply.code(400).send({ error: 'invalid_grant', error_description: 'unknown pre-authorized code' });
    const verified = await as.verifyPreAuthorizedCodeAccessTokenRequest({
      authorizationServerMetadata: asMetadata,
      grant: parsed.grant as never,
      accessTokenRequest: parsed.accessTokenRequest,
      request: req,
      expectedPreAuthorizedCode: code,
      ...(parsed.dpop ? { dpop: { jwt: parsed.dpop.jwt, allowedSigningAlgs: ['ES256'] } } : {}),
    });
    codes.delete(code);
    return as.createAccessTokenResponse({
      authorizationServer: issuer,
      audience: issuer,
      expiresInSeconds: 300,
      signer: { method: 'jwk', alg: 'ES256', publicJwk: issuerPublic },
      subject: 'alice',
      scope: ids.map((id) => configurations[id as keyof typeof configurations].scope).join(' '),
      ...(verified.dpop ? { dpop: { jwk: verified.dpop.jwk } } : {}),
    });
  });

  /** The authorization code grant: PKCE, the DPoP key of the PAR, the same client attestation. */
  async function authorizationCodeToken(
    req: ReturnType<typeof requestOf>,
    parsed: ReturnType<typeof as.parseAccessTokenRequest>,
  ) {
    const code = (parsed.grant as { code: string }).code;
    const granted = authorizationCodes.get(code);
    if (!granted)
      throw new Oauth2ServerErrorResponseError({ error: 'invalid_grant', error_description: 'unknown or used code' });
    authorizationCodes.delete(code);
    const verified = await as.verifyAuthorizationCodeAccessTokenRequest({
      authorizationServerMetadata: asMetadata,
      grant: parsed.grant as never,
      accessTokenRequest: parsed.accessTokenRequest,
      request: req,
      expectedCode: code,
      pkce: {
        codeVerifier: parsed.pkceCodeVerifier,
        codeChallenge: granted.params.code_challenge,
        codeChallengeMethod: 'S256' as never,
      },
      clientAttestation: { required: true, ...parsed.clientAttestation, expectedClientId: granted.params.client_id },
      dpop: {
        required: granted.dpopJkt !== undefined,
        jwt: parsed.dpop?.jwt,
        expectedJwkThumbprint: granted.dpopJkt,
        allowedSigningAlgs: ['ES256'],
      },
    });
    return as.createAccessTokenResponse({
      authorizationServer: issuer,
      audience: issuer,
      expiresInSeconds: 300,
      signer: { method: 'jwk', alg: 'ES256', publicJwk: issuerPublic },
      subject: 'alice',
      clientId: granted.params.client_id,
      scope: granted.params.scope,
      ...(verified.dpop ? { dpop: { jwk: verified.dpop.jwk } } : {}),
    });
  }

  app.post('/oid4vci/nonce', async () => {
    const cNonce = randomBytes(16).toString('base64url');
    nonces.add(cNonce);
    return vci.createNonceResponse({ cNonce, cNonceExpiresIn: 300 });
  });

  /** Access token and DPoP checked by the resource server; the nonce challenge first when demanded. */
  const authorizeResourceRequest = async (request: {
    headers: Record<string, unknown>;
    method: string;
    url: string;
  }) => {
    if (!hasDpopNonce(request.headers.dpop, 'rs')) {
      peer.challenges.rs += 1;
      throw Object.assign(
        new Oauth2ResourceUnauthorizedError('nonce', {
          scheme: 'DPoP',
          error: 'use_dpop_nonce',
          error_description: 'Send the DPoP-Nonce value in the proof',
        }),
        { dpopNonce: dpopNonces.rs },
      );
    }
    return rs.verifyResourceRequest({
      request: requestOf(request),
      resourceServer: issuer,
      authorizationServers: [asMetadata],
    });
  };

  let metadataResult: Awaited<ReturnType<Openid4vciClient['resolveIssuerMetadata']>>;

  app.post('/oid4vci/credential', async (request) => {
    await authorizeResourceRequest(request);
    const parsed = vci.parseCredentialRequest({
      issuerMetadata: metadataResult,
      credentialRequest: request.body as Record<string, unknown>,
    });
    const jwts = (request.body as { proofs?: { jwt?: string[] } }).proofs?.jwt ?? [];
    const cap = options.batchSize ?? 1;
    if (jwts.length === 0 || jwts.length > cap)
      throw new Oauth2ServerErrorResponseError({
        error: 'invalid_proof',
        error_description: `between 1 and ${cap} proofs`,
      });
    const holders: Jwk[] = [];
    for (const jwt of jwts) {
      const nonce = decodeJwt(jwt).nonce;
      if (typeof nonce !== 'string' || !nonces.has(nonce))
        throw new Oauth2ServerErrorResponseError({ error: 'invalid_nonce', error_description: 'unknown c_nonce' });
      const verified = await vci.verifyCredentialRequestJwtProof({
        issuerMetadata: metadataResult,
        jwt,
        expectedNonce: nonce,
        nonceExpiresAt: new Date(Date.now() + 300_000),
      });
      holders.push((verified.signer as { publicJwk: Jwk }).publicJwk);
    }
    for (const jwt of jwts) nonces.delete(String(decodeJwt(jwt).nonce));
    const distinctKeys = new Set(await Promise.all(holders.map((h) => calculateJwkThumbprint(h as never)))).size;
    peer.batches.push({ proofs: jwts.length, distinctKeys });
    if (distinctKeys !== holders.length)
      throw new Oauth2ServerErrorResponseError({
        error: 'invalid_proof',
        error_description: 'batch proofs must hold distinct keys',
      });
    const id = (request.body as { credential_configuration_id?: string }).credential_configuration_id;
    const credentials = await Promise.all(
      holders.map((holder) => (id === 'MobileDrivingLicenceMsoMdoc' ? issueMdoc(holder) : issueSdJwt(holder))),
    );
    if (options.reverseBatch) credentials.reverse();
    return vci.createCredentialResponse({
      credentialRequest: parsed,
      credentials: credentials.map((credential) => ({ credential })),
      notificationId: randomBytes(16).toString('base64url'),
    } as never);
  });

  app.post('/oid4vci/notification', async (request, reply) => {
    const { dpop } = await authorizeResourceRequest(request);
    const interaction = request.headers['x-fapi-interaction-id'];
    peer.notifications.push({
      event: (request.body as { event?: unknown } | undefined)?.event,
      interactionId: typeof interaction === 'string' ? interaction : undefined,
      dpop: dpop !== undefined,
    });
    return reply.code(204).send();
  });

  async function issueSdJwt(holder: Jwk): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const signer = options.signWithJwtVcIssuerKey ? sdJwt.jwtVcIssuer : sdJwt.jwks;
    return signer.issue(
      {
        iss: issuer,
        vct: configurations.UniversityDegreeCredential.vct,
        iat: now,
        exp: now + 86_400,
        cnf: { jwk: holder },
        given_name: 'Alice',
        family_name: 'Anderson',
        degree: 'Bachelor of Science',
        department: 'Computer Science',
        graduation_year: 2012,
      } as never,
      { _sd: ['given_name', 'family_name', 'degree', 'department', 'graduation_year'] } as never,
      { header: { kid: 'peer-1' } } as never,
    );
  }

  async function issueMdoc(holder: Jwk): Promise<string> {
    const now = Date.now();
    const signed = await new Document('org.iso.18013.5.1.mDL')
      .addIssuerNameSpace('org.iso.18013.5.1', {
        family_name: 'Anderson',
        given_name: 'Alice',
        birth_date: '1990-04-12',
        issue_date: '2026-01-01',
        expiry_date: '2031-01-01',
        issuing_country: 'FR',
        issuing_authority: 'Demo',
        document_number: 'PD-1',
        age_over_18: true,
        age_over_21: true,
        un_distinguishing_sign: 'F',
        portrait: new Uint8Array(10),
      })
      .useDigestAlgorithm('SHA-256')
      .addValidityInfo({ signed: new Date(now), validFrom: new Date(now), validUntil: new Date(now + 180 * DAY) })
      .addDeviceKeyInfo({ deviceKey: holder as never })
      .sign({ issuerPrivateKey: dsPrivate, issuerCertificate: ds.pem, alg: 'ES256' });
    return Buffer.from(new MDoc([signed]).encode()).toString('base64url');
  }

  app.setErrorHandler((error, _request, reply) => {
    if (process.env.PEER_DEBUG) console.error('PEER', error);
    if (error instanceof Oauth2ResourceUnauthorizedError) {
      const nonce = (error as { dpopNonce?: string }).dpopNonce;
      return reply
        .code(401)
        .header('www-authenticate', error.toHeaderValue())
        .headers(nonce ? { 'dpop-nonce': nonce } : {})
        .send();
    }
    if (error instanceof Oauth2ServerErrorResponseError) return reply.code(error.status).send(error.errorResponse);
    return reply.code(400).send({ error: 'invalid_request', error_description: (error as Error).message });
  });
  await app.listen({ host: '127.0.0.1', port });
  metadataResult = await new Openid4vciClient({ callbacks: callbacks as never }).resolveIssuerMetadata(issuer);
  return peer;
}

/** Routes need the origin before listening, so the port is chosen first. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
