import { randomUUID } from 'node:crypto';
import { ActorRuntime, type Loaded } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { EventLog } from '../event-log.ts';
import type { ScimResources } from '../../projections/scim-resources.ts';
import {
  scimAgentMachine,
  scimGroupMachine,
  scimUserMachine,
  type ScimLiveState,
  type ScimResourceEvent,
  type ScimResourceMachine,
  scimResourceStates,
} from '../../machines/scim-resource.ts';
import { scimError } from './errors.ts';
import { readResource, type Document } from './input.ts';
import { applyPatch, readPatchRequest } from './patch.ts';
import { page, type ListQuery, type Page } from './query.ts';
import { render, storedOf, type Neighbours, type StoredResource } from './render.ts';
import { RESOURCE_TYPES, resourceTypeNamed, type ResourceType } from './resource-types.ts';
import { select, type Selection } from './selection.ts';
import { SEED } from './seed.ts';
import { ScimTenants } from './tenants.ts';
import { checkReferences } from './references.ts';
import { preconditionHolds } from './versions.ts';
import {
  linkAgent,
  linkedAgentId,
  refuseChangeOfLinked,
  withAgentStanding,
  type AgentDirectory,
} from './agent-links.ts';

type Machine = ScimResourceMachine;
/** Each resource type's machine: one lifecycle, published per type (`/api/machines`). */
const MACHINE_OF = { User: scimUserMachine, Group: scimGroupMachine, Agent: scimAgentMachine };
/** How many resources of one type a tenant holds at most (a sandbox, shared by everyone). */
const MAX_PER_TYPE = 500;
const ID = /^[A-Za-z0-9-]{1,64}$/;
/** The tenant register's kind for AgentAuth agents linked to an Agent: each once per tenant. */
const AGENT_LINK = 'AgentAuthLink';

/**
 * The SCIM 2.0 service provider (RFC 7643, RFC 7644, RFC 9865), one tenant per OAuth client. Each
 * resource is a `scim-<type>:<tenant>:<id>` actor; lists read the `scim_resources` read model.
 */
export class ScimService {
  readonly tenants: ScimTenants;
  private readonly runtimes: ReadonlyMap<ResourceType, ActorRuntime<Machine>>;

  constructor(
    log: EventLog,
    private readonly clock: Clock,
    private readonly index: ScimResources,
    /** `{base}/scim/v2`: resource locations start here. */
    readonly base: string,
    /** `/agentauth`'s agents, which an Agent may mirror (agent-links.ts). */
    private readonly agents: AgentDirectory,
  ) {
    this.tenants = new ScimTenants(log, clock);
    this.runtimes = new Map(RESOURCE_TYPES.map((t) => [t, ActorRuntime.of(log, MACHINE_OF[t.name], t.streamPrefix)]));
  }

  /** The tenant's first call adds the demo data, once however many instances share the log. */
  async ready(tenant: string): Promise<void> {
    if (!(await this.tenants.claimSeeding(tenant))) return;
    const ids = new Map<string, string>();
    for (const seed of SEED) {
      const type = resourceTypeNamed(seed.type)!;
      const refs = (seed.memberKeys ?? []).map((key) => ({ value: ids.get(key)! }));
      const body = {
        ...seed.body,
        ...(type.name === 'Group' ? { members: refs } : {}),
        ...(type.name === 'Agent' ? { owners: refs.map((r) => ({ ...r, type: 'User' })) } : {}),
      };
      const created = await this.create(tenant, type, body);
      ids.set(seed.key, created.id);
    }
  }

