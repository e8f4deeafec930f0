import type { Clock } from '../clock.ts';
import { bearerToken } from '../oauth/authorization-header.ts';
import type { StreamReader } from '../streams/readers.ts';
import type { AgentTokens } from './tokens.ts';

/** Who may read `agent:<id>`: that agent, with its own access token (any other caller is answered 404). */
export function agentStreamReader(tokens: AgentTokens, clock: Clock): StreamReader {
  return async (agentId, { authorization }) => {
    const token = bearerToken(authorization);
    const claims = token ? await tokens.verifyAccessToken(token, clock.now()) : undefined;
    return claims?.sub === agentId ? {} : undefined;
  };
}
