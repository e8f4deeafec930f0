import type { FastifyReply, FastifyRequest } from 'fastify';
import { cookieValue } from './cookies.ts';
import { isLoopbackHost } from '../../services/loopback.ts';

/**
 * The cookie of the one sign-in session (services/sessions/sign-in-sessions.ts), read by the OpenID
 * Provider and the SAML IdP alike, so its path is the origin's root. SameSite=None because the SAML
 * HTTP-POST binding arrives from another site's form; that demands Secure (browsers treat a loopback
 * origin as secure, so development over http works).
 */
const SIGN_IN_COOKIE = 'portico_session';
const ATTRIBUTES = 'Path=/; HttpOnly; SameSite=None; Secure';

export const signInCookieOf = (request: FastifyRequest) => cookieValue(request.headers.cookie, SIGN_IN_COOKIE);

export const setSignInCookie = (reply: FastifyReply, value: string) =>
  reply.header('set-cookie', `${SIGN_IN_COOKIE}=${value}; ${ATTRIBUTES}`);

export const clearSignInCookie = (reply: FastifyReply) =>
  reply.header('set-cookie', `${SIGN_IN_COOKIE}=; ${ATTRIBUTES}; Max-Age=0`);

/**
 * Whether a password posted here crosses no network in the clear (PasswordProtectedTransport,
 * saml-authn-context §3.4.20): the deployment is served over TLS, or it is a loopback development origin.
 */
export const overTls = (request: FastifyRequest, base: string) =>
  base.startsWith('https:') || request.protocol === 'https' || isLoopbackHost(new URL(base).hostname);
