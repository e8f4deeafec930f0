import { sha256 } from '../crypto/random.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { EventLog } from '../event-log.ts';
import { scimTenantMachine, scimTenantStates } from '../../machines/scim-tenant.ts';
import { scimError } from './errors.ts';
import type { ResourceType } from './resource-types.ts';

/**
 * The tenants of the service provider: one per OAuth client (RFC 7644 §6 leaves tenancy to the
 * service provider). A client id that is not a plain name becomes a hash, since stream ids use `:`.
 */
export function tenantOf(clientId: string): string {
  if (/^[A-Za-z0-9._-]{1,64}$/.test(clientId)) return clientId;
  return `h-${sha256(clientId).slice(0, 22)}`;
}

/** The key a unique name is registered by: RFC 7643 §2.1 compares it case-insensitively. */
const keyOf = (name: string) => name.toLowerCase();

/** Seeding once and the register of unique names, through each tenant's `scim-tenant:` stream. */
export class ScimTenants {
  readonly actors: ActorRuntime<typeof scimTenantMachine>;

  constructor(
    log: EventLog,
    private readonly clock: Clock,
  ) {
    this.actors = ActorRuntime.of(log, scimTenantMachine, 'scim-tenant');
  }

  /** True for the one call that gets to seed the tenant (its seed event accepted). */
  async claimSeeding(tenant: string): Promise<boolean> {
    const current = await this.actors.get(tenant);
    if (!scimTenantStates.empty(current.snapshot)) return false;
    const outcome = await this.actors.execute(tenant, { type: 'scim.tenant_seeded', at: this.clock.now() });
    return outcome.accepted;
  }

  /** Takes `name` for resource `id`, or 409 `uniqueness` when another resource holds it. */
  claim(tenant: string, type: ResourceType, name: string, id: string): Promise<void> {
    const refusal = `${type.unique} "${name}" is taken in this tenant (case-insensitively)`;
    return this.claimKey(tenant, type.name, name, id, refusal);
  }

  /** Takes a key of a kind of unique value (a name, an agent linked once) for resource `id`, or 409 `uniqueness`. */
  async claimKey(tenant: string, kind: string, key: string, id: string, refusal: string): Promise<void> {
    const event = { type: 'scim.name_claimed' as const, at: this.clock.now(), resourceType: kind, key: keyOf(key), id };
    const outcome = await this.actors.execute(tenant, event);
    if (!outcome.accepted) throw scimError(409, refusal, 'uniqueness');
  }

  /** Gives a name (or a key of another kind) back; one the resource does not hold stays as it is. */
  async release(tenant: string, kind: string, name: string, id: string): Promise<void> {
    await this.actors.execute(tenant, {
      type: 'scim.name_released',
      at: this.clock.now(),
      resourceType: kind,
      key: keyOf(name),
      id,
    });
  }
}
