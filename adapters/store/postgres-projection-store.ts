import type { CommittedEvent, Fold, ProjectionStore, ReadModelReader, SqlStatement } from '../../projections/types.ts';
import type { PostgresEventLog } from './postgres-event-log.ts';
import { numberPlaceholders } from './postgres-schema.ts';

/**
 * Read models in the event log's PostgreSQL database. Folds run inside each append's transaction (the
 * statements commit or roll back with the events); lookups read through the pool.
 */
export class PostgresProjectionStore implements ProjectionStore {
  readonly dialect = 'postgres' as const;
  readonly reader: ReadModelReader;

  constructor(private readonly log: PostgresEventLog) {
    this.reader = {
      get: async <T>(text: string, params: readonly unknown[] = []) => (await this.log.query(numberPlaceholders(text), params as unknown[])).rows[0] as T | undefined,
      all: async <T>(text: string, params: readonly unknown[] = []) => (await this.log.query(numberPlaceholders(text), params as unknown[])).rows as T[],
    };
  }

  async execute(statements: readonly string[]): Promise<void> {
    await this.inOneTransaction(statements.map((sql) => ({ sql, params: [] })));
  }

  async write(statements: readonly SqlStatement[]): Promise<void> {
    await this.inOneTransaction(statements);
  }

  private async inOneTransaction(statements: readonly SqlStatement[]): Promise<void> {
    const client = await this.log.pool.connect();
    try {
      await client.query('BEGIN');
      for (const s of statements) await client.query(s.params.length > 0 ? numberPlaceholders(s.sql) : s.sql, s.params as unknown[]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  checkpoint(name: string): Promise<number> {
    return this.log.checkpoint(name);
  }

  readAll(afterSequence: number, limit: number): Promise<CommittedEvent[]> {
    return this.log.readAll(afterSequence, limit);
  }

  follow(fold: (events: readonly CommittedEvent[]) => Fold): () => void {
    return this.log.withinAppend((events) => fold(events));
  }
}
