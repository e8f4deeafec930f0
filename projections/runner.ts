import type Database from 'better-sqlite3';
import type { CommittedEvent, Projection } from './types.ts';

/** What the runner needs of the event log. */
export interface CommittedSource {
  readAllSync(afterSequence: number, limit: number): CommittedEvent[];
  onCommit(listener: (events: readonly CommittedEvent[]) => void): () => void;
}

const BATCH = 5_000;

/**
 * Keeps projections level with the log: each applies events and advances its checkpoint in one
 * transaction, so a restart resumes exactly where it stopped; `rebuild` starts over from sequence 0.
 */
export class ProjectionRunner {
  private readonly positions = new Map<string, number>();
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
      this.positions.set(p.name, this.getCheckpoint.get(p.name)?.sequence ?? 0);
      this.catchUp(p);
    }
    this.unsubscribe = this.source.onCommit((events) => {
      for (const p of this.projections) this.follow(p, events);
    });
  }

  stop(): void {
    this.unsubscribe?.();
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
    this.db.transaction(() => {
      p.apply(events);
      this.putCheckpoint.run(p.name, last);
    })();
    this.positions.set(p.name, last);
  }
}
