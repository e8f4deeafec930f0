import { bearerToken } from '../../services/oauth/authorization-header.ts';
import { cookieValue } from './cookies.ts';

/** The cookie that carries a run's token to the browser's requests (its page, forms, HAR, diff). */
const cookieName = (runId: string) => `portico_run_${runId}`;

/**
 * Set with the 303 to a run's page when the run has a token (step mode, or a targeted run): the
 * browser then proves it on every page of the run, the diff and the HAR download, without JavaScript.
 */
export function runTokenCookie(runId: string, runToken: string): string {
  return `${cookieName(runId)}=${runToken}; Path=/; HttpOnly; SameSite=Strict; Max-Age=3600`;
}

/** The run tokens a request shows for run `runId`: its Bearer token and the run's cookie. */
export function runTokensOf(headers: { authorization?: string; cookie?: string }, runId: string): string[] {
  const tokens: string[] = [];
  const bearer = bearerToken(headers.authorization);
  if (bearer) tokens.push(bearer);
  const cookie = cookieValue(headers.cookie, cookieName(runId));
  if (cookie) tokens.push(cookie);
  return tokens;
}

/** The run token of a browser's form post: the run's cookie, as a Bearer authorization. */
export function cookieAuthorization(cookie: string | undefined, runId: string): string | undefined {
  const token = cookieValue(cookie, cookieName(runId));
  return token ? `Bearer ${token}` : undefined;
}
