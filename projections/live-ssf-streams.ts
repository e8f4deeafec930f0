import { sql, type CommittedEvent, type SqlStatement } from './types.ts';
import { eventsOfStreams, ReadModel } from './read-model.ts';

/**
 * The Shared Signals streams that are live (created, not deleted), with their client, status and the
 * event types each delivers: what start-up (push delivery resumed) reads, and what an emission asks
 * ("who receives this type?"), so their cost follows the streams concerned, never every stream ever
 * created (issue 45 item 38, issue 46 §4). Folded from the `ssf-stream:` streams.
 */
export class LiveSsfStreams extends ReadModel {
  // A new name folds the log afresh into the new tables (the earlier `live_ssf_streams` had no types).
  readonly name = 'ssf_subscriptions';
  readonly tables = ['ssf_live_streams', 'ssf_stream_types'];

  schema(): string[] {
    return [
      'CREATE TABLE IF NOT EXISTS ssf_live_streams (stream_id TEXT PRIMARY KEY, client_id TEXT NOT NULL, created_sequence BIGINT NOT NULL, status TEXT NOT NULL)',
      'CREATE INDEX IF NOT EXISTS ssf_live_streams_client ON ssf_live_streams (client_id, created_sequence)',
      'CREATE TABLE IF NOT EXISTS ssf_stream_types (event_type TEXT NOT NULL, stream_id TEXT NOT NULL, PRIMARY KEY (event_type, stream_id))',
    ];
  }

  apply(events: readonly CommittedEvent[]): SqlStatement[] {
    const out: SqlStatement[] = [];
    for (const [id, e] of eventsOfStreams(events, 'ssf-stream')) {
      if (e.type === 'ssf.stream_created' && typeof e.data.client_id === 'string')
        out.push(
          sql(
            "INSERT INTO ssf_live_streams (stream_id, client_id, created_sequence, status) VALUES (?, ?, ?, 'enabled') ON CONFLICT DO NOTHING",
            id,
            e.data.client_id,
            e.sequence,
          ),
          ...typesOf(id, e.data.events_delivered),
        );
      else if (e.type === 'ssf.stream_updated' && Array.isArray(e.data.events_delivered))
        out.push(sql('DELETE FROM ssf_stream_types WHERE stream_id = ?', id), ...typesOf(id, e.data.events_delivered));
      else if (e.type === 'ssf.status_changed' && typeof e.data.status === 'string')
        out.push(sql('UPDATE ssf_live_streams SET status = ? WHERE stream_id = ?', e.data.status, id));
      else if (e.type === 'ssf.stream_deleted')
        out.push(
          sql('DELETE FROM ssf_live_streams WHERE stream_id = ?', id),
          sql('DELETE FROM ssf_stream_types WHERE stream_id = ?', id),
        );
    }
    return out;
  }

  /** The ids of every live stream, oldest first. */
  async all(): Promise<string[]> {
    return this.ids('SELECT stream_id FROM ssf_live_streams ORDER BY created_sequence', []);
  }

  /** The ids of a client's live streams, oldest first. */
  async ofClient(clientId: string): Promise<string[]> {
    return this.ids('SELECT stream_id FROM ssf_live_streams WHERE client_id = ? ORDER BY created_sequence', [clientId]);
  }

  /** Who receives an event of this type: the live streams, not disabled, that deliver it (of one client, when named). */
  async receiving(eventType: string, clientId?: string): Promise<string[]> {
    return this.ids(
      `SELECT s.stream_id FROM ssf_stream_types t JOIN ssf_live_streams s ON s.stream_id = t.stream_id
       WHERE t.event_type = ? AND s.status <> 'disabled'${clientId === undefined ? '' : ' AND s.client_id = ?'}
       ORDER BY s.created_sequence`,
      clientId === undefined ? [eventType] : [eventType, clientId],
    );
  }

  private async ids(query: string, params: unknown[]): Promise<string[]> {
    return (await this.read.all<{ stream_id: string }>(query, params)).map((r) => r.stream_id);
  }
}

/** A stream's delivered event types as rows. */
const typesOf = (streamId: string, types: unknown): SqlStatement[] =>
  (Array.isArray(types) ? types : [])
    .filter((t): t is string => typeof t === 'string')
    .map((t) =>
      sql('INSERT INTO ssf_stream_types (event_type, stream_id) VALUES (?, ?) ON CONFLICT DO NOTHING', t, streamId),
    );
