import type { FastifyInstance } from 'fastify';
import type { SamlPart } from '../main/graph-saml.ts';
import { formBody, str } from '../oauth/schemas.ts';
import { OAuthError, oauthError } from '../../../services/errors.ts';
import { readPostValue, readRedirect, RedirectRefused } from '../../../services/saml/redirect-binding.ts';
import { XmlRefused } from '../../../services/saml/xml.ts';
import { sendPostForm } from './post-form.ts';

const METADATA_TYPE = 'application/samlmetadata+xml';

/** The ACS's refusal: the OAuth-style error contract, with the SAML check that caught it. */
function refusal(check: string, reason: string, checks: string[]): OAuthError {
  const error = oauthError('access_denied', reason);
  error.extra = { check, checks_passed: checks };
  return error;
}

/** Our SAML SP at `{base}/saml/sp` (docs/saml.md): metadata, login start, and the ACS over HTTP-POST. */
export function samlSpRoutes(app: FastifyInstance, saml: SamlPart): void {
  app.get(
    '/saml/sp/metadata',
    { schema: { summary: 'Our SP metadata, signed (SAML metadata §2.4.4)', tags: ['saml'] } },
    async (_request, reply) => reply.type(METADATA_TYPE).send((await saml.services()).spMetadata),
  );

  app.get(
    '/saml/sp/login',
    {
      schema: {
        summary: 'Start a login at our IdP: a signed AuthnRequest over HTTP-Redirect or HTTP-POST',
        tags: ['saml'],
        querystring: {
          type: 'object',
          properties: {
            binding: { type: 'string', enum: ['redirect', 'post'] },
            RelayState: str(80),
            force_authn: { type: 'string', enum: ['true', 'false'] },
            is_passive: { type: 'string', enum: ['true', 'false'] },
            nameid_format: str(200),
            authn_context: str(200),
            idp_metadata_url: str(500),
          },
        },
      },
    },
    async (request, reply) => {
      const q = request.query as Record<string, string | undefined>;
      const { sp, ourIdp } = await saml.services();
      const idp = q.idp_metadata_url ? await saml.foreignIdp(q.idp_metadata_url) : ourIdp;
      const start = await sp.startLogin(idp, {
        // Another IdP is sent the request over HTTP-Redirect, the binding its metadata was required to offer.
        binding: q.binding === 'post' && !q.idp_metadata_url ? 'post' : 'redirect',
        ...(q.RelayState !== undefined ? { relayState: q.RelayState } : {}),
        forceAuthn: q.force_authn === 'true',
        isPassive: q.is_passive === 'true',
        ...(q.nameid_format ? { nameIdFormat: q.nameid_format } : {}),
        ...(q.authn_context ? { authnContext: q.authn_context } : {}),
      });
      if (start.kind === 'redirect') return reply.header('cache-control', 'no-store').redirect(start.url, 303);
      return sendPostForm(reply, start);
    },
  );

  // Single logout at our SP (HTTP-Redirect): what arrives is read with the same bounds as everywhere
  // (a DEFLATE bomb is refused when the bound is reached). Logout propagation is not served yet.
  app.get(
    '/saml/sp/slo',
    { schema: { summary: 'Single logout at our SP, HTTP-Redirect (SAML bindings §3.4)', tags: ['saml'] } },
    async (request) => {
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
      try {
        readRedirect(query);
      } catch (error) {
        if (error instanceof XmlRefused || error instanceof RedirectRefused)
          throw refusal(error.check, error.message, []);
        throw error;
      }
      throw oauthError('invalid_request', 'Single logout is not served at this SP yet');
    },
  );

  app.post(
    '/saml/sp/acs',
    {
      schema: {
        summary: 'Assertion Consumer Service, HTTP-POST (SAML profiles §4.1.4.3): every check named',
        tags: ['saml'],
        body: formBody({ SAMLResponse: str(400_000), RelayState: str(80) }, ['SAMLResponse']),
      },
    },
    async (request, reply) => {
      const body = request.body as { SAMLResponse: string; RelayState?: string };
      const { sp, ourIdp } = await saml.services();
      let xml: string;
      try {
        xml = readPostValue(body.SAMLResponse);
      } catch (error) {
        if (error instanceof XmlRefused) throw refusal(error.check, error.message, []);
        throw error;
      }
      const idp = await sp.trustFor(xml, ourIdp);
      const result = await sp.consume(xml, idp);
      if (!result.ok) throw refusal(result.check, result.reason, result.checks);
      return reply.header('cache-control', 'no-store').send({
        signed_in: true,
        idp: idp.entityId,
        name_id: result.nameId,
        name_id_format: result.nameIdFormat,
        ...(result.sessionIndex ? { session_index: result.sessionIndex } : {}),
        attributes: result.attributes,
        ...(result.inResponseTo ? { in_response_to: result.inResponseTo } : {}),
        ...(body.RelayState !== undefined ? { relay_state: body.RelayState } : {}),
        checks_passed: result.checks,
        stream: `saml-login:${result.inResponseTo ?? result.assertionId}`,
      });
    },
  );
}
