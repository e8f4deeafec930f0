import { sql, type CommittedEvent, type SqlStatement } from './types.ts';
import { ReadModel } from './read-model.ts';

/** One list as opened. */
export interface StatusListRow {
  list_id: string;
  size: number;
  bits: number;
  /** Whose key signs it (services/status/signers.ts); absent for a list opened before signers were kept. */
  signer?: string;
}

/** A status set on one index (absent rows are VALID). */
export interface StatusEntry {
  idx: number;
  status: number;
}

/**
 * Every status list, folded from the log: lists from `status_list.opened`, entries from the
 * issuance streams' `credential.status_changed`. The lists served and checked are built from
 * these rows, so a change made on one instance is in every instance's next read (a shared store's
 * fold commits with the change itself). Rebuilt from sequence 0 by `npm run replay -- --status-list`.
 */
export class CredentialStatus extends ReadModel {
  readonly name = 'credential_status';
  readonly tables = ['status_lists', 'status_entries', 'status_list_signers'];

  schema(): string[] {
    return [
      'CREATE TABLE IF NOT EXISTS status_lists (list_id TEXT PRIMARY KEY, size INTEGER NOT NULL, bits INTEGER NOT NULL, opened_at BIGINT NOT NULL)',
      'CREATE TABLE IF NOT EXISTS status_entries (list_id TEXT NOT NULL, idx INTEGER NOT NULL, status INTEGER NOT NULL, changed_at BIGINT NOT NULL, PRIMARY KEY (list_id, idx))',
      'CREATE TABLE IF NOT EXISTS status_list_signers (list_id TEXT PRIMARY KEY, signer TEXT NOT NULL)',
    ];
  }

  apply(events: readonly CommittedEvent[]): SqlStatement[] {
    const statements: SqlStatement[] = [];
    for (const e of events) {
      if (e.type === 'status_list.opened')
        statements.push(
          sql(
            'INSERT INTO status_lists (list_id, size, bits, opened_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
            e.data.list_id,
            e.data.size,
            e.data.bits,
            e.at,
          ),
          ...(typeof e.data.signer === 'string'
            ? [
                sql(
                  'INSERT INTO status_list_signers (list_id, signer) VALUES (?, ?) ON CONFLICT DO NOTHING',
                  e.data.list_id,
                  e.data.signer,
                ),
              ]
            : []),
        );
      else if (e.type === 'credential.status_changed' && typeof e.data.list_id === 'string')
        statements.push(
          sql(
            'INSERT INTO status_entries (list_id, idx, status, changed_at) VALUES (?, ?, ?, ?) ON CONFLICT (list_id, idx) DO UPDATE SET status = excluded.status, changed_at = excluded.changed_at',
            e.data.list_id,
            e.data.idx,
            e.data.value,
            e.at,
          ),
        );
    }
    return statements;
  }

  async list(listId: string): Promise<StatusListRow | undefined> {
    const row = await this.read.get<StatusListRow & { signer: string | null }>(
      'SELECT l.list_id, l.size, l.bits, s.signer FROM status_lists l LEFT JOIN status_list_signers s ON s.list_id = l.list_id WHERE l.list_id = ?',
      [listId],
    );
    return (
      row && {
        list_id: row.list_id,
        size: Number(row.size),
        bits: Number(row.bits),
        ...(row.signer ? { signer: row.signer } : {}),
      }
    );
  }

  /** The entries of a list that are not VALID, by index. */
  async entries(listId: string): Promise<StatusEntry[]> {
    const rows = await this.read.all<StatusEntry>(
      'SELECT idx, status FROM status_entries WHERE list_id = ? AND status <> 0 ORDER BY idx',
      [listId],
    );
    return rows.map((r) => ({ idx: Number(r.idx), status: Number(r.status) }));
  }
}

/** The same fold in memory: the non-VALID entries of one list after `events` (replay's rebuild). */
export function foldStatusEntries(events: readonly CommittedEvent[], listId: string): Map<number, number> {
  const entries = new Map<number, number>();
  for (const e of events)
    if (e.type === 'credential.status_changed' && e.data.list_id === listId) {
      const value = Number(e.data.value);
      if (value === 0) entries.delete(Number(e.data.idx));
      else entries.set(Number(e.data.idx), value);
    }
  return entries;
}
