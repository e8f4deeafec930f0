import Database from 'better-sqlite3';
import { CommitHooks } from './commit-hooks.ts';
import { BoundedCache } from '../../services/bounded-cache.ts';
import type { CommitListener, EventLog, NewEvent, SnapshotRecord, StoredEvent } from '../../services/event-log.ts';
import { VersionConflict } from '../../services/event-log.ts';
import type { PendingAppend } from './pending-append.ts';
import { migrate } from './schema.ts';
import { prepareEventStatements, toStored, type EventStatements } from './sqlite-statements.ts';

const isUniqueViolation = (error: unknown) => (error as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_UNIQUE';

/** How many streams' committed versions the log keeps in memory (the most recently appended ones). */
const KNOWN_VERSIONS_MAX = 10_000;

export interface SqliteEventLogOptions {
  /**
   * `NORMAL` (default) keeps every committed transaction across a killed process, which is what a 2xx
   * promises; `FULL` also survives power loss at a large cost in appends per second.
   */
  synchronous?: 'NORMAL' | 'FULL';
  /** Opens an existing log for reading only (replay, inspection): no schema change, no appends. */
  readonly?: boolean;
}

/**
 * The append-only event log in one SQLite file (WAL). Asynchronous appends that arrive in the same
 * turn of the event loop are committed together in one transaction (group commit): each keeps its own
 * expected-version check, and each promise settles only after the shared commit.
 */
/** What an in-transaction handler learns after the transaction ends. */
export interface TransactionOutcome {
  committed(): void;
  rolledBack(): void;
}

/** Runs inside an append's transaction; may return callbacks for the transaction's outcome. */
export type InTransactionHandler = (events: readonly StoredEvent[]) => TransactionOutcome | void;

export class SqliteEventLog implements EventLog {
  readonly shared = false;
  readonly db: Database.Database;
  private readonly hooks = new CommitHooks<InTransactionHandler>();
  /** Outcome callbacks of the handlers that ran in the open transaction. */
  private outcomes: TransactionOutcome[] = [];
  private readonly statements: EventStatements;
  /** One transaction wrapper for every append: better-sqlite3 builds several closures per `transaction()` call. */
  private readonly inSqliteTransaction: <T>(body: () => T) => T;
  private closed = false;
  private pending: PendingAppend[] = [];
  /**
   * The committed version of streams this log appended to lately. Events are never removed and
   * versions have no gaps, so a stream holds at least this version: an append that expects it needs
   * no read (if another writer went further, the next version is taken and the insert conflicts).
   */
  private readonly knownVersions = new BoundedCache<string, number>(KNOWN_VERSIONS_MAX);

  constructor(file: string, options: SqliteEventLogOptions = {}) {
    this.db = new Database(file, options.readonly ? { readonly: true, fileMustExist: true } : {});
    if (!options.readonly) {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
    }
    this.db.pragma('busy_timeout = 5000');
    // Checkpoints run on the committing thread; every 10,000 pages (40 MB of WAL) keeps them rare.
    if (!options.readonly) this.db.pragma('wal_autocheckpoint = 10000');
    if (!options.readonly) migrate(this.db);
    const db = this.db;
    this.inSqliteTransaction = db.transaction(<T>(body: () => T): T => body()) as <T>(body: () => T) => T;
    this.statements = prepareEventStatements(db);
  }

  private readonly appendTx = (
    streamId: string,
    expectedVersion: number,
    events: readonly NewEvent[],
    snapshot: unknown,
  ) => this.transact(() => this.insert(streamId, expectedVersion, events, snapshot));

  /** Runs `body` in one transaction and tells the in-transaction handlers whether it committed. */
  private transact<T>(body: () => T): T {
    this.outcomes = [];
    let result: T;
    try {
      result = this.inSqliteTransaction(body);
    } catch (error) {
      const outcomes = this.outcomes;
      this.outcomes = [];
      for (const o of outcomes) o.rolledBack();
      throw error;
    }
    const outcomes = this.outcomes;
    this.outcomes = [];
    for (const o of outcomes) o.committed();
    return result;
  }

  /** Writes one append; must run inside a transaction. Throws VersionConflict before writing anything. */
  private insert(
    streamId: string,
    expectedVersion: number,
    events: readonly NewEvent[],
    snapshot: unknown,
  ): StoredEvent[] {
    // A new stream, or one whose committed version this log holds, needs no read: should the next
    // version be taken after all, the first insert fails on the (stream_id, version) key before anything
    // of this append is written.
    if (expectedVersion !== 0 && this.knownVersions.get(streamId) !== expectedVersion) {
      const actual = this.currentVersion(streamId);
      if (actual !== expectedVersion) throw new VersionConflict(streamId, expectedVersion, actual);
    }
    const stored: StoredEvent[] = [];
    let version = expectedVersion;
    for (const e of events) {
      version += 1;
      let sequence: number;
      try {
        sequence = Number(
          this.statements.insert.run(streamId, version, e.type, JSON.stringify(e.data), e.at).lastInsertRowid,
        );
      } catch (error) {
        if (version === expectedVersion + 1 && isUniqueViolation(error))
          throw new VersionConflict(streamId, expectedVersion, this.currentVersion(streamId));
        throw error;
      }
      stored.push({ sequence, streamId, version, type: e.type, data: e.data, at: e.at });
    }
    if (snapshot !== undefined) this.statements.snapshotPut.run(streamId, version, JSON.stringify(snapshot));
    for (const handler of this.hooks.inTransaction) {
      const outcome = handler(stored);
      if (outcome) this.outcomes.push(outcome);
    }
    return stored;
  }

  /** Remembers what an append committed (called only once its transaction has). */
  private committedVersion(stored: readonly StoredEvent[]): void {
    const last = stored[stored.length - 1];
    if (last) this.knownVersions.set(last.streamId, last.version);
  }

  private currentVersion(streamId: string): number {
    return this.statements.version.get(streamId)?.v ?? 0;
  }

  private readonly flush = () => {
    const batch = this.pending;
    this.pending = [];
    if (this.closed) {
      for (const p of batch) p.reject(new Error('event log is closed'));
      return;
    }
    let outcomes: Array<StoredEvent[] | VersionConflict>;
    try {
      outcomes = this.transact(() =>
        batch.map((p) => {
          try {
            return this.insert(p.streamId, p.expectedVersion, p.events, p.snapshot);
          } catch (error) {
            if (error instanceof VersionConflict) return error;
            throw error;
          }
        }),
      );
    } catch {
      // Something other than a version conflict failed: commit each append alone so only its own fails.
      for (const p of batch) {
        try {
          p.resolve(this.appendSync(p.streamId, p.expectedVersion, p.events, p.snapshot));
        } catch (error) {
          p.reject(error);
        }
      }
      return;
    }
    batch.forEach((p, i) => {
      const outcome = outcomes[i];
      if (outcome instanceof VersionConflict) p.reject(outcome);
      else {
        this.committedVersion(outcome);
        if (outcome.length > 0) this.hooks.committed(outcome);
        p.resolve(outcome);
      }
    });
  };

  appendSync(
    streamId: string,
    expectedVersion: number,
    events: readonly NewEvent[],
    snapshot?: unknown,
  ): StoredEvent[] {
    if (this.closed) throw new Error('event log is closed');
    if (events.length === 0) return [];
    const stored = this.appendTx(streamId, expectedVersion, events, snapshot);
    this.committedVersion(stored);
    this.hooks.committed(stored);
    return stored;
  }

  append(
    streamId: string,
    expectedVersion: number,
    events: readonly NewEvent[],
    snapshot?: unknown,
  ): Promise<StoredEvent[]> {
    if (this.closed) return Promise.reject(new Error('event log is closed'));
    if (events.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(this.flush);
      this.pending.push({ streamId, expectedVersion, events, snapshot, resolve, reject });
    });
  }

  async readStream(streamId: string, afterVersion = 0): Promise<StoredEvent[]> {
    return this.statements.stream.all(streamId, afterVersion).map(toStored);
  }

  async readAll(afterSequence: number, limit: number): Promise<StoredEvent[]> {
    return this.readAllSync(afterSequence, limit);
  }

  readAllSync(afterSequence: number, limit: number): StoredEvent[] {
    return this.statements.all.all(afterSequence, limit).map(toStored);
  }

  async streamVersion(streamId: string): Promise<number> {
    return this.statements.version.get(streamId)?.v ?? 0;
  }

  async headSequence(): Promise<number> {
    return this.statements.head.get()?.s ?? 0;
  }

  async loadSnapshot(streamId: string): Promise<SnapshotRecord | undefined> {
    const row = this.statements.snapshotGet.get(streamId);
    return row && { streamId, version: row.version, state: JSON.parse(row.state) };
  }

  async streamIds(prefix = ''): Promise<string[]> {
    // Upper bound of the prefix range: the prefix followed by the highest code point.
    return this.statements.streams.all(prefix, `${prefix}\u{10FFFF}`).map((r) => r.stream_id);
  }

  /**
   * Runs `handler` inside each append's transaction: read models in this database then commit (or roll
   * back) atomically with the events they fold. A handler that throws aborts the append.
   */
  withinAppend(handler: InTransactionHandler): () => void {
    return this.hooks.withinAppend(handler);
  }

  onCommit(listener: CommitListener): () => void {
    return this.hooks.onCommit(listener);
  }

  async checkpoint(name: string): Promise<number> {
    return this.statements.checkpointGet.get(name)?.sequence ?? 0;
  }

  async saveCheckpoint(name: string, sequence: number): Promise<void> {
    this.statements.checkpointPut.run(name, sequence);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.pending.length > 0) this.flush(); // finish in-flight appends before closing
    this.closed = true;
    this.hooks.close();
    this.db.close();
  }
}
