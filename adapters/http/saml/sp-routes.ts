import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { cookieValue } from '../cookies.ts';
import { randomToken, sha256 } from '../../../services/crypto/random.ts';
import { spSessionCookie, type SpLogoutOutcome } from '../../../services/saml/sp/logout.ts';
import type { SamlSp } from '../../../services/saml/sp/service.ts';
import type { SamlPart } from '../main/graph-saml.ts';
import { formBody, str } from '../oauth/schemas.ts';
import { OAuthError, oauthError } from '../../../services/errors.ts';
import { sendPostForm } from './post-form.ts';
import { overPost, overRedirect, type Received } from './received.ts';

const METADATA_TYPE = 'application/samlmetadata+xml';

/** `{base}/runs/callback` with what the ACS found: the checks passed, and the one that refused, if any. */
function runCallback(base: string, state: string, result: Awaited<ReturnType<SamlSp['consume']>>): string {
  const url = new URL(`${base}/runs/callback`);
  url.searchParams.set('state', state);
  url.searchParams.set('saml', result.ok ? 'signed_in' : 'refused');
  url.searchParams.set('checks', result.checks.join(' '));
  if (result.ok) url.searchParams.set('name_id', result.nameId);
  else {
    url.searchParams.set('check', result.check);
    url.searchParams.set('reason', result.reason);
  }
  return url.href;
}
const SP_COOKIE = 'portico_saml_sp';

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
            return_to: { type: 'string', enum: ['run'] },
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
        ...(q.return_to === 'run' ? { returnToRun: true } : {}),
      });
      if (start.kind === 'redirect') return reply.header('cache-control', 'no-store').redirect(start.url, 303);
      return sendPostForm(reply, start);
    },
  );

  // Single logout at our SP (SAML profiles §4.4) over both bindings; what arrives is read with the same
  // bounds as everywhere (a DEFLATE bomb is refused when the bound is reached).
  const sendLogout = (reply: FastifyReply, outcome: SpLogoutOutcome) => {
    if (outcome.kind === 'error') throw refusal(outcome.check, outcome.reason, []);
    if (outcome.endSession)
      reply.header('set-cookie', `${SP_COOKIE}=; Path=/saml/sp; HttpOnly; SameSite=None; Secure; Max-Age=0`);
    if (outcome.kind === 'redirect') return reply.header('cache-control', 'no-store').redirect(outcome.url, 303);
    if (outcome.kind === 'post') return sendPostForm(reply, outcome);
    return reply
      .header('cache-control', 'no-store')
      .send({ logged_out: true, partial: outcome.partial, status: outcome.status });
  };
  const spCookie = (request: FastifyRequest) => cookieValue(request.headers.cookie, SP_COOKIE);
  const receiveLogout = async (request: FastifyRequest, reply: FastifyReply, received: Received) => {
    if ('refused' in received) throw refusal(received.refused.check, received.refused.reason, []);
    return sendLogout(reply, await (await saml.services()).spLogout.receive(received, spCookie(request)));
  };
  app.get(
    '/saml/sp/slo',
    { schema: { summary: 'Single logout at our SP, HTTP-Redirect (SAML bindings §3.4)', tags: ['saml'] } },
    async (request, reply) => receiveLogout(request, reply, overRedirect(request)),
  );
  app.post(
    '/saml/sp/slo',
    {
      schema: {
        summary: 'Single logout at our SP, HTTP-POST (SAML bindings §3.5)',
        tags: ['saml'],
        body: formBody({ SAMLRequest: str(400_000), SAMLResponse: str(400_000), RelayState: str(80) }),
      },
    },
    async (request, reply) => receiveLogout(request, reply, overPost(request.body as Parameters<typeof overPost>[0])),
  );
  app.get(
    '/saml/sp/logout',
    {
      schema: {
        summary: 'Sign out at our SP: a signed LogoutRequest to the IdP (SAML profiles §4.4.3.1)',
        tags: ['saml'],
      },
    },
    async (request, reply) => sendLogout(reply, await (await saml.services()).spLogout.start(spCookie(request))),
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
      const received = overPost({ SAMLResponse: body.SAMLResponse });
      if ('refused' in received) throw refusal(received.refused.check, received.refused.reason, []);
      const { xml } = received;
      const idp = await sp.trustFor(xml, ourIdp);
      // The SP's own session: a cookie naming the login's stream and a secret only its hash is kept of.
      const secret = randomToken(24);
      const result = await sp.consume(xml, idp, sha256(secret));
      // A flow run waits for this login (saml/web-sso against your IdP): the browser goes back to it with the verdict.
      if (body.RelayState !== undefined && (await sp.returnsToRun(result.inResponseTo)))
        return reply.redirect(runCallback(saml.base, body.RelayState, result), 303);
      if (!result.ok) throw refusal(result.check, result.reason, result.checks);
      const stream = result.inResponseTo ?? result.assertionId;
      reply.header(
        'set-cookie',
        `${SP_COOKIE}=${spSessionCookie(stream, secret)}; Path=/saml/sp; HttpOnly; SameSite=None; Secure`,
      );
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
        stream: `saml-login:${stream}`,
      });
    },
  );
}
