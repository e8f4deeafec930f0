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
  /** Every committed event of the log, on every instance, in order (e.g. to tell live listeners). */
  committed?(events: readonly CommittedEvent[]): void;
}

/** What a commit's fold produces and learns: statements to run, then whether they committed. */
export interface Fold {
  statements: SqlStatement[];
  committed(): void;
  rolledBack(): void;
}

/** Read models' checkpoints as stored, read under the append lock of a store several instances share. */
export type StoredPositions = ReadonlyMap<string, number>;

/** Folds `events`; with `positions` (a shared store), each read model starts after its stored checkpoint. */
export type FoldCommit = (events: readonly CommittedEvent[], positions?: StoredPositions) => Fold;

/** Where read models live: the event log's own database (a SQLite file, or PostgreSQL). */
export interface ProjectionStore {
  readonly dialect: Dialect;
  /**
   * Several instances append to this store and fold into it. Then no instance's memory says how far a
   * read model is: every fold is handed the stored checkpoints (read under the store's append lock,
   * with the events other instances committed since prepended) and writes its checkpoint each time.
   */
  readonly shared: boolean;
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
  follow(fold: FoldCommit, names: readonly string[]): () => void;
  /**
   * A shared store's catch-up: under the append lock, reads the checkpoints of `names` and up to
   * `limit` events after the lowest, and commits what `fold` makes of them. Resolves with how many
   * events it read (fewer than `limit`: level with the log).
   */
  foldPending(names: readonly string[], limit: number, fold: FoldCommit): Promise<number>;
  /** Every commit of the log, from any instance, in sequence order (what live listeners hear). */
  onCommit(listener: (events: readonly CommittedEvent[]) => void): () => void;
}

/** Several checkpoints in one upsert. */
export const saveCheckpoints = (entries: ReadonlyArray<readonly [name: string, sequence: number]>): SqlStatement =>
  sql(
    `INSERT INTO checkpoints (name, sequence) VALUES ${entries.map(() => '(?, ?)').join(', ')} ON CONFLICT (name) DO UPDATE SET sequence = excluded.sequence`,
    ...entries.flat(),
  );

/** The checkpoint upsert, in the portable subset. */
export const saveCheckpoint = (name: string, sequence: number) =>
  sql(
    'INSERT INTO checkpoints (name, sequence) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET sequence = excluded.sequence',
    name,
    sequence,
  );
