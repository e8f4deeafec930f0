import type Database from 'better-sqlite3';
import { EventEmitter } from 'eventemitter3';
import type { CommittedEvent, Projection } from './types.ts';

export interface RevocationEntry {
  /** The log sequence of the revocation; also the SSE event id. */
  sequence: number;
  jti: string;
  agent_id: string;
  at: number;
}

/**
 * The ordered feed of agent revocations from which Security Event Tokens are delivered. Each entry's
 * `jti` is derived from its log position, so a rebuild yields the same identifiers.
 */
export class RevocationFeed implements Projection {
  readonly name = 'revocation_feed';
  readonly added = new EventEmitter<{ entry: (entry: RevocationEntry) => void }>();
  private statements?: ReturnType<RevocationFeed['prepare']>;

  setup(db: Database.Database): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS revocation_feed (
        sequence INTEGER PRIMARY KEY,
        jti      TEXT NOT NULL UNIQUE,
        agent_id TEXT NOT NULL,
        at       INTEGER NOT NULL
      );
    `);
    this.statements = this.prepare(db);
  }

  drop(db: Database.Database): void {
    db.exec('DROP TABLE IF EXISTS revocation_feed');
  }

  private prepare(db: Database.Database) {
    return {
      insert: db.prepare('INSERT OR IGNORE INTO revocation_feed (sequence, jti, agent_id, at) VALUES (?, ?, ?, ?)'),
      after: db.prepare<[number, number], RevocationEntry>('SELECT * FROM revocation_feed WHERE sequence > ? ORDER BY sequence LIMIT ?'),
      byJti: db.prepare<[string], RevocationEntry>('SELECT * FROM revocation_feed WHERE jti = ?'),
    };
  }

  apply(events: readonly CommittedEvent[]): boolean {
    let changed = false;
    for (const e of events) {
      if (e.type !== 'agent.revoked') continue;
      changed = true;
      const entry: RevocationEntry = { sequence: e.sequence, jti: `set-${e.sequence}`, agent_id: e.streamId.slice('agent:'.length), at: e.at };
      this.statements!.insert.run(entry.sequence, entry.jti, entry.agent_id, entry.at);
      queueMicrotask(() => this.added.emit('entry', entry)); // listeners see it only after the commit
    }
    return changed;
  }

  after(sequence: number, limit = 100): RevocationEntry[] {
    return this.statements!.after.all(sequence, limit);
  }

  byJti(jti: string): RevocationEntry | undefined {
    return this.statements!.byJti.get(jti);
  }
}
