import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { signJwt } from '../../../services/crypto/jws.ts';

import { authorizationServerMetadata, credentialIssuerMetadata, degreeVct } from '../../../services/issuer/settings.ts';
import { pemRoute } from '../pem-route.ts';
import type { MainContext } from '../main/context.ts';

/** The issuer's documents: metadata (signed on request), legacy aliases, keys, the IACA and the type metadata. */
export function issuerMetadataRoutes(app: FastifyInstance, ctx: MainContext): void {
  const { settings, pki } = ctx.issuer;
  const dsJwk = ctx.issuer.keys.documentSignerJwk;
  const tags = ['oid4vci'];
  // Both documents follow from settings fixed at start: built once, served as they are.
  const metadata = credentialIssuerMetadata(settings, pki.requestEncryption.publicJwk);
  const asMetadata = authorizationServerMetadata(settings);
  const sendIssuerMetadata = async (request: FastifyRequest, reply: FastifyReply) => {
    if (/\bapplication\/jwt\b/.test(String(request.headers.accept ?? ''))) {
      const iat = Math.floor(ctx.clock.now() / 1000);
      const jwt = signJwt(
        { alg: 'ES256', privateKey: pki.documentSigner.privateKey },
        { typ: 'openidvci-issuer-metadata+jwt', x5c: dsJwk.x5c },
        { ...metadata, sub: settings.issuer, iat, exp: iat + 300 },
      );
      return reply.type('application/jwt').send(jwt);
    }
    return metadata;
  };
  app.get(
    '/.well-known/openid-credential-issuer/oid4vci',
    {
      schema: {
        summary: 'Credential issuer metadata (OpenID4VCI 1.0 §12.2); signed with Accept: application/jwt',
        tags,
      },
    },
    sendIssuerMetadata,
  );
  app.get(
    '/.well-known/oauth-authorization-server/oid4vci',
    { schema: { summary: 'Authorization server metadata of the issuer (RFC 8414)', tags } },
    async () => asMetadata,
  );
  // Legacy aliases: draft-13 wallets append the well-known suffix to the issuer instead of inserting it.
  app.get(
    '/oid4vci/.well-known/openid-credential-issuer',
    { schema: { summary: 'Legacy alias (draft-13 appended path) of the credential issuer metadata', tags } },
    sendIssuerMetadata,
  );
  app.get(
    '/oid4vci/.well-known/oauth-authorization-server',
    {
      schema: { summary: "Legacy alias (draft-13 appended path) of the issuer's authorization server metadata", tags },
    },
    async () => asMetadata,
  );
  app.get(
    '/oid4vci/.well-known/jwks.json',
    { schema: { summary: 'Issuer keys: ES256 signing key and the document signer (with x5c)', tags } },
    async () => ctx.issuer.keys.jwks(),
  );
  pemRoute(app, '/oid4vci/iaca.pem', 'The IACA root of the mdoc document signer (PEM)', tags, pki.iaca.pem);
  app.get(
    '/oid4vci/credential-types/university-degree',
    { schema: { summary: 'SD-JWT VC type metadata of the university degree', tags } },
    async () => ({
      vct: degreeVct(ctx.config.baseUrl),
      name: 'University degree (demo)',
      description: 'A demo degree credential issued by Portico; every claim is selectively disclosable.',
      claims: ['given_name', 'family_name', 'degree', 'department', 'graduation_year'].map((name) => ({
        path: [name],
        sd: 'always',
        display: [{ locale: 'en-US', label: name.replace(/_/g, ' ') }],
      })),
    }),
  );
}
