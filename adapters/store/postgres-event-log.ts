import { CommitHooks } from './commit-hooks.ts';
import pg from 'pg';
import type { Fold, SqlStatement } from '../../projections/types.ts';
import type { CommitListener, EventLog, NewEvent, StoredEvent } from '../../services/event-log.ts';
import { StoreUnavailable, VersionConflict } from '../../services/event-log.ts';
import type { PendingAppend } from './pending-append.ts';
import { PostgresEventReads, storedPositions, toStored, type EventRow } from './postgres-reads.ts';
import { COMMIT_CHANNEL, isConnectionError, migratePostgres, numberPlaceholders } from './postgres-schema.ts';

/**
 * Runs inside an append's transaction: the statements it returns commit or roll back with the events.
 * It is handed the stored checkpoints of its read models, read under the append lock.
 */
export type FoldInTransaction = (events: readonly StoredEvent[], positions: ReadonlyMap<string, number>) => Fold | void;

/** The most events another instance may have left unfolded that an append folds itself; more is a rebuild's catch-up. */
const FOLD_GAP_LIMIT = 1_000;

/**
 * The event log in PostgreSQL, behind the same contract as the SQLite one.
 *
 * Commit order: every appending transaction takes one advisory lock (`APPEND_LOCK`) before it reads
 * the head and numbers its events, and holds it until it commits. Sequences are therefore handed out
 * in commit order and are gap-free: a reader following `sequence > n` can never see a later number
 * before an earlier one commits, with no snapshot-horizon bookkeeping on the reading side. The price
 * is one appending transaction at a time across all instances; appends that arrive while one is open
 * are committed together in the next (group commit), each with its own version check.
 *
 * Subscribers: each commit sends `NOTIFY portico_commits`; every instance LISTENs and reads what it
 * has not delivered yet, so `onCommit` listeners see every instance's commits, in sequence order.
 */
export class PostgresEventLog extends PostgresEventReads implements EventLog {
  readonly shared = true;
  readonly pool: pg.Pool;
  private readonly hooks = new CommitHooks<{ handler: FoldInTransaction; names: readonly string[] }>();
  private pending: PendingAppend[] = [];
  private flushing = false;
  private closed = false;
  /** The highest sequence handed to `onCommit` listeners (every event up to it was delivered once). */
  private delivered = 0;
  private delivering: Promise<void> = Promise.resolve();
  private listener?: pg.Client;

  private constructor(pool: pg.Pool) {
    super();
    this.pool = pool;
  }

