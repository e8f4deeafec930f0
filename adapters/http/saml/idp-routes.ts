import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { samlExchangeStates } from '../../../machines/saml-exchange.ts';
import type { SamlPart } from '../main/graph-saml.ts';
import { loginPage, sendAuthPage } from '../oauth/pages.ts';
import { formBody, str } from '../oauth/schemas.ts';
import type { DemoUser } from '../../../services/oauth/demo-users.ts';
import { samlErrorPage, sendSsoOutcome } from './post-form.ts';
import { overTls, signInCookieOf } from '../sign-in-cookie.ts';
import { overPost, overRedirect, type Received } from './received.ts';

const METADATA_TYPE = 'application/samlmetadata+xml';
const LOGIN = '/saml/idp/login';

/** The SAML IdP at `{base}/saml/idp` (docs/saml.md): metadata, SSO over both bindings, the login page. */
export function samlIdpRoutes(app: FastifyInstance, saml: SamlPart, users: DemoUser[]): void {
  const base = saml.base;
  app.get(
    '/saml/idp/metadata',
    { schema: { summary: 'The IdP metadata, signed (SAML metadata §2.4.3)', tags: ['saml'] } },
    async (_request, reply) => reply.type(METADATA_TYPE).send((await saml.services()).idpMetadata),
  );

  const receive = async (request: FastifyRequest, reply: FastifyReply, received: Received) => {
    if ('refused' in received || received.kind !== 'SAMLRequest') {
      const { check, reason } =
        'refused' in received
          ? received.refused
          : { check: 'request_shape', reason: 'The SSO endpoint takes a SAMLRequest' };
      await (await saml.services()).idp.refusedUnread(check, reason);
      return sendAuthPage(request, reply, 400, samlErrorPage(check, reason));
    }
    const outcome = await (
      await saml.services()
    ).idp.receive(received, signInCookieOf(request), overTls(request, base));
    return sendSsoOutcome(request, reply, outcome, LOGIN);
  };

  app.get(
    '/saml/idp/sso',
    { schema: { summary: 'Single sign-on, HTTP-Redirect binding (SAML bindings §3.4)', tags: ['saml'] } },
    (request, reply) => receive(request, reply, overRedirect(request)),
  );

  app.post(
    '/saml/idp/sso',
    {
      schema: {
        summary: 'Single sign-on, HTTP-POST binding (SAML bindings §3.5)',
        tags: ['saml'],
        body: formBody({ SAMLRequest: str(400_000), RelayState: str(80) }, ['SAMLRequest']),
      },
    },
    (request, reply) => receive(request, reply, overPost(request.body as Parameters<typeof overPost>[0])),
  );

  const pendingParams = { type: 'object', required: ['id'], properties: { id: str(64) } };
  const loginOf = async (id: string, error?: string) => {
    const { idp, serviceProviders } = await saml.services();
    const { snapshot } = await idp.authn.get(id);
    const request = samlExchangeStates.awaitingAnswer(snapshot) ? snapshot.context.request : undefined;
    if (!request) return undefined;
    const sp = serviceProviders.find((s) => s.entityId === request.sp);
    return loginPage(`${LOGIN}/${id}`, { client_id: request.sp, client_name: sp?.name ?? request.sp }, users, error);
  };
  const expired = samlErrorPage(
    'request_state',
    'This sign-in has expired or already finished',
    'This SAML sign-in cannot continue',
  );
  app.get(
    LOGIN + '/:id',
    { schema: { summary: 'The sign-in page of a SAML request (HTML)', tags: ['saml'], params: pendingParams } },
    async (request, reply) => {
      const page = await loginOf((request.params as { id: string }).id);
      return sendAuthPage(request, reply, page ? 200 : 400, page ?? expired);
    },
  );
  app.post(
    LOGIN + '/:id',
    {
      schema: {
        summary: 'Sign in as a demo user for a SAML request (form post)',
        tags: ['saml'],
        params: pendingParams,
        body: formBody({ username: str(100), password: str(200) }),
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const { username = '', password = '' } = (request.body ?? {}) as { username?: string; password?: string };
      const { idp } = await saml.services();
      const outcome = await idp.login(id, username, password, signInCookieOf(request), overTls(request, base));
      if (outcome) return sendSsoOutcome(request, reply, outcome, LOGIN);
      const page = await loginOf(id, 'Unknown user or wrong password.');
      return sendAuthPage(request, reply, 400, page ?? expired);
    },
  );

  app.post(
    '/saml/idp/initiate',
    {
      schema: {
        summary: 'IdP-initiated single sign-on to a demo SP (SAML profiles §4.1.5)',
        tags: ['saml'],
        body: formBody({ sp: str(300), RelayState: str(80) }, ['sp']),
      },
    },
    async (request, reply) => {
      const { idp, serviceProviders } = await saml.services();
      const body = request.body as { sp: string; RelayState?: string };
      const sp = serviceProviders.find((s) => s.id === body.sp || s.entityId === body.sp);
      if (!sp)
        return sendAuthPage(
          request,
          reply,
          400,
          samlErrorPage('issuer_known', `No demo SP ${body.sp} (see /saml/demo/sps)`),
        );
      const outcome = await idp.unsolicited(sp, signInCookieOf(request), overTls(request, base), body.RelayState);
      return sendSsoOutcome(request, reply, outcome, LOGIN);
    },
  );
}
