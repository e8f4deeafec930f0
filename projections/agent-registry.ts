import type { AgentEvent } from '../machines/agent.ts';
import { sql, type CommittedEvent, type Dialect, type SqlStatement } from './types.ts';
import { eventsOfStreams, ReadModel } from './read-model.ts';

export type AgentStanding = 'unclaimed' | 'claiming' | 'claimed' | 'revoked';

export interface AgentRow {
  agent_id: string;
  claim_token_hash: string;
  standing: AgentStanding;
  user_code_hash: string | null;
  owner_email: string | null;
  registered_at: number;
  claimed_at: number | null;
  revoked_at: number | null;
}

const COLUMNS =
  'agent_id, claim_token_hash, standing, user_code_hash, owner_email, registered_at, claimed_at, revoked_at';

/** Agents by id, by claim-token hash and by outstanding user-code hash. */
export class AgentRegistry extends ReadModel {
  readonly name = 'agent_registry';
  readonly tables = ['agent_registry'];

  schema(dialect: Dialect): string[] {
    return [
      `CREATE TABLE IF NOT EXISTS agent_registry (
        agent_id         TEXT PRIMARY KEY,
        claim_token_hash TEXT NOT NULL UNIQUE,
        standing         TEXT NOT NULL,
        user_code_hash   TEXT,
        pending_email    TEXT,
        owner_email      TEXT,
        registered_at    BIGINT NOT NULL,
        claimed_at       BIGINT,
        revoked_at       BIGINT
      )${dialect === 'sqlite' ? ' WITHOUT ROWID' : ''}`,
      'DROP INDEX IF EXISTS agent_registry_user_code',
      // Only agents with an outstanding code are indexed, so a registration does not touch this index.
      'CREATE INDEX IF NOT EXISTS agent_registry_pending_code ON agent_registry (user_code_hash) WHERE user_code_hash IS NOT NULL',
    ];
  }

  apply(events: readonly CommittedEvent[]): SqlStatement[] {
    const out: SqlStatement[] = [];
    for (const [agentId, committed] of eventsOfStreams(events, 'agent')) {
      const e = { ...committed.data, type: committed.type, at: committed.at } as AgentEvent;
      switch (e.type) {
        case 'agent.registered':
          out.push(
            sql(
              'INSERT INTO agent_registry (agent_id, claim_token_hash, standing, registered_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
              agentId,
              e.claimTokenHash,
              'unclaimed',
              e.at,
            ),
          );
          break;
        case 'agent.claim_started':
          out.push(
            sql(
              "UPDATE agent_registry SET standing = 'claiming', user_code_hash = ?, pending_email = ? WHERE agent_id = ?",
              e.userCodeHash,
              e.email,
              agentId,
            ),
          );
          break;
        case 'agent.claim_polled':
          if (e.assertion)
            out.push(
              sql(
                "UPDATE agent_registry SET standing = 'claimed', user_code_hash = NULL, owner_email = pending_email, pending_email = NULL, claimed_at = ? WHERE agent_id = ?",
                e.at,
                agentId,
              ),
            );
          break;
        case 'agent.revoked':
          out.push(
            sql(
              "UPDATE agent_registry SET standing = 'revoked', user_code_hash = NULL, revoked_at = ? WHERE agent_id = ?",
              e.at,
              agentId,
            ),
          );
          break;
      }
    }
    return out;
  }

  byId(agentId: string): Promise<AgentRow | undefined> {
    return this.read.get<AgentRow>(`SELECT ${COLUMNS} FROM agent_registry WHERE agent_id = ?`, [agentId]);
  }

  byClaimTokenHash(hash: string): Promise<AgentRow | undefined> {
    return this.read.get<AgentRow>(`SELECT ${COLUMNS} FROM agent_registry WHERE claim_token_hash = ?`, [hash]);
  }

  byUserCodeHash(hash: string): Promise<AgentRow | undefined> {
    return this.read.get<AgentRow>(`SELECT ${COLUMNS} FROM agent_registry WHERE user_code_hash = ?`, [hash]);
  }

  async counts(): Promise<Record<AgentStanding, number>> {
    const out: Record<AgentStanding, number> = { unclaimed: 0, claiming: 0, claimed: 0, revoked: 0 };
    for (const row of await this.read.all<{ standing: AgentStanding; n: number }>(
      'SELECT standing, count(*) AS n FROM agent_registry GROUP BY standing',
    ))
      out[row.standing] = Number(row.n);
    return out;
  }
}
