import { Oauth2ResourceUnauthorizedError, Oauth2ServerErrorResponseError, type Jwk } from '@openid4vc/oauth2';
import { Openid4vciClient } from '@openid4vc/openid4vci';
import type { FastifyInstance } from 'fastify';
import { calculateJwkThumbprint, decodeJwt } from 'jose';
import { randomBytes } from 'node:crypto';
import { issueMdoc, issueSdJwt } from './peer-issuer-credentials.ts';
import type { PeerSetup } from './peer-issuer-setup.ts';
import type { PeerIssuer, PeerIssuerOptions } from './peer-issuer-types.ts';

/** What the peer's resource-side routes share with the app that registers them. */
export interface PeerRouteContext {
  app: FastifyInstance;
  options: PeerIssuerOptions;
  peer: PeerIssuer;
  setup: PeerSetup;
  issuer: string;
  nonces: Set<string>;
  dpopNonces: { as: string; rs: string };
  requestOf(request: { headers: Record<string, unknown>; method: string; url: string }): {
    headers: Headers;
    method: 'POST';
    url: string;
  };
  hasDpopNonce(dpopJwt: unknown, side: 'as' | 'rs'): boolean;
  /** The issuer metadata as the library resolved it (known once the peer listens). */
  metadata(): Awaited<ReturnType<Openid4vciClient['resolveIssuerMetadata']>>;
}

/** The nonce, credential and notification endpoints and the protected resource, checked by the library's resource server. */
export function peerResourceRoutes(ctx: PeerRouteContext): void {
  const { app, options, peer, setup, issuer, nonces, dpopNonces, requestOf, hasDpopNonce } = ctx;
  const { rs, vci, asMetadata } = setup;
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

  app.post('/oid4vci/credential', async (request) => {
    await authorizeResourceRequest(request);
    const parsed = vci.parseCredentialRequest({
      issuerMetadata: ctx.metadata(),
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
        issuerMetadata: ctx.metadata(),
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
      holders.map((holder) =>
        id === 'MobileDrivingLicenceMsoMdoc' ? issueMdoc(setup, holder) : issueSdJwt(setup, options, issuer, holder),
      ),
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
}
