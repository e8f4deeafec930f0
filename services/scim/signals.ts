import { RISC } from '../ssf/event-types.ts';
import type { StoredEvent } from '../event-log.ts';

/** The SCIM facts of the log that are signalled through Shared Signals (docs/scim.md). */
export const SCIM_SIGNALLED = ['scim.replaced', 'scim.patched', 'scim.deleted'] as const;

export interface ScimSignal {
  eventType: string;
  /** The user by email, with its `scim` resource as another name of it. */
  subject: Record<string, unknown>;
  aliases: Record<string, unknown>[];
}

type Doc = Record<string, unknown>;

/** A user's address for signals: its primary email, else its first. */
function emailOf(resource: Doc): string | undefined {
  const emails = Array.isArray(resource.emails) ? (resource.emails as Doc[]) : [];
  const chosen = emails.find((e) => e.primary === true) ?? emails[0];
  return typeof chosen?.value === 'string' ? chosen.value : undefined;
}

/**
 * What a committed change of a `scim-user:` stream means for Shared Signals (RISC 1.0 §2.2-2.4):
 * `active` turned false is account-disabled, turned true again account-enabled, a deletion
 * account-purged. Groups and agents, and changes that leave `active` as it was, signal nothing.
 */
export function scimSignalOf(e: StoredEvent, scimBase: string): ScimSignal | undefined {
  if (!e.streamId.startsWith('scim-user:')) return undefined;
  const resource = e.data.resource as Doc | undefined;
  if (!resource || typeof resource.id !== 'string') return undefined;
  const nowInactive = resource.active === false;
  const from = e.data.from;
  const name =
    e.type === 'scim.deleted'
      ? 'account-purged'
      : from === 'active' && nowInactive
        ? 'account-disabled'
        : from === 'inactive' && !nowInactive
          ? 'account-enabled'
          : undefined;
  if (!name) return undefined;
  const scim = { format: 'scim', uri: `${scimBase}/Users/${resource.id}` };
  const email = emailOf(resource);
  return email
    ? { eventType: `${RISC}${name}`, subject: { format: 'email', email }, aliases: [scim] }
    : { eventType: `${RISC}${name}`, subject: scim, aliases: [] };
}
