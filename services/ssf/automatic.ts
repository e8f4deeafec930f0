import type { EventLog, StoredEvent } from '../event-log.ts';
import { CAEP } from './event-types.ts';
import type { SsfEmitter, SsfEvent } from './emit.ts';
import { SCIM_SIGNALLED, scimSignalOf } from '../scim/signals.ts';

const SESSION_REVOKED = `${CAEP}session-revoked`;
const CREDENTIAL_CHANGE = `${CAEP}credential-change`;
/** Where the automatic signals have read the log up to (a running service keeps it near the head). */
export const AUTOMATIC_SIGNALS_CHECKPOINT = 'ssf_automatic';
const CHECKPOINT = AUTOMATIC_SIGNALS_CHECKPOINT;
/** The facts that are signalled; a commit with none of them costs the follower nothing. */
const SIGNALLED = new Set<string>([
  'agent.revoked',
  'refresh.revoked',
  'refresh.reused',
  'credential.status_changed',
  ...SCIM_SIGNALLED,
]);
const BATCH = 1_000;

/** Where the facts come from: the issuers named in their subjects. */
export interface AutomaticSources {
  /** `{base}/agentauth`: the issuer of agent identities. */
  agentIssuer: string;
  /** `{base}/scim/v2`: where SCIM users are (their `scim` subjects). */
  scimBase: string;
  /** A credential's status list URI, `{base}/oid4vci/status-lists/{list_id}`. */
  statusListUri(listId: string): string;
  /** The first event of a stream (a refresh family's grant names its user). */
  firstEvent(streamId: string): Promise<StoredEvent | undefined>;
  /**
   * The SET's `txn` (RFC 8417 §2.2) for a stream: opaque, stable per stream, so SETs about one
   * transaction correlate without naming it (an offer id must reach nobody but its creator).
   */
  transactionOf(streamId: string): string;
}

/**
 * The SSF event a committed log event means, if any (docs/ssf.md):
 * - an agent identity revoked: CAEP session-revoked about the agent (`iss_sub`);
 * - a refresh-token family revoked (RFC 7009, or reuse detected): CAEP session-revoked about its user;
 * - a credential's status changed: CAEP credential-change (`verifiable-credential`), about the
 *   credential's status list entry, to every stream that delivers it;
 * - a SCIM user disabled, enabled again or deleted: RISC account-disabled, -enabled or -purged, about
 *   its email or its `scim` resource (services/scim/signals.ts).
 */
async function automaticEvent(e: StoredEvent, sources: AutomaticSources): Promise<SsfEvent | undefined> {
  const timestamp = Math.floor(e.at / 1000);
  const scim = scimSignalOf(e, sources.scimBase);
  if (scim)
    return {
      eventType: scim.eventType,
      subject: scim.subject,
      aliases: scim.aliases,
      // RISC bodies carry no timestamp (RISC 1.0 §2): the SET's own time says when.
      body: {},
      txn: sources.transactionOf(e.streamId),
    };
  if (e.type === 'agent.revoked')
    return {
      eventType: SESSION_REVOKED,
      subject: { format: 'iss_sub', iss: sources.agentIssuer, sub: e.streamId.slice('agent:'.length) },
      body: { event_timestamp: timestamp, initiating_entity: 'user' },
      txn: sources.transactionOf(e.streamId),
    };
  if (e.type === 'refresh.revoked' || e.type === 'refresh.reused') {
    const grant = (await sources.firstEvent(e.streamId))?.data;
    if (typeof grant?.issuer !== 'string' || typeof grant.sub !== 'string') return undefined;
    return {
      eventType: SESSION_REVOKED,
      subject: { format: 'iss_sub', iss: grant.issuer, sub: grant.sub },
      body: {
        event_timestamp: timestamp,
        initiating_entity: e.type === 'refresh.reused' ? 'policy' : 'user',
        reason_admin: {
          en:
            e.type === 'refresh.reused'
              ? 'Refresh token reuse detected (RFC 9700 §4.14.2)'
              : 'Refresh token revoked (RFC 7009)',
        },
      },
      txn: sources.transactionOf(e.streamId),
    };
  }
  if (e.type === 'credential.status_changed' && typeof e.data.list_id === 'string')
    return {
      eventType: CREDENTIAL_CHANGE,
      subject: { format: 'uri', uri: `${sources.statusListUri(e.data.list_id)}#${String(e.data.idx)}` },
      body: {
        event_timestamp: timestamp,
        credential_type: 'verifiable-credential',
        change_type: e.data.status === 'revoked' ? 'revoke' : 'update',
        initiating_entity: 'admin',
      },
      txn: sources.transactionOf(e.streamId),
      anySubject: true,
    };
  return undefined;
}

/**
 * Follows the log from a checkpoint and emits the automatic SSF events, so a fact committed just
 * before a crash is still signalled after the restart. It reads the log only when a commit holds a
 * signalled fact (and once at start), so other commits cost it nothing. Each SET's `jti` comes from the fact's log
 * position: instances sharing a log (each follows every commit) queue it once per stream.
 */
export class AutomaticSignals {
  private chain: Promise<void> = Promise.resolve();
  private unsubscribe?: () => void;

  constructor(
    private readonly log: EventLog,
    private readonly emitter: SsfEmitter,
    private readonly sources: AutomaticSources,
  ) {}

  async start(): Promise<void> {
    this.unsubscribe = this.log.onCommit((events) => {
      if (events.some((e) => SIGNALLED.has(e.type))) this.schedule();
    });
    this.schedule();
    await this.chain;
  }

  stop(): Promise<void> {
    this.unsubscribe?.();
    return this.chain;
  }

  private schedule(): void {
    this.chain = this.chain.then(() => this.catchUp()).catch(() => undefined);
  }

  private async catchUp(): Promise<void> {
    for (;;) {
      const after = await this.log.checkpoint(CHECKPOINT);
      const batch = await this.log.readAll(after, BATCH);
      if (batch.length === 0) return;
      for (const e of batch) {
        const event = await automaticEvent(e, this.sources);
        if (event) await this.emitter.emit({ ...event, jtiSeed: `e${e.sequence}`, happenedAt: e.at });
      }
      await this.log.saveCheckpoint(CHECKPOINT, batch[batch.length - 1].sequence);
      if (batch.length < BATCH) return;
    }
  }
}
