import { invalidRequest } from '../errors.ts';
import { TokenEndpoint, type GrantHandler } from '../oauth/token/endpoint.ts';
import { GrantTable, type TokenForm } from '../oauth/token/grant-table.ts';
import type { AgentAuthService } from './service.ts';
import { JWT_BEARER_GRANT } from './settings.ts';

type AgentTokenResponse = Awaited<ReturnType<AgentAuthService['pollClaim']>>;
type AgentGrantHandler = GrantHandler<AgentAuthService, AgentTokenResponse>;

/** RFC 7523 §2.1: the agent's identity assertion, exchanged for an access token. */
const jwtBearerGrant: AgentGrantHandler = (agentAuth, form) => {
  if (!form.assertion) throw invalidRequest('assertion is required for the jwt-bearer grant');
  return agentAuth.redeemAssertion(form.assertion);
};

/** The claim grant (RFC 8628 §3.4 polling): the agent asks whether its person approved the claim. */
const claimGrant: AgentGrantHandler = (agentAuth, form) => {
  if (!form.claim_token) throw invalidRequest('claim_token is required for the claim grant');
  return agentAuth.pollClaim(form.claim_token);
};

/**
 * `POST /agentauth/token`: the core's TokenEndpoint configured for AgentAuth, built once per service.
 * The grant's assertion or claim token is the agent's authentication, so there is no client to
 * authenticate and no DPoP proof; the claim grant's type is configured.
 */
export function agentTokenEndpoint(agentAuth: AgentAuthService) {
  const endpoint = new TokenEndpoint<void, void, AgentAuthService, AgentTokenResponse>({
    grants: new GrantTable<AgentGrantHandler>([
      [JWT_BEARER_GRANT, jwtBearerGrant],
      [agentAuth.settings.claimGrantType, claimGrant],
    ]),
    authenticateClient: async () => undefined,
    checkProof: async () => undefined,
    context: () => agentAuth,
  });
  return (form: TokenForm) => endpoint.handle(form, undefined);
}
