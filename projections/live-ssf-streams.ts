import { sql, type CommittedEvent, type SqlStatement } from './types.ts';
import { eventsOfStreams, ReadModel } from './read-model.ts';

/**
 * The Shared Signals streams that are live (created, not deleted), with their client, oldest first:
 * what start-up (push delivery resumed) and every emission read, so their cost follows the live
 * streams, never every stream ever created (issue 45 item 38). Folded from the `ssf-stream:` streams.
 */
export class LiveSsfStreams extends ReadModel {
  readonly name = 'live_ssf_streams';
  readonly tables = ['live_ssf_streams'];

  schema(): string[] {
    return [
      'CREATE TABLE IF NOT EXISTS live_ssf_streams (stream_id TEXT PRIMARY KEY, client_id TEXT NOT NULL, created_sequence BIGINT NOT NULL)',
      'CREATE INDEX IF NOT EXISTS live_ssf_streams_client ON live_ssf_streams (client_id, created_sequence)',
    ];
  }

  apply(events: readonly CommittedEvent[]): SqlStatement[] {
    const out: SqlStatement[] = [];
    for (const [id, e] of eventsOfStreams(events, 'ssf-stream')) {
      if (e.type === 'ssf.stream_created' && typeof e.data.client_id === 'string')
        out.push(
          sql(
            'INSERT INTO live_ssf_streams (stream_id, client_id, created_sequence) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
            id,
            e.data.client_id,
            e.sequence,
          ),
        );
      else if (e.type === 'ssf.stream_deleted') out.push(sql('DELETE FROM live_ssf_streams WHERE stream_id = ?', id));
    }
    return out;
  }

  /** The ids of every live stream, oldest first. */
  async all(): Promise<string[]> {
    const rows = await this.read.all<{ stream_id: string }>(
      'SELECT stream_id FROM live_ssf_streams ORDER BY created_sequence',
      [],
    );
    return rows.map((r) => r.stream_id);
  }

  /** The ids of a client's live streams, oldest first. */
  async ofClient(clientId: string): Promise<string[]> {
    const rows = await this.read.all<{ stream_id: string }>(
      'SELECT stream_id FROM live_ssf_streams WHERE client_id = ? ORDER BY created_sequence',
      [clientId],
    );
    return rows.map((r) => r.stream_id);
  }
}
