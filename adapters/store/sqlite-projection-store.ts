import type Database from 'better-sqlite3';
import type {
  CommittedEvent,
  FoldCommit,
  ProjectionStore,
  ReadModelReader,
  SqlStatement,
} from '../../projections/types.ts';
import type { SqliteEventLog } from './sqlite-event-log.ts';

/**
 * Read models in the event log's own SQLite file. Folds run inside each append's transaction, so read
 * models commit (or roll back) with the events they fold; statements are prepared once per SQL text.
 */
export class SqliteProjectionStore implements ProjectionStore {
  readonly dialect = 'sqlite' as const;
  /** One process owns the file: the runner keeps positions in memory. */
  readonly shared = false;
  private readonly prepared = new Map<string, Database.Statement>();
  readonly reader: ReadModelReader;

  constructor(private readonly log: SqliteEventLog) {
    this.reader = {
      get: async <T>(text: string, params: readonly unknown[] = []) =>
        this.statement(text).get(...params) as T | undefined,
      all: async <T>(text: string, params: readonly unknown[] = []) => this.statement(text).all(...params) as T[],
    };
  }

  private get db(): Database.Database {
    return this.log.db;
  }

  private statement(text: string): Database.Statement {
    let s = this.prepared.get(text);
    if (!s) {
      s = this.db.prepare(text);
      this.prepared.set(text, s);
    }
    return s;
  }

  private run(statements: readonly SqlStatement[]): void {
    for (const s of statements) this.statement(s.sql).run(...s.params);
  }

  async execute(statements: readonly string[]): Promise<void> {
    this.db.transaction(() => {
      for (const s of statements) this.db.exec(s);
    })();
    // DDL can change what a prepared statement refers to.
    this.prepared.clear();
  }

  async write(statements: readonly SqlStatement[]): Promise<void> {
    if (statements.some((s) => /^\s*DROP\s/i.test(s.sql))) this.prepared.clear();
    this.db.transaction(() => this.run(statements))();
  }

  async checkpoint(name: string): Promise<number> {
    return this.log.checkpoint(name);
  }

  readAll(afterSequence: number, limit: number): Promise<CommittedEvent[]> {
    return this.log.readAll(afterSequence, limit);
  }

  async foldPending(names: readonly string[], limit: number, fold: FoldCommit): Promise<number> {
    const stored = new Map(
      await Promise.all(names.map(async (name) => [name, await this.log.checkpoint(name)] as const)),
    );
    const events = await this.log.readAll(Math.min(...stored.values()), limit);
    if (events.length === 0) return 0;
    const result = fold(events, stored);
    await this.write(result.statements);
    result.committed();
    return events.length;
  }

  onCommit(listener: (events: readonly CommittedEvent[]) => void): () => void {
    return this.log.onCommit(listener);
  }

  follow(fold: FoldCommit): () => void {
    return this.log.withinAppend((events) => {
      const result = fold(events);
      try {
        this.run(result.statements);
      } catch (error) {
        result.rolledBack(); // the append fails with it: nothing of this fold stands
        throw error;
      }
      return result;
    });
  }
}
