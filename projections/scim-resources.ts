import { sql, type CommittedEvent, type SqlStatement } from './types.ts';
import { ReadModel } from './read-model.ts';

/** A SCIM resource as the read model keeps it: its stream's latest document, version and times. */
export interface ScimRow {
  stream_id: string;
  tenant: string;
  resource_type: string;
  id: string;
  version: number;
  created: number;
  last_modified: number;
  data: string;
}

const PREFIXES: Readonly<Record<string, string>> = {
  'scim-user': 'User',
  'scim-group': 'Group',
  'scim-agent': 'Agent',
};

/** `scim-<type>:<tenant>:<id>` split, or undefined for any other stream. */
function streamParts(streamId: string): { type: string; tenant: string; id: string } | undefined {
  const [prefix, tenant, id, ...rest] = streamId.split(':');
  const type = Object.hasOwn(PREFIXES, prefix) ? PREFIXES[prefix] : undefined;
  return type && tenant && id && rest.length === 0 ? { type, tenant, id } : undefined;
}

/**
 * The live SCIM resources of every tenant (RFC 7644 §3.4.2 queries read them), folded from the
 * `scim-user:`, `scim-group:` and `scim-agent:` streams; a deleted resource leaves the table.
 */
export class ScimResources extends ReadModel {
  readonly name = 'scim_resources';
  readonly tables = ['scim_resources'];

  schema(): string[] {
    return [
      `CREATE TABLE IF NOT EXISTS scim_resources (
        stream_id     TEXT PRIMARY KEY,
        tenant        TEXT NOT NULL,
        resource_type TEXT NOT NULL,
        id            TEXT NOT NULL,
        version       BIGINT NOT NULL,
        created       BIGINT NOT NULL,
        last_modified BIGINT NOT NULL,
        data          TEXT NOT NULL
      )`,
      'CREATE INDEX IF NOT EXISTS scim_resources_tenant ON scim_resources (tenant, resource_type, created)',
    ];
  }

  apply(events: readonly CommittedEvent[]): SqlStatement[] {
    const out: SqlStatement[] = [];
    for (const e of events) {
      if (!e.streamId.startsWith('scim-')) continue;
      const parts = streamParts(e.streamId);
      if (!parts) continue;
      if (e.type === 'scim.deleted') out.push(sql('DELETE FROM scim_resources WHERE stream_id = ?', e.streamId));
      else if (e.type === 'scim.created')
        out.push(
          sql(
            'INSERT INTO scim_resources (stream_id, tenant, resource_type, id, version, created, last_modified, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
            e.streamId,
            parts.tenant,
            parts.type,
            parts.id,
            e.version,
            e.at,
            e.at,
            JSON.stringify(e.data.resource),
          ),
        );
      else if (e.type === 'scim.replaced' || e.type === 'scim.patched')
        out.push(
          sql(
            'UPDATE scim_resources SET version = ?, last_modified = ?, data = ? WHERE stream_id = ?',
            e.version,
            e.at,
            JSON.stringify(e.data.resource),
            e.streamId,
          ),
        );
    }
    return out;
  }

  /** Every live resource of one type in a tenant, oldest first. */
  ofTenant(tenant: string, resourceType: string): Promise<ScimRow[]> {
    return this.read.all<ScimRow>(
      'SELECT * FROM scim_resources WHERE tenant = ? AND resource_type = ? ORDER BY created, id',
      [tenant, resourceType],
    );
  }

  /** How many live resources of one type a tenant holds. */
  async count(tenant: string, resourceType: string): Promise<number> {
    const row = await this.read.get<{ n: number | string }>(
      'SELECT COUNT(*) AS n FROM scim_resources WHERE tenant = ? AND resource_type = ?',
      [tenant, resourceType],
    );
    return Number(row?.n ?? 0);
  }
}
