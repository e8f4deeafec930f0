import { JWT_BEARER_GRANT, type AgentAuthSettings } from './settings.ts';

/** The `agent_auth` block carried by the agentauth and origin authorization-server metadata. */
export function agentAuthBlock(s: AgentAuthSettings, baseUrl: string) {
  return {
    skill: `${baseUrl}/.well-known/agent-skills/register-agent/SKILL.md`,
    identity_endpoint: `${s.issuer}/identity`,
    claim_endpoint: `${s.issuer}/identity/claim`,
    verification_uri: `${s.issuer}/claim`,
    token_endpoint: `${s.issuer}/token`,
    revocation_endpoint: `${s.issuer}/revoke`,
    events_endpoint: `${s.issuer}/events`,
    events_poll_endpoint: `${s.issuer}/events/poll`,
    grant_types_supported: [JWT_BEARER_GRANT, s.claimGrantType],
    identity_types_supported: ['anonymous'],
    scopes_before_claim: ['agent:read'],
    scopes_after_claim: ['agent:read', 'agent:write'],
    events_supported: [s.revocationEventUri],
  };
}

/** RFC 8414 metadata of the agentic registration server, at /.well-known/oauth-authorization-server/agentauth. */
export function agentAuthMetadata(s: AgentAuthSettings, baseUrl: string) {
  return {
    issuer: s.issuer,
    token_endpoint: `${s.issuer}/token`,
    revocation_endpoint: `${s.issuer}/revoke`,
    jwks_uri: `${s.issuer}/jwks`,
    grant_types_supported: [JWT_BEARER_GRANT, s.claimGrantType],
    response_types_supported: [],
    scopes_supported: ['agent:read', 'agent:write'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    service_documentation: `${baseUrl}/auth.md`,
    agent_auth: agentAuthBlock(s, baseUrl),
  };
}
