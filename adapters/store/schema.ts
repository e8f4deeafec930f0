import type Database from 'better-sqlite3';

/** Creates the event log's tables once; rows of `events` can never be changed or removed. */
export function migrate(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS events (
      sequence  INTEGER PRIMARY KEY,
      stream_id TEXT    NOT NULL,
      version   INTEGER NOT NULL,
      type      TEXT    NOT NULL,
      data      TEXT    NOT NULL,
      at        INTEGER NOT NULL,
      UNIQUE (stream_id, version)
    );
    CREATE TRIGGER IF NOT EXISTS events_are_immutable BEFORE UPDATE ON events
      BEGIN SELECT RAISE(ABORT, 'events are immutable'); END;
    CREATE TRIGGER IF NOT EXISTS events_are_permanent BEFORE DELETE ON events
      BEGIN SELECT RAISE(ABORT, 'events are permanent'); END;
    CREATE TABLE IF NOT EXISTS snapshots (
      stream_id TEXT PRIMARY KEY,
      version   INTEGER NOT NULL,
      state     TEXT    NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS checkpoints (
      name     TEXT PRIMARY KEY,
      sequence INTEGER NOT NULL
    ) WITHOUT ROWID;
  `);
}
