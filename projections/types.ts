/**
 * The store-neutral read side. A read model is a pure function from committed events to SQL
 * statements in the subset both stores speak (SQLite and PostgreSQL: `?` placeholders, `ON CONFLICT`,
 * `BIGINT`); the store runs them inside the append's own transaction when it can. Lookups are async
 * reads through the store's reader, so no read model holds a database handle.
 */

/** A committed event as projections see it (the shape the event log publishes). */
export interface CommittedEvent {
  sequence: number;
  streamId: string;
  version: number;
  type: string;
  data: Record<string, unknown>;
  at: number;
}

export type Dialect = 'sqlite' | 'postgres';

/** One parameterised statement; `?` placeholders (a PostgreSQL store numbers them). */
export interface SqlStatement {
  sql: string;
  params: readonly unknown[];
}

export const sql = (text: string, ...params: unknown[]): SqlStatement => ({ sql: text, params });

/** Reads of read models, against whichever store holds them. */
export interface ReadModelReader {
  get<T>(sql: string, params?: readonly unknown[]): Promise<T | undefined>;
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

/** A read model folded from the log into its own tables. */
export interface Projection {
  readonly name: string;
  /** The tables it owns (dropped by a rebuild). */
  readonly tables: readonly string[];
  /** Idempotent DDL for the store's dialect. */
  schema(dialect: Dialect): string[];
  /** Pure: the statements that fold `events` into the read model; empty when none concerned it. */
  apply(events: readonly CommittedEvent[]): SqlStatement[];
  /** Where its lookups read from; called once the tables exist. */
  attach(reader: ReadModelReader): void;
  /** After statements of these events committed (e.g. to tell live listeners). */
  committed?(events: readonly CommittedEvent[]): void;
}

/** What a commit's fold produces and learns: statements to run, then whether they committed. */
export interface Fold {
  statements: SqlStatement[];
  committed(): void;
  rolledBack(): void;
}

/** Where read models live: the event log's own database (a SQLite file, or PostgreSQL). */
export interface ProjectionStore {
  readonly dialect: Dialect;
  readonly reader: ReadModelReader;
  /** DDL, in one transaction. */
  execute(statements: readonly string[]): Promise<void>;
  /** Statements in one transaction of their own. */
  write(statements: readonly SqlStatement[]): Promise<void>;
  checkpoint(name: string): Promise<number>;
  readAll(afterSequence: number, limit: number): Promise<CommittedEvent[]>;
  /**
   * Calls `fold` with each commit's events. A store that can runs the returned statements inside the
   * append's own transaction (read models never lag the log); either way it reports the outcome.
   */
  follow(fold: (events: readonly CommittedEvent[]) => Fold): () => void;
}

/** The checkpoint upsert, in the portable subset. */
export const saveCheckpoint = (name: string, sequence: number) =>
  sql('INSERT INTO checkpoints (name, sequence) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET sequence = excluded.sequence', name, sequence);
