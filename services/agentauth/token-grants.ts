import { invalidRequest } from '../errors.ts';
import { GrantTable, type TokenForm } from '../oauth/token/grant-table.ts';
import type { AgentAuthService } from './service.ts';
import { JWT_BEARER_GRANT } from './settings.ts';

type AgentGrantHandler = (agentAuth: AgentAuthService, form: TokenForm) => ReturnType<AgentAuthService['pollClaim']>;

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

/** AgentAuth's grant table (the claim grant's type is configured), built once per service. */
export function agentGrantTable(agentAuth: AgentAuthService) {
  const grants = new GrantTable<AgentGrantHandler>([
    [JWT_BEARER_GRANT, jwtBearerGrant],
    [agentAuth.settings.claimGrantType, claimGrant],
  ]);
  /** `POST /agentauth/token`. */
  return (form: TokenForm) => grants.handlerFor(grants.grantTypeOf(form))(agentAuth, form);
}
