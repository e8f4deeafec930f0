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
import formbody from '@fastify/formbody';
import { Oauth2ResourceUnauthorizedError, Oauth2ServerErrorResponseError } from '@openid4vc/oauth2';
import { Openid4vciClient } from '@openid4vc/openid4vci';
import { setGlobalConfig } from '@openid4vc/utils';
import Fastify from 'fastify';
import { decodeJwt } from 'jose';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { peerResourceRoutes } from './peer-issuer-resource-routes.ts';
import { peerIssuerSetup } from './peer-issuer-setup.ts';
import type { PeerIssuer, PeerIssuerOptions } from './peer-issuer-types.ts';
import { loadToolSettings } from '../../../adapters/config.ts';
export type { PeerIssuer, PeerIssuerOptions } from './peer-issuer-types.ts';

const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

export async function startPeerIssuer(options: PeerIssuerOptions = {}): Promise<PeerIssuer> {
  setGlobalConfig({ allowInsecureUrls: true });
  const app = Fastify({ logger: false });
  await app.register(formbody);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const issuer = `${base}/oid4vci`;

  const setup = await peerIssuerSetup(options, issuer);
  const { issuerPublic, otherPublic, callbacks, as, vci, configurations, asMetadata, issuerMetadata, cachedJwks } =
    setup;

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

  let metadataResult: Awaited<ReturnType<Openid4vciClient['resolveIssuerMetadata']>>;
  peerResourceRoutes({
    app,
    options,
    peer,
    setup,
    issuer,
    nonces,
    dpopNonces,
    requestOf,
    hasDpopNonce,
    metadata: () => metadataResult,
  });

  app.setErrorHandler((error, _request, reply) => {
    if (loadToolSettings().peerDebug) console.error('PEER', error);
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
