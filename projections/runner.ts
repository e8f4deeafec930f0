import {
  saveCheckpoint,
  saveCheckpoints,
  type CommittedEvent,
  type Fold,
  type Projection,
  type ProjectionStore,
  type SqlStatement,
  type StoredPositions,
} from './types.ts';

const BATCH = 5_000;
/** How far an untouched projection's stored checkpoint may lag (events re-read after a crash). */
const CHECKPOINT_LAG = 1_000;

/**
 * Keeps projections level with the log through a store-neutral port: each fold writes a read model's
 * rows and its checkpoint in one transaction, so a restart resumes exactly where it stopped; `rebuild`
 * starts over from sequence 0. Positions advance only once the store reports the commit, so a
 * rolled-back append never moves a read model ahead of the log.
 *
 * On a store one process owns (SQLite) the positions are kept here. On a store several instances share
 * (PostgreSQL), the stored checkpoints are the only truth: each fold starts from them, so every event
 * is folded exactly once whichever instance appended it.
 */
export class ProjectionRunner {
  /** Committed positions, and those of folds whose transaction is still open. */
  private readonly positions = new Map<string, number>();
  private tentative = new Map<string, number>();
  private readonly saved = new Map<string, number>();
  private readonly catchingUp = new Set<string>();
  private readonly names: string[];
  private unsubscribe: Array<() => void> = [];

  constructor(
    private readonly store: ProjectionStore,
    private readonly projections: readonly Projection[],
  ) {
    this.names = projections.map((p) => p.name);
    // A name is a checkpoint's key: one projection given twice would fold every event twice.
    const twice = this.names.find((name, i) => this.names.indexOf(name) !== i);
    if (twice) throw new Error(`projection ${twice} is registered twice`);
  }

  /** Creates tables, catches up from each checkpoint, then follows new commits. */
  async start(): Promise<void> {
    for (const p of this.projections) {
      await this.store.execute(p.schema(this.store.dialect));
      p.attach(this.store.reader);
      const checkpoint = await this.store.checkpoint(p.name);
      this.positions.set(p.name, checkpoint);
      this.saved.set(p.name, checkpoint);
      if (!this.store.shared) await this.catchUp(p);
    }
    if (this.store.shared) await this.catchUpShared(this.names);
    this.tentative = new Map(this.positions);
    this.unsubscribe = [
      this.store.follow(
        (events, stored) => (stored ? this.foldFromStored(events, stored) : this.fold(events)),
        this.names,
      ),
      this.store.onCommit((events) => {
        for (const p of this.projections) p.committed?.(events);
      }),
    ];
  }

  /** Stops following and writes every checkpoint that lags (a shared store's are always written). */
  async stop(): Promise<void> {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    this.unsubscribe = [];
    if (this.store.shared) return;
    const lagging = this.projections.filter((p) => (this.positions.get(p.name) ?? 0) !== this.saved.get(p.name));
    if (lagging.length > 0)
      await this.store.write(lagging.map((p) => saveCheckpoint(p.name, this.positions.get(p.name) ?? 0)));
  }

  async rebuild(name: string): Promise<void> {
    const p = this.projections.find((x) => x.name === name);
    if (!p) throw new Error(`no projection named ${name}`);
    const drop = [
      ...p.tables.map((t) => ({ sql: `DROP TABLE IF EXISTS ${t}`, params: [] })),
      saveCheckpoint(p.name, 0),
    ];
    if (this.store.shared) {
      // Tables and checkpoint go together, so another instance's fold never meets a missing table.
      await this.store.write([...drop, ...p.schema(this.store.dialect).map((text) => ({ sql: text, params: [] }))]);
      await this.catchUpShared([p.name]);
      return;
    }
    this.catchingUp.add(p.name);
    try {
      await this.store.write(drop);
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
        }
        // A failed catch-up leaves the projection behind; the next commit finds the gap and tries again.
        for (const p of gaps) this.catchUp(p).catch(() => undefined);
      },
      rolledBack: () => {
        this.tentative = new Map(this.positions);
      },
    };
  }

  /**
   * A shared store's fold: each projection applies the events after its stored checkpoint and writes
   * its checkpoint. One that the store could not bring level (a gap it did not prepend: a rebuild in
   * progress elsewhere) is left to that catch-up.
   */
  private foldFromStored(events: readonly CommittedEvent[], stored: StoredPositions): Fold {
    const statements: SqlStatement[] = [];
    const checkpoints: Array<[string, number]> = [];
    for (const p of this.projections) {
      const at = stored.get(p.name) ?? 0;
      const unseen = events.filter((e) => e.sequence > at);
      if (unseen.length === 0 || unseen[0].sequence !== at + 1) continue;
      statements.push(...p.apply(unseen));
      checkpoints.push([p.name, unseen[unseen.length - 1].sequence]);
    }
    if (checkpoints.length > 0) statements.push(saveCheckpoints(checkpoints));
    return {
      statements,
      committed: () => {
        for (const [name, at] of checkpoints) this.positions.set(name, at);
      },
      rolledBack: () => undefined,
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
        if (batch.length < BATCH) return;
      }
    } finally {
      this.catchingUp.delete(p.name);
    }
  }

  /** A shared store's catch-up: batch by batch under its append lock, from the stored checkpoints. */
  private async catchUpShared(names: readonly string[]): Promise<void> {
    const only = new Set(names);
    const subset = new ProjectionRunner(
      this.store,
      this.projections.filter((p) => only.has(p.name)),
    );
    while (
      (await this.store.foldPending(names, BATCH, (events, stored) =>
        subset.foldFromStored(events, stored ?? new Map()),
      )) === BATCH
    );
    for (const [name, at] of subset.positions) this.positions.set(name, at);
  }
}
