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
      DROP FUNCTION IF EXISTS portico_append(TEXT, INTEGER, TEXT[], JSON[], BIGINT[], JSON);
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
      -- Per-address request counts every instance shares; worth nothing after a crash, so unlogged.
      CREATE UNLOGGED TABLE IF NOT EXISTS rate_limits (
        key          TEXT    PRIMARY KEY,
        window_start BIGINT  NOT NULL,
        count        INTEGER NOT NULL
      );
      -- A whole group commit in one round trip: for each append (in order) the append lock, the
      -- version check, the rows numbered after the head, the snapshot and the commit announcement.
      -- Returns, per append, the head before it, or -(actual version + 1) when the stream was not at
      -- the expected version (nothing of that append written).
      CREATE OR REPLACE FUNCTION portico_append(p_batch JSON) RETURNS BIGINT[] LANGUAGE plpgsql AS $$
        DECLARE
          item JSON;
          actual INTEGER;
          expected INTEGER;
          head BIGINT;
          n INTEGER;
          out BIGINT[] := '{}';
        BEGIN
          PERFORM pg_advisory_xact_lock(${APPEND_LOCK});
          SELECT coalesce(max(sequence), 0) INTO head FROM events;
          FOR item IN SELECT * FROM json_array_elements(p_batch) LOOP
            expected := (item->>'expected')::INTEGER;
            SELECT coalesce(max(version), 0) INTO actual FROM events WHERE stream_id = item->>'stream';
            IF actual <> expected THEN
              out := out || (-actual - 1)::BIGINT;
              CONTINUE;
            END IF;
            n := json_array_length(item->'events');
            INSERT INTO events (sequence, stream_id, version, type, data, at)
              SELECT head + e.i, item->>'stream', expected + e.i, e.v->>'type', e.v->'data', (e.v->>'at')::BIGINT
              FROM json_array_elements(item->'events') WITH ORDINALITY AS e(v, i);
            IF json_typeof(item->'snapshot') IS DISTINCT FROM 'null' AND item->'snapshot' IS NOT NULL THEN
              INSERT INTO snapshots (stream_id, version, state) VALUES (item->>'stream', expected + n, item->'snapshot')
                ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version, state = excluded.state;
            END IF;
            out := out || head;
            head := head + n;
          END LOOP;
          PERFORM pg_notify('${COMMIT_CHANNEL}', head::text);
          RETURN out;
        END $$;
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

/** Errors that mean "the server could not be reached or went away", not "the statement was refused". */
export function isConnectionError(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  if (
    typeof e?.code === 'string' &&
    (/^(08|57P0)/.test(e.code) || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND'].includes(e.code))
  )
    return true;
  return (
    typeof e?.message === 'string' &&
    /Connection terminated|connection timeout|Client has encountered a connection error/i.test(e.message)
  );
}
