import type { FastifyInstance } from 'fastify';
import type { MainContext } from '../main/context.ts';
import { samlIdpRoutes } from './idp-routes.ts';
import { samlSpRoutes } from './sp-routes.ts';
import { samlDemoRoutes } from './demo-routes.ts';
import { samlLogoutRoutes } from './logout-routes.ts';
import { samlIdpPage } from './idp-page.ts';
import { samlRegistrationRoute } from './registration-route.ts';

/** SAML 2.0 (docs/saml.md): the IdP at `{base}/saml/idp`, our SP at `{base}/saml/sp`, the demo SPs. */
export async function samlRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  samlIdpRoutes(app, ctx.saml, ctx.oauth.users);
  samlSpRoutes(app, ctx.saml);
  samlDemoRoutes(app, ctx.saml);
  samlLogoutRoutes(app, ctx.saml);
  samlIdpPage(app, ctx.saml);
  samlRegistrationRoute(app, ctx);
}
