/**
 * Correlation of one exchange across origins (docs/debugging.md): the wallet names its exchange stream
 * on every request, and the issuer or verifier names its own stream on the answer. Only stream ids
 * travel, never a secret; the one receiving a name records it on its own stream once.
 */

/** Request header: the wallet's stream of this exchange (`wallet-exchange:<id>`). */
export const EXCHANGE_HEADER = 'x-portico-exchange';
/** Response header: the issuer's or verifier's stream that answered (`issuance:<id>`, `presentation:<id>`). */
export const STREAM_HEADER = 'x-portico-stream';

const WALLET_EXCHANGE = /^wallet-exchange:[A-Za-z0-9_-]{1,100}$/;
const PEER_STREAM = /^(issuance|presentation):[A-Za-z0-9_-]{1,100}$/;

/** The wallet exchange a request names, when the header holds exactly one well-formed stream id. */
export const walletExchangeOf = (header: unknown): string | undefined =>
  typeof header === 'string' && WALLET_EXCHANGE.test(header) ? header : undefined;

/** The issuer's or verifier's stream an answer names, when well formed. */
export const peerStreamOf = (header: unknown): string | undefined =>
  typeof header === 'string' && PEER_STREAM.test(header) ? header : undefined;
