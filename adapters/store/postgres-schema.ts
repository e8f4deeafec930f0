import type { PoolClient } from 'pg';

/** The advisory lock key every appending transaction takes (see PostgresEventLog): "portico" in ASCII. */
export const APPEND_LOCK = 0x706f727469636f;
/** The channel commits are announced on, so every instance's subscribers hear every commit. */
export const COMMIT_CHANNEL = 'portico_commits';

/**
 * The event log's tables in PostgreSQL, created once (under the append lock, so instances starting
 * together do not race). Event rows can never be changed or removed: UPDATE, DELETE and TRUNCATE raise.
 * `data` and `state` are `json` (not `jsonb`) so a row reads back exactly as written.
 */
export async function migratePostgres(client: PoolClient): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK]);
    await client.query(`
      CREATE TABLE IF NOT EXISTS events (
        sequence  BIGINT  PRIMARY KEY,
        stream_id TEXT    NOT NULL,
        version   INTEGER NOT NULL,
        type      TEXT    NOT NULL,
        data      JSON    NOT NULL,
        at        BIGINT  NOT NULL,
        UNIQUE (stream_id, version)
      );
      CREATE OR REPLACE FUNCTION portico_events_are_immutable() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN RAISE EXCEPTION 'events are immutable and permanent'; END $$;
      CREATE OR REPLACE TRIGGER events_are_immutable BEFORE UPDATE OR DELETE ON events
        FOR EACH ROW EXECUTE FUNCTION portico_events_are_immutable();
      CREATE OR REPLACE TRIGGER events_are_permanent BEFORE TRUNCATE ON events
        FOR EACH STATEMENT EXECUTE FUNCTION portico_events_are_immutable();
      CREATE TABLE IF NOT EXISTS snapshots (
        stream_id TEXT    PRIMARY KEY,
        version   INTEGER NOT NULL,
        state     JSON    NOT NULL
      );
      CREATE TABLE IF NOT EXISTS checkpoints (
        name     TEXT   PRIMARY KEY,
        sequence BIGINT NOT NULL
      );
    `);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

/**
 * `?` placeholders (the portable subset read models are written in) numbered `$1`, `$2`, … for
 * PostgreSQL; question marks inside quoted literals or identifiers stay as they are.
 */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  let out = '';
  let quote: string | undefined;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = undefined;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else out += ch === '?' ? `$${++n}` : ch;
  }
  return out;
}
