import { handoffWanted, sendHandoff } from '../handoff.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { exportJWK } from 'jose';
import { correlateIssuance } from '../../../services/issuer/correlation.ts';
import { offerOf } from '../../../services/issuer/request-rules.ts';

import { demoUsers } from '../../../services/oauth/demo-users.ts';
import { correlate } from '../correlation.ts';
import { requireFormBody } from '../form-body.ts';
import type { MainContext } from '../main/context.ts';
import { jsonObject } from '../response-schemas.ts';
import { issuerAuthorizationRoutes } from './authorization-routes.ts';
import { credentialRoutes, UUID } from './credential-routes.ts';
import { issuerMetadataRoutes } from './metadata-routes.ts';
import { issuerStatusRoutes } from './status-routes.ts';
import { OFFER_WORKED_EXAMPLE, offerSchemas } from './offer-schema.ts';

const errorResponse = { $ref: 'OAuthError#' };
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } };

/** The OID4VCI issuer at `{base}/oid4vci` and its authorization server (decisions section 8). */
export async function issuerRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const { settings, pki } = ctx.issuer;
  const userList = demoUsers(ctx.config.demo);
  const issuer = ctx.issuerService;
  /** Correlation (docs/debugging.md): records the asking wallet exchange and names the offer's stream. */
  const correlateOffer = (request: FastifyRequest, reply: FastifyReply, offerId: string | undefined) =>
    correlate(request, reply, (walletExchange) => correlateIssuance(issuer, offerId, walletExchange));
  const authorization = ctx.issuerAuthorization;
  const presented = (request: FastifyRequest) => {
    const interaction = request.headers['x-fapi-interaction-id'];
    return {
      method: request.method,
      url: `${ctx.config.baseUrl}${request.url.split('?')[0]}`,
      authorization: request.headers.authorization,
      dpop: request.headers.dpop,
      ...(typeof interaction === 'string' && UUID.test(interaction) ? { interactionId: interaction } : {}),
      clientAttestation: request.headers['oauth-client-attestation'],
      clientAttestationPop: request.headers['oauth-client-attestation-pop'],
    };
  };
  const tags = ['oid4vci'];
  issuerAuthorizationRoutes(app, { authorization, users: userList, presented, correlate: correlateOffer });

  issuerMetadataRoutes(app, ctx);
  issuerStatusRoutes(app, issuer, ctx.credentialStatus.lists);

  const offerContract = offerSchemas(
    [...settings.configurations.keys()],
    userList.map((u) => u.id),
  );
  app.post(
    '/oid4vci/offers',
    {
      schema: {
        summary: 'Create a credential offer (pre-authorized code, optional tx_code, by value or by reference)',
        description: OFFER_WORKED_EXAMPLE,
        tags,
        body: offerContract.body,
        response: { 201: offerContract.created, 400: errorResponse },
      },
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      reply.code(201).header('cache-control', 'no-store');
      return issuer.createOffer(body);
    },
  );
  app.get(
    '/oid4vci/credential-offer/:id',
    {
      schema: {
        summary:
          'A credential offer by reference; with Accept image/png or text/html, the QR code of its openid-credential-offer:// link',
        tags,
        params: idParams,
        response: {
          200: jsonObject('The credential offer (OpenID4VCI 1.0 §4.1.1)', {
            credential_issuer: { type: 'string' },
            credential_configuration_ids: { type: 'array', items: { type: 'string' } },
          }),
          404: errorResponse,
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const id = (request.params as { id: string }).id;
      const wanted = handoffWanted(request, 'application/json');
      if (wanted !== 'document')
        return sendHandoff(request, reply, wanted, await issuer.offerLink(id), {
          title: 'A credential offer',
          explanation:
            'An issuer offers a credential (OpenID4VCI 1.0). Hand this link to a wallet: scan it, or give it to the wallet harness (POST {wallet}/api/import {"offer": "<link>"}).',
        });
      const offer = await issuer.fetchOffer(id);
      await correlateOffer(request, reply, id);
      return offer;
    },
  );
  app.get(
    '/oid4vci/offers/:id/status',
    {
      schema: {
        summary: 'What the wallet did with an offer (fold of its stream)',
        tags,
        params: idParams,
        response: {
          200: jsonObject(
            "The offer's state and what the wallet did: attestation, DPoP, proofs and holder keys, encryption, notification",
            { status: { type: 'string' } },
          ),
          404: errorResponse,
        },
      },
    },
    async (request) => issuer.status((request.params as { id: string }).id),
  );

  app.post(
    '/oid4vci/token',
    {
      preValidation: requireFormBody,
      schema: {
        summary: 'Token endpoint of the issuer: pre-authorized_code grant, optional tx_code, optional DPoP',
        tags,
        body: {
          type: 'object',
          properties: Object.fromEntries(
            [
              ['grant_type', 200],
              ['pre-authorized_code', 200],
              ['tx_code', 20],
              ['code', 200],
              ['redirect_uri', 2000],
              ['code_verifier', 200],
              ['client_id', 200],
            ].map(([k, n]) => [k, { type: 'string', maxLength: n }]),
          ),
        },
        response: {
          200: jsonObject(
            'Access token response (RFC 6749 §5.1): Bearer or DPoP, authorization_details with credential_identifiers; never a refresh token',
            { access_token: { type: 'string' }, token_type: { type: 'string' }, expires_in: { type: 'integer' } },
          ),
          400: errorResponse,
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const form = (request.body ?? {}) as Record<string, string>;
      await correlateOffer(request, reply, offerOf(form['pre-authorized_code'] ?? form.code));
      const response = await issuer.token(form, presented(request));
      // RFC 9449 §8.2: a fresh nonce with the successful answer, from the authorization server's source.
      if (settings.dpopNonceRequired) reply.header('dpop-nonce', issuer.asNonces.current());
      return response;
    },
  );
  /** A fresh single-use value, never cached. */
  const freshValue = (path: string, summary: string, make: () => unknown) =>
    app.post(path, { schema: { summary, tags } }, async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return make();
    });
  freshValue('/oid4vci/challenge', 'An attestation_challenge for the client attestation PoP', () => issuer.challenge());
  // The demo attester's private keys are published on purpose: any wallet may play an attested one here.
  const attesterJwk = async (key: typeof pki.attester.clientAttester, kid: string) => ({
    ...(await exportJWK(key.privateKey)),
    kid,
    alg: 'ES256',
    x5c: [Buffer.from(key.certificate).toString('base64'), Buffer.from(pki.attester.ca.certificate).toString('base64')],
  });
  const attester = {
    client_attestation_attester_jwk: await attesterJwk(pki.attester.clientAttester, 'demo-client-attester'),
    key_attestation_jwk: await attesterJwk(pki.attester.keyAttester, 'demo-key-attester'),
  };
  app.get(
    '/oid4vci/demo/attester',
    {
      schema: {
        summary: 'Demo wallet attester private JWKs (+x5c), ready for WALLET_CLIENT_ATTESTATION_*_JWK_JSON',
        tags,
      },
    },
    async () => ({
      ...attester,
      env: {
        WALLET_CLIENT_ATTESTATION_ATTESTER_JWK_JSON: JSON.stringify(attester.client_attestation_attester_jwk),
        WALLET_CLIENT_ATTESTATION_KEY_ATTESTATION_JWK_JSON: JSON.stringify(attester.key_attestation_jwk),
      },
    }),
  );
  freshValue('/oid4vci/nonce', 'A fresh c_nonce for key proofs', () => issuer.nonce());
  credentialRoutes(app, ctx, issuer, presented);
}
