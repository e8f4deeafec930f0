/**
 * The port through which services reach the event log. The SQLite adapter implements it today; a
 * PostgreSQL one can implement the same contract for several gateway instances.
 */
export interface NewEvent {
  type: string;
  data: Record<string, unknown>;
  /** Milliseconds since the epoch; the event's own time, as the machine saw it. */
  at: number;
}

export interface StoredEvent extends NewEvent {
  /** Global, gap-free order of commits. */
  sequence: number;
  streamId: string;
  /** 1-based position within the stream. */
  version: number;
}

export interface SnapshotRecord {
  streamId: string;
  version: number;
  state: unknown;
}

export class VersionConflict extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`stream ${streamId} is at version ${actual}, not ${expected}`);
    this.name = 'VersionConflict';
  }
}

/** The store cannot be reached right now (a database restarting or out of connections); nothing was decided. */
export class StoreUnavailable extends Error {
  constructor(cause: unknown) {
    super('the event store cannot be reached', { cause });
    this.name = 'StoreUnavailable';
  }
}

export type CommitListener = (events: readonly StoredEvent[]) => void;

export interface EventLog {
  /** Other processes append to this log too (several instances on one database): cached state may be stale. */
  readonly shared: boolean;
  /**
   * Appends `events` to `streamId` if the stream is at `expectedVersion` (0 for a new stream), in one
   * transaction together with the optional snapshot. Resolves only once the rows are durable; rejects
   * with VersionConflict when another writer got there first.
   */
  append(
    streamId: string,
    expectedVersion: number,
    events: readonly NewEvent[],
    snapshot?: unknown,
  ): Promise<StoredEvent[]>;
  readStream(streamId: string, afterVersion?: number): Promise<StoredEvent[]>;
  /** Events with sequence greater than `afterSequence`, in commit order. */
  readAll(afterSequence: number, limit: number): Promise<StoredEvent[]>;
  streamVersion(streamId: string): Promise<number>;
  headSequence(): Promise<number>;
  loadSnapshot(streamId: string): Promise<SnapshotRecord | undefined>;
  /** Stream ids, optionally those starting with `prefix`. */
  streamIds(prefix?: string): Promise<string[]>;
  /** Called after each commit with the committed events, in commit order. Returns an unsubscribe. */
  onCommit(listener: CommitListener): () => void;
  /** Checkpoints of read models that fold the log. */
  checkpoint(name: string): Promise<number>;
  saveCheckpoint(name: string, sequence: number): Promise<void>;
  close(): Promise<void>;
}
