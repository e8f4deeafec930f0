import type { FastifyReply, FastifyRequest } from 'fastify';
import { invalidRequest } from '../../../services/errors.ts';
import type { WalletSession } from '../../../services/wallet/sessions.ts';
import type { WalletContext } from './context.ts';
import { cookieValue } from '../cookies.ts';

const SESSION_HEADER = 'x-wallet-session';
const SESSION_COOKIE = 'wallet_session';

/** The session id a request names: `X-Wallet-Session`, else the `wallet_session` cookie (400 when the header is sent twice). */
export function requestedSessionId(request: FastifyRequest): string | undefined {
  const header = request.headers[SESSION_HEADER];
  if (Array.isArray(header)) throw invalidRequest('Send X-Wallet-Session once');
  const requested = header ?? cookieValue(request.headers.cookie, SESSION_COOKIE);
  return requested === '' ? undefined : requested;
}

/**
 * The request's session (decisions section 10): `X-Wallet-Session`, else the `wallet_session` cookie,
 * else minted. The id is echoed on the response; a minted one is also set as a cookie for TTL seconds.
 */
export async function requestSession(
  ctx: WalletContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<WalletSession> {
  const { session, minted } = await ctx.sessions.resolve(requestedSessionId(request));
  reply.header(SESSION_HEADER, session.id);
  if (minted)
    reply.header(
      'set-cookie',
      `${SESSION_COOKIE}=${session.id}; Path=/; Max-Age=${Math.floor(ctx.settings.sessionTtlMs / 1000)}; HttpOnly; SameSite=Lax`,
    );
  return session;
}
