import type { Config } from '../../config.ts';
import type { Clock } from '../../../services/clock.ts';
import type { EventLog } from '../../../services/event-log.ts';
import type { ScimResources } from '../../../projections/scim-resources.ts';
import type { ResourceRequest } from '../../../services/oauth/resource-guard.ts';
import { ScimService } from '../../../services/scim/service.ts';
import { tenantOf } from '../../../services/scim/tenants.ts';
import type { StreamReaders } from '../../../services/streams/readers.ts';
import type { OAuthPart } from './graph-oauth.ts';
import type { AgentRegistry } from '../../../projections/agent-registry.ts';
import type { AgentAuthService } from '../../../services/agentauth/service.ts';

/** The SCIM 2.0 service provider (docs/scim.md): its service and the tenant of a call. */
export interface ScimPart {
  service: ScimService;
  /**
   * The caller's tenant: an access token of `{base}/oauth2` with scope `scim` (through the resource
   * guard), its client the tenant, seeded with the demo data on first use.
   */
  tenant(call: ResourceRequest): Promise<string>;
}

export function buildScim(
  config: Config,
  shared: {
    log: EventLog;
    clock: Clock;
    resources: ScimResources;
    oauth: OAuthPart;
    streamReaders: StreamReaders;
    /** `/agentauth`'s registry and service: the agents an Agent may mirror. */
    agents: { registry: AgentRegistry; service: AgentAuthService };
  },
): ScimPart {
  const { registry, service: agentAuth } = shared.agents;
  const service = new ScimService(shared.log, shared.clock, shared.resources, `${config.baseUrl}/scim/v2`, {
    byClaimTokenHash: (hash) => registry.byClaimTokenHash(hash),
    byId: (id) => registry.byId(id),
    revoke: (id) => agentAuth.revokeAgent(id),
  });
  const guard = shared.oauth.guard({
    scope: 'scim',
    say: { missing: `An access token of ${config.baseUrl}/oauth2 with scope scim is required` },
  });
  // A SCIM stream is read by its tenant: an access token with scope scim of the client it belongs to.
  const tenantReader = async (id: string, credentials: { authorization?: string }) => {
    const admitted = await guard
      .admit({ authorization: credentials.authorization, method: 'GET', url: `${config.baseUrl}/scim/v2/Users` })
      .catch(() => undefined);
    return admitted && id.startsWith(`${tenantOf(admitted.claims.client_id)}:`) ? {} : undefined;
  };
  for (const kind of ['scim-user', 'scim-group', 'scim-agent']) shared.streamReaders.register(kind, tenantReader);
  shared.streamReaders.register('scim-tenant', async (id, credentials) => tenantReader(`${id}:`, credentials));
  const tenant = async (call: ResourceRequest) => {
    const admitted = await guard.admit(call);
    const name = tenantOf(admitted.claims.client_id);
    await service.ready(name);
    return name;
  };
  return { service, tenant };
}
