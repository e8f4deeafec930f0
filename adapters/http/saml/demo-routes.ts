import type { FastifyInstance } from 'fastify';
import type { SamlPart } from '../main/graph-saml.ts';
import type { ServiceProvider } from '../../../services/saml/service-providers.ts';
import { notFound } from '../../../services/errors.ts';
import { formBody, str } from '../oauth/schemas.ts';
import { sendAuthPage } from '../oauth/pages.ts';

/**
 * The pre-registered SPs, published like the demo OAuth clients (spec §5.6): their metadata, and the
 * demo SPs' private key (demo data on purpose: any SAML library may play a demo SP with it).
 */
/** What an SP is to the IdP, as `/saml/demo/sps` and a registration answer show it. */
export const spView = (sp: ServiceProvider) => ({
  entity_id: sp.entityId,
  assertion_consumer_services: sp.acs,
  single_logout_services: sp.slo.map((e) => ({ binding: e.binding, location: e.url })),
  authn_requests_signed: sp.authnRequestsSigned,
  signed_parts: sp.sign,
  assertions_encrypted: Boolean(sp.encryption),
  name_id_format: sp.nameIdFormat,
});

/** The IdP metadata URL and each demo SP as published (also the MCP tool list_saml_service_providers). */
export async function publishedServiceProviders(saml: SamlPart) {
  const { serviceProviders, keys } = await saml.services();
  return {
    idp_metadata: `${saml.base}/saml/idp/metadata`,
    service_providers: serviceProviders.map((sp) => ({
      id: sp.id,
      name: sp.name,
      ...spView(sp),
      metadata: `${saml.base}/saml/demo/sps/${sp.id}/metadata`,
      ...(sp.id === 'portico-sp'
        ? {}
        : { published_private_key_pem: keys.demoSp.privateKeyPem, certificate_pem: keys.demoSp.certificatePem }),
    })),
  };
}

export function samlDemoRoutes(app: FastifyInstance, saml: SamlPart): void {
  app.get('/saml/demo/sps', { schema: { summary: 'The published demo SAML SPs', tags: ['saml'] } }, () =>
    publishedServiceProviders(saml),
  );
  app.get(
    '/saml/demo/sps/:id/metadata',
    {
      schema: {
        summary: 'A demo SP’s metadata',
        tags: ['saml'],
        params: { type: 'object', properties: { id: str(64) } },
      },
    },
    async (request, reply) => {
      const { serviceProviders } = await saml.services();
      const sp = serviceProviders.find((s) => s.id === (request.params as { id: string }).id);
      if (!sp) throw notFound('No such demo SP');
      return reply.type('application/samlmetadata+xml').send(sp.metadata);
    },
  );

  // A demo SP's ACS on this origin: what the IdP sent, decoded, for a person trying a demo SP in a browser.
  app.post(
    '/saml/demo/acs',
    {
      schema: {
        summary: 'The demo SPs’ ACS on this origin: the Response received, decoded (HTML)',
        tags: ['saml'],
        body: formBody({ SAMLResponse: str(400_000), RelayState: str(80) }, ['SAMLResponse']),
      },
    },
    async (request, reply) => {
      const { SAMLResponse, RelayState } = request.body as { SAMLResponse: string; RelayState?: string };
      const decoded = await saml.decode({ message: SAMLResponse });
      return sendAuthPage(request, reply, 200, {
        title: 'What the IdP sent',
        blocks: [
          { kind: 'heading', level: 1, text: 'What the IdP sent to the demo SP' },
          {
            kind: 'paragraph',
            inlines: [
              'A demo SP consumes nothing: this page shows the ',
              { code: decoded.message },
              RelayState !== undefined ? ` (RelayState ${RelayState})` : '',
              ' as the looking glass reads it. Decode any message at ',
              { code: 'POST /api/lookingglass/decode/saml' },
              '.',
            ],
          },
          {
            kind: 'code',
            lang: 'json',
            text: JSON.stringify(
              { signatures: decoded.signatures, decrypted_assertion: decoded.decrypted_assertion },
              null,
              2,
            ),
          },
          { kind: 'code', lang: 'xml', text: decoded.xml },
        ],
      });
    },
  );
}
