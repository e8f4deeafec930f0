import type Database from 'better-sqlite3';
import type { AgentEvent } from '../machines/agent.ts';
import type { CommittedEvent, Projection } from './types.ts';

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

/** Agents by id, by claim-token hash and by outstanding user-code hash. */
export class AgentRegistry implements Projection {
  readonly name = 'agent_registry';
  private statements?: ReturnType<AgentRegistry['prepare']>;

  setup(db: Database.Database): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS agent_registry (
        agent_id         TEXT PRIMARY KEY,
        claim_token_hash TEXT NOT NULL UNIQUE,
        standing         TEXT NOT NULL,
        user_code_hash   TEXT,
        pending_email    TEXT,
        owner_email      TEXT,
        registered_at    INTEGER NOT NULL,
        claimed_at       INTEGER,
        revoked_at       INTEGER
      ) WITHOUT ROWID;
      DROP INDEX IF EXISTS agent_registry_user_code;
      -- Only agents with an outstanding code are indexed, so a registration does not touch this index.
      CREATE INDEX IF NOT EXISTS agent_registry_pending_code ON agent_registry (user_code_hash) WHERE user_code_hash IS NOT NULL;
    `);
    this.statements = this.prepare(db);
  }

  drop(db: Database.Database): void {
    db.exec('DROP TABLE IF EXISTS agent_registry');
  }

  private prepare(db: Database.Database) {
    return {
      insert: db.prepare('INSERT OR IGNORE INTO agent_registry (agent_id, claim_token_hash, standing, registered_at) VALUES (?, ?, ?, ?)'),
      claimStarted: db.prepare("UPDATE agent_registry SET standing = 'claiming', user_code_hash = ?, pending_email = ? WHERE agent_id = ?"),
      claimed: db.prepare(
        "UPDATE agent_registry SET standing = 'claimed', user_code_hash = NULL, owner_email = pending_email, pending_email = NULL, claimed_at = ? WHERE agent_id = ?",
      ),
      revoked: db.prepare("UPDATE agent_registry SET standing = 'revoked', user_code_hash = NULL, revoked_at = ? WHERE agent_id = ?"),
      byId: db.prepare<[string], AgentRow>('SELECT * FROM agent_registry WHERE agent_id = ?'),
      byClaimToken: db.prepare<[string], AgentRow>('SELECT * FROM agent_registry WHERE claim_token_hash = ?'),
      byUserCode: db.prepare<[string], AgentRow>('SELECT * FROM agent_registry WHERE user_code_hash = ?'),
      count: db.prepare<[], { standing: AgentStanding; n: number }>('SELECT standing, count(*) AS n FROM agent_registry GROUP BY standing'),
    };
  }

  apply(events: readonly CommittedEvent[]): boolean {
    const s = this.statements!;
    let changed = false;
    for (const committed of events) {
      if (!committed.streamId.startsWith('agent:')) continue;
      changed = true;
      const agentId = committed.streamId.slice('agent:'.length);
      const e = { ...committed.data, type: committed.type, at: committed.at } as AgentEvent;
      switch (e.type) {
        case 'agent.registered':
          s.insert.run(agentId, e.claimTokenHash, 'unclaimed', e.at);
          break;
        case 'agent.claim_started':
          s.claimStarted.run(e.userCodeHash, e.email, agentId);
          break;
        case 'agent.claim_polled':
          if (e.assertion) s.claimed.run(e.at, agentId);
          break;
        case 'agent.revoked':
          s.revoked.run(e.at, agentId);
          break;
      }
    }
    return changed;
  }

  byId(agentId: string): AgentRow | undefined {
    return this.statements!.byId.get(agentId);
  }

  byClaimTokenHash(hash: string): AgentRow | undefined {
    return this.statements!.byClaimToken.get(hash);
  }

  byUserCodeHash(hash: string): AgentRow | undefined {
    return this.statements!.byUserCode.get(hash);
  }

  counts(): Record<AgentStanding, number> {
    const out: Record<AgentStanding, number> = { unclaimed: 0, claiming: 0, claimed: 0, revoked: 0 };
    for (const row of this.statements!.count.all()) out[row.standing] = row.n;
    return out;
  }
}
