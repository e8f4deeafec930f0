import { EventEmitter } from 'eventemitter3';
import { sql, type CommittedEvent, type SqlStatement } from './types.ts';
import { ReadModel } from './read-model.ts';

export interface RevocationEntry {
  /** The log sequence of the revocation; also the SSE event id. */
  sequence: number;
  jti: string;
  agent_id: string;
  at: number;
}

const entryOf = (e: CommittedEvent): RevocationEntry => ({
  sequence: e.sequence,
  jti: `set-${e.sequence}`,
  agent_id: e.streamId.slice('agent:'.length),
  at: e.at,
});

/**
 * The ordered feed of agent revocations from which Security Event Tokens are delivered. Each entry's
 * `jti` is derived from its log position, so a rebuild yields the same identifiers. Live listeners
 * hear of an entry only once it is committed.
 */
export class RevocationFeed extends ReadModel {
  readonly name = 'revocation_feed';
  readonly tables = ['revocation_feed'];
  readonly added = new EventEmitter<{ entry: (entry: RevocationEntry) => void }>();

  schema(): string[] {
    return [
      'CREATE TABLE IF NOT EXISTS revocation_feed (sequence BIGINT PRIMARY KEY, jti TEXT NOT NULL UNIQUE, agent_id TEXT NOT NULL, at BIGINT NOT NULL)',
    ];
  }

  apply(events: readonly CommittedEvent[]): SqlStatement[] {
    return events
      .filter((e) => e.type === 'agent.revoked')
      .map(entryOf)
      .map((entry) =>
        sql(
          'INSERT INTO revocation_feed (sequence, jti, agent_id, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
          entry.sequence,
          entry.jti,
          entry.agent_id,
          entry.at,
        ),
      );
  }

  committed(events: readonly CommittedEvent[]): void {
    for (const e of events) if (e.type === 'agent.revoked') this.added.emit('entry', entryOf(e));
  }

  async after(sequence: number, limit = 100): Promise<RevocationEntry[]> {
    const rows = await this.read.all<RevocationEntry>(
      'SELECT sequence, jti, agent_id, at FROM revocation_feed WHERE sequence > ? ORDER BY sequence LIMIT ?',
      [sequence, limit],
    );
    return rows.map((r) => ({ ...r, sequence: Number(r.sequence), at: Number(r.at) }));
  }

  byJti(jti: string): Promise<RevocationEntry | undefined> {
    return this.read.get<RevocationEntry>('SELECT sequence, jti, agent_id, at FROM revocation_feed WHERE jti = ?', [
      jti,
    ]);
  }
}
