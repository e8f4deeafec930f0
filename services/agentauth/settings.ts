/** Names and URLs of the agentic registration server, derived from the origin and the vendor. */
export interface AgentAuthSettings {
  /** `{base}/agentauth`: issuer and audience of identity assertions. */
  issuer: string;
  /** `{base}`: audience of agent access tokens. */
  resourceAudience: string;
  claimGrantType: string;
  revocationEventUri: string;
}

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const ASSERTION_LIFETIME_S = 600;
export const ACCESS_TOKEN_LIFETIME_S = 3600;

export function agentAuthSettings(baseUrl: string, vendor: string): AgentAuthSettings {
  return {
    issuer: `${baseUrl}/agentauth`,
    resourceAudience: baseUrl,
    claimGrantType: `urn:${vendor}:agent-auth:grant-type:claim`,
    revocationEventUri: `https://schemas.${vendor}.com/events/agent/auth/identity/assertion/revoked`,
  };
}