  /** RFC 7644 §3.3: 201 with the resource; its unique name taken first (409 `uniqueness` when held). */
  async create(tenant: string, type: ResourceType, body: unknown): Promise<StoredResource> {
    const id = randomUUID();
    const doc =
      type.name === 'Agent' ? await linkAgent(this.agents, readResource(type, body, id)) : readResource(type, body, id);
    await checkReferences(this, tenant, type, doc);
    if ((await this.index.count(tenant, type.name)) >= MAX_PER_TYPE)
      throw scimError(403, `A tenant holds at most ${MAX_PER_TYPE} ${type.name} resources here; delete some first`);
    const name = uniqueName(type, doc);
    const agentId = linkedAgentId(doc);
    const claimed: Array<[kind: string, key: string]> = [];
    try {
      if (name !== undefined) {
        await this.tenants.claim(tenant, type, name, id);
        claimed.push([type.name, name]);
      }
      if (agentId) {
        await this.tenants.claimKey(
          tenant,
          AGENT_LINK,
          agentId,
          id,
          `Agent ${agentId} is linked already in this tenant`,
        );
        claimed.push([AGENT_LINK, agentId]);
      }
      const outcome = await this.runtime(type).create(`${tenant}:${id}`, {
        type: 'scim.created',
        at: this.clock.now(),
        resource: doc,
      });
      if (!outcome.accepted) throw scimError(409, 'The resource could not be created; try again');
      return this.storedOf(type, id, outcome);
    } catch (error) {
      // What this create took is given back: a refused create leaves no name held.
      for (const [kind, key] of claimed) await this.tenants.release(tenant, kind, key, id);
      throw error;
    }
  }

  /** RFC 7644 §3.4.1: one resource, or 404. */
  async get(tenant: string, type: ResourceType, id: string): Promise<StoredResource> {
    if (!ID.test(id)) throw notFound(type, id);
    const loaded = await this.runtime(type).get(`${tenant}:${id}`);
    if (!isLive(loaded)) throw notFound(type, id);
    return this.storedOf(type, id, loaded);
  }

  /** RFC 7644 §3.5.1: the whole resource replaced (readOnly attributes ignored, immutable ones kept). */
  replace(tenant: string, type: ResourceType, id: string, body: unknown, ifMatch?: string): Promise<StoredResource> {
    return this.change(tenant, type, id, ifMatch, async () => {
      const doc = readResource(type, body, id);
      await checkReferences(this, tenant, type, doc);
      return { type: 'scim.replaced', resource: doc };
    });
  }

  /** RFC 7644 §3.5.2: the operations applied in order, all or none. */
  patch(tenant: string, type: ResourceType, id: string, body: unknown, ifMatch?: string): Promise<StoredResource> {
    const operations = readPatchRequest(body);
    return this.change(tenant, type, id, ifMatch, async (current) => {
      const doc = applyPatch(type, current, operations);
      await checkReferences(this, tenant, type, doc);
      return { type: 'scim.patched', resource: doc, operations };
    });
  }

  /** RFC 7644 §3.6: the resource is gone (204); its unique name is free again. */
  async remove(tenant: string, type: ResourceType, id: string, ifMatch?: string): Promise<void> {
    if (!ID.test(id)) throw notFound(type, id);
    let gone: Document | undefined;
    await this.runtime(type).execute(`${tenant}:${id}`, (current) => {
      if (!isLive(current)) throw notFound(type, id);
      if (!preconditionHolds(ifMatch, current.version)) throw stale(current.version);
      gone = current.snapshot.context.resource!;
      return { type: 'scim.deleted', at: this.clock.now(), resource: gone };
    });
    const name = gone && uniqueName(type, gone);
    if (name !== undefined) await this.tenants.release(tenant, type.name, name, id);
    // A linked Agent's DELETE revokes the agent at /agentauth, as its claim token would.
    const agentId = gone && linkedAgentId(gone);
    if (agentId) {
      await this.agents.revoke(agentId);
      await this.tenants.release(tenant, AGENT_LINK, agentId, id);
    }
  }

