import type { FastifyRequest } from 'fastify';
import type { WalletContext } from './context.ts';

const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const PREFIX = /^(?:\/[A-Za-z0-9._~-]+)+$/;
const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.split(',')[0].trim();

/**
 * The origin (with path prefix) a client used to reach the wallet: behind the main origin's
 * `/wallet-harness/` forward, X-Forwarded-Proto/Host/Prefix say it, believed only from loopback or
 * TRUST_PROXY peers; otherwise the Host header. Anything malformed falls back to WALLET_URL.
 */
export function requestOrigin(ctx: WalletContext, request: FastifyRequest): string {
  const fallback = ctx.config.walletUrl;
  const forwarded = ctx.trustsForwarding(request.socket.remoteAddress);
  const proto =
    (forwarded && first(request.headers['x-forwarded-proto'])) || new URL(fallback).protocol.replace(':', '');
  const host = (forwarded && first(request.headers['x-forwarded-host'])) || request.headers.host;
  const prefix = (forwarded && first(request.headers['x-forwarded-prefix'])) || '';
  if ((proto !== 'http' && proto !== 'https') || !host || !HOST.test(host) || (prefix && !PREFIX.test(prefix)))
    return fallback;
  return `${proto}://${host}${prefix}`;
}
