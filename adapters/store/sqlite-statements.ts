import type Database from 'better-sqlite3';
import type { StoredEvent } from '../../services/event-log.ts';

export interface EventRow {
  sequence: number;
  stream_id: string;
  version: number;
  type: string;
  data: string;
  at: number;
}

export const toStored = (r: EventRow): StoredEvent => ({
  sequence: r.sequence,
  streamId: r.stream_id,
  version: r.version,
  type: r.type,
  data: JSON.parse(r.data) as Record<string, unknown>,
  at: r.at,
});

/** The SQLite event log's statements, prepared once. */
export function prepareEventStatements(db: Database.Database) {
  return {
    version: db.prepare<[string], { v: number | null }>('SELECT max(version) AS v FROM events WHERE stream_id = ?'),
    // The sequence is the rowid: `lastInsertRowid` gives it without the cost of a RETURNING clause.
    insert: db.prepare<[string, number, string, string, number]>(
      'INSERT INTO events (stream_id, version, type, data, at) VALUES (?, ?, ?, ?, ?)',
    ),
    snapshotPut: db.prepare<[string, number, string]>(
      'INSERT INTO snapshots (stream_id, version, state) VALUES (?, ?, ?) ON CONFLICT(stream_id) DO UPDATE SET version = excluded.version, state = excluded.state',
    ),
    snapshotGet: db.prepare<[string], { version: number; state: string }>(
      'SELECT version, state FROM snapshots WHERE stream_id = ?',
    ),
    stream: db.prepare<[string, number], EventRow>(
      'SELECT * FROM events WHERE stream_id = ? AND version > ? ORDER BY version',
    ),
    all: db.prepare<[number, number], EventRow>('SELECT * FROM events WHERE sequence > ? ORDER BY sequence LIMIT ?'),
    head: db.prepare<[], { s: number | null }>('SELECT max(sequence) AS s FROM events'),
    streams: db.prepare<[string, string], { stream_id: string }>(
      'SELECT DISTINCT stream_id FROM events WHERE stream_id >= ? AND stream_id < ? ORDER BY stream_id',
    ),
    checkpointGet: db.prepare<[string], { sequence: number }>('SELECT sequence FROM checkpoints WHERE name = ?'),
    checkpointPut: db.prepare<[string, number]>(
      'INSERT INTO checkpoints (name, sequence) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET sequence = excluded.sequence',
    ),
  };
}

export type EventStatements = ReturnType<typeof prepareEventStatements>;
