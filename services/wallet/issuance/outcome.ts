import { OAuthError } from '../../errors.ts';
import type { ExchangeRecorder } from '../exchange.ts';

/** The error code an exchange's record keeps for a failure. */
export const errorToken = (error: unknown) => (error instanceof OAuthError ? error.error : 'server_error');

/** The caller still sees the hops of a failed exchange: step, method, URL and status, never upstream bytes. */
export function withExchanges(error: unknown, recorder: ExchangeRecorder): unknown {
  if (error instanceof OAuthError) error.extra = { ...error.extra, ...recorder.failureView() };
  return error;
}
