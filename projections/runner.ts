import { saveCheckpoint, type CommittedEvent, type Fold, type Projection, type ProjectionStore, type SqlStatement } from './types.ts';

const BATCH = 5_000;
/** How far an untouched projection's stored checkpoint may lag (events re-read after a crash). */
const CHECKPOINT_LAG = 1_000;

/**
 * Keeps projections level with the log through a store-neutral port: each fold writes a read model's
 * rows and its checkpoint in one transaction, so a restart resumes exactly where it stopped; `rebuild`
 * starts over from sequence 0. Positions advance only once the store reports the commit, so a
 * rolled-back append never moves a read model ahead of the log.
 */
export class ProjectionRunner {
  /** Committed positions, and those of folds whose transaction is still open. */
  private readonly positions = new Map<string, number>();
  private tentative = new Map<string, number>();
  private readonly saved = new Map<string, number>();
  private readonly catchingUp = new Set<string>();
  private unsubscribe?: () => void;

  constructor(
    private readonly store: ProjectionStore,
    private readonly projections: readonly Projection[],
  ) {}

  /** Creates tables, catches up from each checkpoint, then follows new commits. */
  async start(): Promise<void> {
    for (const p of this.projections) {
      await this.store.execute(p.schema(this.store.dialect));
      p.attach(this.store.reader);
      const checkpoint = await this.store.checkpoint(p.name);
      this.positions.set(p.name, checkpoint);
      this.saved.set(p.name, checkpoint);
      await this.catchUp(p);
    }
    this.tentative = new Map(this.positions);
    this.unsubscribe = this.store.follow((events) => this.fold(events));
  }

  /** Stops following and writes every checkpoint that lags. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    const lagging = this.projections.filter((p) => (this.positions.get(p.name) ?? 0) !== this.saved.get(p.name));
    if (lagging.length > 0) await this.store.write(lagging.map((p) => saveCheckpoint(p.name, this.positions.get(p.name) ?? 0)));
  }

  async rebuild(name: string): Promise<void> {
    const p = this.projections.find((x) => x.name === name);
    if (!p) throw new Error(`no projection named ${name}`);
    this.catchingUp.add(p.name);
    try {
      await this.store.write([...p.tables.map((t) => ({ sql: `DROP TABLE IF EXISTS ${t}`, params: [] })), saveCheckpoint(p.name, 0)]);
      await this.store.execute(p.schema(this.store.dialect));
      this.positions.set(p.name, 0);
      this.tentative.set(p.name, 0);
      this.saved.set(p.name, 0);
    } finally {
      this.catchingUp.delete(p.name);
    }
    await this.catchUp(p);
  }

  position(name: string): number {
    return this.positions.get(name) ?? 0;
  }

  /** One commit's statements for every projection that is level with the log; a gap is caught up after. */
  private fold(events: readonly CommittedEvent[]): Fold {
    const statements: SqlStatement[] = [];
    const advanced: Array<[Projection, number, boolean]> = [];
    const gaps: Projection[] = [];
    const last = events[events.length - 1]?.sequence ?? 0;
    for (const p of this.projections) {
      if (this.catchingUp.has(p.name) || events.length === 0) continue;
      const at = this.tentative.get(p.name) ?? 0;
      if (events[0].sequence !== at + 1) {
        gaps.push(p);
        continue;
      }
      const rows = p.apply(events);
      statements.push(...rows);
      const checkpoint = rows.length > 0 || last - (this.saved.get(p.name) ?? 0) >= CHECKPOINT_LAG;
      if (checkpoint) statements.push(saveCheckpoint(p.name, last));
      this.tentative.set(p.name, last);
      advanced.push([p, last, checkpoint]);
    }
    return {
      statements,
      committed: () => {
        for (const [p, at, checkpointed] of advanced) {
          this.positions.set(p.name, at);
          if (checkpointed) this.saved.set(p.name, at);
          p.committed?.(events);
        }
        // A failed catch-up leaves the projection behind; the next commit finds the gap and tries again.
        for (const p of gaps) this.catchUp(p).catch(() => undefined);
      },
      rolledBack: () => {
        this.tentative = new Map(this.positions);
      },
    };
  }

  /** Reads what the projection has not seen from the log and folds it, batch by batch. */
  private async catchUp(p: Projection): Promise<void> {
    if (this.catchingUp.has(p.name)) return;
    this.catchingUp.add(p.name);
    try {
      for (;;) {
        const batch = await this.store.readAll(this.positions.get(p.name) ?? 0, BATCH);
        if (batch.length === 0) return;
        const last = batch[batch.length - 1].sequence;
        await this.store.write([...p.apply(batch), saveCheckpoint(p.name, last)]);
        this.positions.set(p.name, last);
        this.tentative.set(p.name, last);
        this.saved.set(p.name, last);
        p.committed?.(batch);
        if (batch.length < BATCH) return;
      }
    } finally {
      this.catchingUp.delete(p.name);
    }
  }
}
