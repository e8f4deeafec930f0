import type { FastifyRequest } from 'fastify';
import type { WalletContext } from './context.ts';
import { requestOrigin } from './origin.ts';

/** Errors of the exchange routes carry more than the two OAuth members (`_protocol_exchanges`, `tx_code`, `check`, `upstream_status`). */
export const exchangeErrorResponse = {
  type: 'object',
  required: ['error'],
  additionalProperties: true,
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
};
export const resultResponse = { type: 'object', additionalProperties: true };

/** Where the app lives for this request (`/`, or `/wallet-harness/` behind the main origin). */
export const appPath = (ctx: WalletContext, request: FastifyRequest) =>
  `${new URL(requestOrigin(ctx, request)).pathname.replace(/\/$/, '')}/`;