  /** Connects, creates the tables when missing, and starts listening for other instances' commits. */
  static async open(connectionString: string, options: { poolSize?: number } = {}): Promise<PostgresEventLog> {
    const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10 });
    // An idle client that loses its server (a PostgreSQL restart) must not take the process down.
    pool.on('error', () => undefined);
    const log = new PostgresEventLog(pool);
    const client = await pool.connect();
    try {
      await migratePostgres(client);
    } finally {
      client.release();
    }
    log.delivered = await log.headSequence();
    await log.listen(connectionString);
    return log;
  }

  /**
   * LISTENs on a connection of its own. When that connection is lost (PostgreSQL restarting), it is
   * opened again with backoff and what was committed meanwhile is read and delivered from `delivered`.
   */
  private async listen(connectionString: string): Promise<void> {
    const client = new pg.Client({ connectionString });
    let lost = false;
    const reconnect = () => {
      if (lost || this.closed) return;
      lost = true;
      void client.end().catch(() => undefined);
      this.listener = undefined;
      const retry = (delayMs: number) =>
        setTimeout(() => {
          if (this.closed) return;
          this.listen(connectionString).then(
            () => this.deliver(),
            () => retry(Math.min(delayMs * 2, 5_000)),
          );
        }, delayMs).unref();
      retry(100);
    };
    client.on('error', reconnect);
    client.on('end', reconnect);
    await client.connect();
    // The payload is the head after that commit: one this instance already delivered (its own) costs no read.
    client.on('notification', (message) => {
      if (Number(message.payload) > this.delivered) void this.deliver();
    });
    await client.query(`LISTEN ${COMMIT_CHANNEL}`);
    this.listener = client;
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
      this.pending.push({ streamId, expectedVersion, events, snapshot, resolve, reject });
      // The first append of an idle log waits for the end of this turn, so appends made together commit together.
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  /** Commits everything pending in one transaction, then what arrived meanwhile, one transaction at a time. */
  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        await this.commitBatch(batch);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async commitBatch(batch: PendingAppend[]): Promise<void> {
    let outcomes: Array<StoredEvent[] | VersionConflict>;
    try {
      outcomes = await this.transaction(batch);
    } catch (error) {
      if (batch.length === 1 || error instanceof StoreUnavailable) {
        for (const p of batch) p.reject(error);
        return;
      }
      // Something other than a version conflict failed: commit each append alone so only its own fails.
      for (const p of batch) await this.commitBatch([p]);
      return;
    }
    const committed = outcomes.filter((o): o is StoredEvent[] => !(o instanceof VersionConflict)).flat();
    if (committed.length > 0) await this.deliver(committed);
    batch.forEach((p, i) => {
      const outcome = outcomes[i];
      if (outcome instanceof VersionConflict) p.reject(outcome);
      else p.resolve(outcome);
    });
  }

  /** One transaction: each append through `portico_append` (lock, version check, rows, snapshot, notify), then its folds. */
  private async transaction(batch: PendingAppend[]): Promise<Array<StoredEvent[] | VersionConflict>> {
    const client = await this.pool.connect().catch((error: unknown) => {
      throw isConnectionError(error) ? new StoreUnavailable(error) : error;
    });
    const folds: Fold[] = [];
    try {
      await client.query('BEGIN');
      const batchJson = JSON.stringify(
        batch.map((p) => ({
          stream: p.streamId,
          expected: p.expectedVersion,
          events: p.events.map((e) => ({ type: e.type, data: e.data, at: e.at })),
          snapshot: p.snapshot ?? null,
        })),
      );
      const heads = (
        await client.query<{ heads: string[] }>('SELECT portico_append($1::json) AS heads', [batchJson])
      ).rows[0].heads.map(Number);
      const outcomes: Array<StoredEvent[] | VersionConflict> = batch.map((p, k) => {
        const head = heads[k];
        if (head < 0) return new VersionConflict(p.streamId, p.expectedVersion, -head - 1);
        return p.events.map((e, i) => ({
          sequence: head + i + 1,
          streamId: p.streamId,
          version: p.expectedVersion + i + 1,
          type: e.type,
          data: e.data,
          at: e.at,
        }));
      });
      const committed = outcomes.filter((o): o is StoredEvent[] => !(o instanceof VersionConflict)).flat();
      if (committed.length > 0 && this.hooks.inTransaction.length > 0)
        folds.push(...(await this.foldWithin(client, committed)));
      await client.query('COMMIT');
      client.release();
      for (const f of folds) f.committed();
      return outcomes;
    } catch (error) {
      const lost = isConnectionError(error);
      if (!lost) await client.query('ROLLBACK').catch(() => undefined);
      for (const f of folds) f.rolledBack();
      // A lost connection is not returned to the pool; whether a COMMIT in flight landed is read back by the actors' retry (version check).
      client.release(lost ? (error as Error) : undefined);
      throw lost ? new StoreUnavailable(error) : error;
    }
  }

  /**
   * Runs the read models' folds on the transaction's connection. Under the append lock the stored
   * checkpoints are exact; events another instance committed but did not fold (a read model it does
   * not run) are read and handed over first, so each event is folded once, by whoever comes next.
   */
  private async foldWithin(client: pg.PoolClient, committed: readonly StoredEvent[]): Promise<Fold[]> {
    const positions = await storedPositions(client, [...new Set(this.hooks.inTransaction.flatMap((h) => h.names))]);
    const first = committed[0].sequence;
    const lowest = Math.min(first - 1, ...positions.values());
    let events = committed;
    if (lowest < first - 1 && first - 1 - lowest <= FOLD_GAP_LIMIT) {
      const { rows } = await client.query<EventRow>(
        'SELECT * FROM events WHERE sequence > $1 AND sequence < $2 ORDER BY sequence',
        [lowest, first],
      );
      events = [...rows.map(toStored), ...committed];
    }
    const folds: Fold[] = [];
    for (const { handler } of this.hooks.inTransaction) {
      const fold = handler(events, positions);
      if (!fold) continue;
      folds.push(fold);
      await this.run(client, fold.statements);
    }
    return folds;
  }

  /** A read through the pool; a lost server becomes StoreUnavailable (HTTP 503), anything else stays as it is. */
  async query<R extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(text, params);
    } catch (error) {
      throw isConnectionError(error) ? new StoreUnavailable(error) : error;
    }
  }

  private async run(client: pg.PoolClient, statements: readonly SqlStatement[]): Promise<void> {
    for (const s of statements) await client.query(numberPlaceholders(s.sql), s.params as unknown[]);
  }

  /**
   * Hands committed events to listeners exactly once, in sequence order: this instance's own commit
   * directly when it is next in line, anything else (other instances', or a gap) read from the log.
   */
  private deliver(own?: readonly StoredEvent[]): Promise<void> {
    this.delivering = this.delivering.then(async () => {
      if (this.closed) return;
      if (own && own[own.length - 1].sequence <= this.delivered) return; // the notification got there first
      if (own && own[0].sequence === this.delivered + 1) {
        this.delivered = own[own.length - 1].sequence;
        this.hooks.committed(own);
        return;
      }
      for (;;) {
        const next = await this.readAll(this.delivered, 1_000).catch(() => []);
        if (next.length === 0) return;
        this.delivered = next[next.length - 1].sequence;
        this.hooks.committed(next);
      }
    });
    return this.delivering;
  }

  /** Folds read models inside each append's transaction (the projection store's `follow`). */
  withinAppend(handler: FoldInTransaction, names: readonly string[]): () => void {
    return this.hooks.withinAppend({ handler, names });
  }

  onCommit(listener: CommitListener): () => void {
    return this.hooks.onCommit(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    while (this.flushing || this.pending.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 5)); // finish in-flight appends before closing
    }
    this.closed = true;
    await this.delivering;
    this.hooks.close();
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.pool.end();
  }
}
