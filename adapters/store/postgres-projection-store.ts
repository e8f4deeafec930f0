import type pg from 'pg';
import type {
  CommittedEvent,
  FoldCommit,
  ProjectionStore,
  ReadModelReader,
  SqlStatement,
} from '../../projections/types.ts';
import type { PostgresEventLog } from './postgres-event-log.ts';
import { storedPositions, toStored } from './postgres-reads.ts';
import { APPEND_LOCK, numberPlaceholders } from './postgres-schema.ts';

/**
 * Read models in the event log's PostgreSQL database. Folds run inside each append's transaction (the
 * statements commit or roll back with the events); lookups read through the pool.
 */
export class PostgresProjectionStore implements ProjectionStore {
  readonly dialect = 'postgres' as const;
  /** Any number of instances may append and fold: checkpoints are read under the append lock. */
  readonly shared = true;
  readonly reader: ReadModelReader;

  constructor(private readonly log: PostgresEventLog) {
    this.reader = {
      get: async <T>(text: string, params: readonly unknown[] = []) =>
        (await this.log.query(numberPlaceholders(text), params as unknown[])).rows[0] as T | undefined,
      all: async <T>(text: string, params: readonly unknown[] = []) =>
        (await this.log.query(numberPlaceholders(text), params as unknown[])).rows as T[],
    };
  }

  async execute(statements: readonly string[]): Promise<void> {
    await this.inOneTransaction(statements.map((sql) => ({ sql, params: [] })));
  }

  async write(statements: readonly SqlStatement[]): Promise<void> {
    await this.inOneTransaction(statements);
  }

  /** Statements in one transaction that holds the append lock, so no instance's fold runs beside them. */
  private async inOneTransaction(statements: readonly SqlStatement[]): Promise<void> {
    await this.locked(async (client) => {
      for (const s of statements)
        await client.query(s.params.length > 0 ? numberPlaceholders(s.sql) : s.sql, s.params as unknown[]);
    });
  }

  private async locked<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.log.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK]);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async foldPending(names: readonly string[], limit: number, fold: FoldCommit): Promise<number> {
    let committed: (() => void) | undefined;
    const count = await this.locked(async (client) => {
      const stored = await storedPositions(client, names);
      const { rows } = await client.query('SELECT * FROM events WHERE sequence > $1 ORDER BY sequence LIMIT $2', [
        Math.min(...stored.values()),
        limit,
      ]);
      if (rows.length === 0) return 0;
      const result = fold(rows.map(toStored), stored);
      for (const s of result.statements) await client.query(numberPlaceholders(s.sql), s.params as unknown[]);
      committed = result.committed;
      return rows.length;
    });
    committed?.();
    return count;
  }

  onCommit(listener: (events: readonly CommittedEvent[]) => void): () => void {
    return this.log.onCommit(listener);
  }

  checkpoint(name: string): Promise<number> {
    return this.log.checkpoint(name);
  }

  readAll(afterSequence: number, limit: number): Promise<CommittedEvent[]> {
    return this.log.readAll(afterSequence, limit);
  }

  follow(fold: FoldCommit, names: readonly string[]): () => void {
    return this.log.withinAppend(fold, names);
  }
}
