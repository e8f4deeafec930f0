import type Database from 'better-sqlite3';

/** A committed event as projections see it (the shape the event log publishes). */
export interface CommittedEvent {
  sequence: number;
  streamId: string;
  version: number;
  type: string;
  data: Record<string, unknown>;
  at: number;
}

/** A read model folded from the log into its own tables. */
export interface Projection {
  readonly name: string;
  /** Creates the tables if they are missing. */
  setup(db: Database.Database): void;
  /** Drops the tables, so the runner can rebuild from sequence 0. */
  drop(db: Database.Database): void;
  /**
   * Applies committed events in order, inside the runner's transaction. Returns false when none of
   * them concerned this read model (its checkpoint may then be written later, in a batch).
   */
  apply(events: readonly CommittedEvent[]): boolean | void;
}
