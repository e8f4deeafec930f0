import type Database from 'better-sqlite3';
import type { CommittedEvent, Projection } from './types.ts';

/** What the runner needs of the event log. */
export interface CommittedSource {
  readAllSync(afterSequence: number, limit: number): CommittedEvent[];
  onCommit(listener: (events: readonly CommittedEvent[]) => void): () => void;
  /** When the log lives in the same database: run inside each append's transaction. */
  withinAppend?(handler: (events: readonly CommittedEvent[]) => void): () => void;
}

const BATCH = 5_000;
/** How far an untouched projection's stored checkpoint may lag (events re-read after a crash). */
const CHECKPOINT_LAG = 1_000;

/**
 * Keeps projections level with the log: each applies events and advances its checkpoint in one
 * transaction, so a restart resumes exactly where it stopped; `rebuild` starts over from sequence 0.
 * When the log shares the projections' database, they are applied inside the append's own transaction
 * (one commit, never behind); otherwise after each commit.
 */
export class ProjectionRunner {
  private readonly positions = new Map<string, number>();
  private readonly saved = new Map<string, number>();
  private readonly getCheckpoint;
  private readonly putCheckpoint;
  private unsubscribe?: () => void;

  constructor(
    private readonly db: Database.Database,
    private readonly source: CommittedSource,
    private readonly projections: readonly Projection[],
  ) {
    this.getCheckpoint = db.prepare<[string], { sequence: number }>('SELECT sequence FROM checkpoints WHERE name = ?');
    this.putCheckpoint = db.prepare<[string, number]>(
      'INSERT INTO checkpoints (name, sequence) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET sequence = excluded.sequence',
    );
  }

  /** Creates tables, catches up from each checkpoint, then follows new commits. */
  start(): void {
    for (const p of this.projections) {
      p.setup(this.db);
      const checkpoint = this.getCheckpoint.get(p.name)?.sequence ?? 0;
      this.positions.set(p.name, checkpoint);
      this.saved.set(p.name, checkpoint);
      this.catchUp(p);
    }
    const follow = (events: readonly CommittedEvent[]) => {
      for (const p of this.projections) this.follow(p, events);
    };
    this.unsubscribe = this.source.withinAppend ? this.source.withinAppend(follow) : this.source.onCommit(follow);
  }

  /** Stops following and writes every checkpoint that lags. */
  stop(): void {
    this.unsubscribe?.();
    for (const p of this.projections) {
      const at = this.positions.get(p.name) ?? 0;
      if (at !== this.saved.get(p.name) && this.db.open) this.saveCheckpoint(p.name, at);
    }
  }

  private saveCheckpoint(name: string, sequence: number): void {
    this.putCheckpoint.run(name, sequence);
    this.saved.set(name, sequence);
  }

  rebuild(name: string): void {
    const p = this.projections.find((x) => x.name === name);
    if (!p) throw new Error(`no projection named ${name}`);
    this.db.transaction(() => {
      p.drop(this.db);
      p.setup(this.db);
      this.putCheckpoint.run(p.name, 0);
    })();
    this.positions.set(p.name, 0);
    this.saved.set(p.name, 0);
    this.catchUp(p);
  }

  position(name: string): number {
    return this.positions.get(name) ?? 0;
  }

  private follow(p: Projection, events: readonly CommittedEvent[]): void {
    const at = this.positions.get(p.name) ?? 0;
    if (events.length > 0 && events[0].sequence === at + 1) this.applyBatch(p, events);
    else this.catchUp(p); // a gap (e.g. an earlier failure): read what is missing from the log
  }

  private catchUp(p: Projection): void {
    for (;;) {
      const batch = this.source.readAllSync(this.positions.get(p.name) ?? 0, BATCH);
      if (batch.length === 0) return;
      this.applyBatch(p, batch);
      if (batch.length < BATCH) return;
    }
  }

  private applyBatch(p: Projection, events: readonly CommittedEvent[]): void {
    const last = events[events.length - 1].sequence;
    const apply = () => {
      const changed = p.apply(events) !== false;
      if (changed || last - (this.saved.get(p.name) ?? 0) >= CHECKPOINT_LAG) this.saveCheckpoint(p.name, last);
    };
    // Inside an append the outer transaction already makes this atomic with the events.
    if (this.db.inTransaction) apply();
    else this.db.transaction(apply)();
    this.positions.set(p.name, last);
  }
}