  private async change(
    tenant: string,
    type: ResourceType,
    id: string,
    ifMatch: string | undefined,
    decide: (
      current: Document,
    ) => Promise<
      | { type: 'scim.replaced'; resource: Document }
      | { type: 'scim.patched'; resource: Document; operations: unknown[] }
    >,
  ): Promise<StoredResource> {
    if (!ID.test(id)) throw notFound(type, id);
    let names: [before: string | undefined, after: string | undefined] = [undefined, undefined];
    const outcome = await this.runtime(type).execute(`${tenant}:${id}`, async (current) => {
      if (!isLive(current)) throw notFound(type, id);
      if (!preconditionHolds(ifMatch, current.version)) throw stale(current.version);
      const before = current.snapshot.context.resource!;
      refuseChangeOfLinked(before);
      const decided = await decide(before);
      names = [uniqueName(type, before), uniqueName(type, decided.resource)];
      if (names[1] !== undefined && names[1].toLowerCase() !== names[0]?.toLowerCase())
        await this.tenants.claim(tenant, type, names[1], id);
      const from = current.snapshot.value as ScimLiveState;
      return { ...decided, at: this.clock.now(), from } as ScimResourceEvent;
    });
    if (!outcome.accepted) throw scimError(409, 'The change was refused; read the resource and try again');
    const [before, after] = names;
    if (before !== undefined && before.toLowerCase() !== after?.toLowerCase())
      await this.tenants.release(tenant, type.name, before, id);
    return this.storedOf(type, id, outcome);
  }

  /** RFC 7644 §3.4.2: a page of one type's resources, or (type undefined, `POST /.search` at the root) of all. */
  async list(tenant: string, type: ResourceType | undefined, query: ListQuery): Promise<Page> {
    const around = await this.neighbours(tenant);
    const types = type ? [type] : RESOURCE_TYPES;
    const stored = [];
    for (const t of types)
      stored.push(
        ...(t.name === 'User'
          ? around.users
          : t.name === 'Group'
            ? around.groups
            : (await this.index.ofTenant(tenant, t.name)).map(storedOf)),
      );
    const rendered = (await Promise.all(stored.map((r) => this.withStanding(r)))).map((r) =>
      render(this.base, r, around),
    );
    const typeOf = (r: Document) => resourceTypeNamed((r.meta as { resourceType: string }).resourceType)!;
    const result = page(type, rendered, query, typeOf);
    return { ...result, items: result.items.map((r) => select(typeOf(r), r, query)) };
  }

  /** A resource as answered, with the selection of RFC 7644 §3.9 applied. */
  async rendered(tenant: string, resource: StoredResource, selection: Selection = {}): Promise<Document> {
    const shown = render(this.base, await this.withStanding(resource), await this.neighbours(tenant));
    return select(resource.type, shown, selection);
  }

  /** A linked Agent with its agent's standing now (agent-links.ts); any other resource as it is. */
  private async withStanding(r: StoredResource): Promise<StoredResource> {
    return r.type.name === 'Agent' ? { ...r, doc: await withAgentStanding(this.agents, r.doc) } : r;
  }

  private async neighbours(tenant: string): Promise<Neighbours> {
    const [users, groups] = await Promise.all([
      this.index.ofTenant(tenant, 'User'),
      this.index.ofTenant(tenant, 'Group'),
    ]);
    return { users: users.map(storedOf), groups: groups.map(storedOf) };
  }

  /** Whether a live resource of `type` has this id in the tenant (member and owner references). */
  async exists(tenant: string, type: ResourceType, id: string): Promise<boolean> {
    return ID.test(id) && isLive(await this.runtime(type).get(`${tenant}:${id}`));
  }

  private runtime(type: ResourceType): ActorRuntime<Machine> {
    return this.runtimes.get(type)!;
  }

  private storedOf(type: ResourceType, id: string, loaded: Loaded<Machine>): StoredResource {
    const c = loaded.snapshot.context;
    return { type, id, version: loaded.version, created: c.created!, lastModified: c.lastModified!, doc: c.resource! };
  }
}

const isLive = (loaded: Loaded<Machine>) => scimResourceStates.live(loaded.snapshot);
const uniqueName = (type: ResourceType, doc: Document) =>
  type.unique && typeof doc[type.unique] === 'string' ? (doc[type.unique] as string) : undefined;
const notFound = (type: ResourceType, id: string) => scimError(404, `No ${type.name} ${id} in this tenant`);
const stale = (version: number) =>
  scimError(412, `If-Match names another version; the resource is at W/"${version}" (RFC 7644 §3.14)`);
