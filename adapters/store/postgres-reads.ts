import type pg from 'pg';
import type { SnapshotRecord, StoredEvent } from '../../services/event-log.ts';

export interface EventRow {
  sequence: string;
  stream_id: string;
  version: number;
  type: string;
  data: Record<string, unknown>;
  at: string;
}

export const toStored = (r: EventRow): StoredEvent => ({
  sequence: Number(r.sequence),
  streamId: r.stream_id,
  version: r.version,
  type: r.type,
  data: r.data,
  at: Number(r.at),
});

/** Checkpoints of `names` (0 for one never saved), on the transaction's own connection. */
export async function storedPositions(client: pg.ClientBase, names: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await client.query<{ name: string; sequence: string }>(
    'SELECT name, sequence FROM checkpoints WHERE name = ANY($1)',
    [names],
  );
  const positions = new Map(names.map((name) => [name, 0]));
  for (const r of rows) positions.set(r.name, Number(r.sequence));
  return positions;
}

/** The read side of the PostgreSQL event log: streams, the whole log in order, snapshots and checkpoints. */
export abstract class PostgresEventReads {
  abstract query<R extends pg.QueryResultRow>(text: string, params?: unknown[]): Promise<pg.QueryResult<R>>;

  async readStream(streamId: string, afterVersion = 0): Promise<StoredEvent[]> {
    const { rows } = await this.query<EventRow>(
      'SELECT * FROM events WHERE stream_id = $1 AND version > $2 ORDER BY version',
      [streamId, afterVersion],
    );
    return rows.map(toStored);
  }

  async readAll(afterSequence: number, limit: number): Promise<StoredEvent[]> {
    const { rows } = await this.query<EventRow>('SELECT * FROM events WHERE sequence > $1 ORDER BY sequence LIMIT $2', [
      afterSequence,
      limit,
    ]);
    return rows.map(toStored);
  }

  async streamVersion(streamId: string): Promise<number> {
    return (
      (await this.query<{ v: number | null }>('SELECT max(version) AS v FROM events WHERE stream_id = $1', [streamId]))
        .rows[0].v ?? 0
    );
  }

  async headSequence(): Promise<number> {
    return Number((await this.query<{ s: string }>('SELECT coalesce(max(sequence), 0) AS s FROM events')).rows[0].s);
  }

  async loadSnapshot(streamId: string): Promise<SnapshotRecord | undefined> {
    const row = (
      await this.query<{ version: number; state: unknown }>(
        'SELECT version, state FROM snapshots WHERE stream_id = $1',
        [streamId],
      )
    ).rows[0];
    return row && { streamId, version: row.version, state: row.state };
  }

  async streamIds(prefix = ''): Promise<string[]> {
    // A range, not LIKE: the prefix may hold % or _; COLLATE "C" orders by code point like SQLite.
    const { rows } = await this.query<{ stream_id: string }>(
      'SELECT DISTINCT stream_id FROM events WHERE stream_id COLLATE "C" >= $1 AND stream_id COLLATE "C" < $2 ORDER BY 1',
      [prefix, `${prefix}\u{10FFFF}`],
    );
    return rows.map((r) => r.stream_id);
  }

  async checkpoint(name: string): Promise<number> {
    const row = (await this.query<{ sequence: string }>('SELECT sequence FROM checkpoints WHERE name = $1', [name]))
      .rows[0];
    return row ? Number(row.sequence) : 0;
  }

  async saveCheckpoint(name: string, sequence: number): Promise<void> {
    await this.query(
      'INSERT INTO checkpoints (name, sequence) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET sequence = excluded.sequence',
      [name, sequence],
    );
  }
}
