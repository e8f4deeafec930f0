import {
  initialTransition,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventFromLogic,
  type SnapshotFrom,
} from 'xstate';
import { VersionConflict, type EventLog, type NewEvent, type StoredEvent } from '../event-log.ts';
import { BoundedCache } from '../bounded-cache.ts';
import { fold, persistedState, restore, step } from './fold.ts';

/** Every machine event carries its time. */
type Timed = { type: string; at: number };

export interface Loaded<M extends AnyStateMachine> {
  snapshot: SnapshotFrom<M>;
  version: number;
}

export type Outcome<M extends AnyStateMachine> =
  | { accepted: true; snapshot: SnapshotFrom<M>; version: number; events: StoredEvent[] }
  | { accepted: false; snapshot: SnapshotFrom<M>; version: number };

type MachineEvent<M extends AnyStateMachine> = EventFromLogic<M> & Timed;
/**
 * A command: an event, or a decision made from the actor's current state (inside its turn). A
 * decision may produce several events, appended together in one transaction only if the machine
 * accepts each in turn.
 */
export type Command<M extends AnyStateMachine> =
  | MachineEvent<M>
  | ((
      current: Loaded<M>,
    ) => MachineEvent<M> | MachineEvent<M>[] | undefined | Promise<MachineEvent<M> | MachineEvent<M>[] | undefined>);

const MAX_CONFLICT_RETRIES = 3;

/** A stream moved under every retry of a command: a domain fact; each adapter says it its own way (HTTP: 503). */
export class StreamBusy extends Error {
  constructor(readonly streamId: string) {
    super(`The stream ${streamId} is busy; try again`);
    this.name = 'StreamBusy';
  }
}

/** The one runtime of each stream category of a log (see `ActorRuntime.of`). */
const runtimesByLog = new WeakMap<EventLog, Map<string, ActorRuntime<AnyStateMachine>>>();
/**
 * The first event of a stream is stored without a snapshot (its state is the fold of that one event):
 * the many one-event streams (fresh agents, single-use values, codes) then write one row, not two.
 */
const snapshotWanted = (version: number) => version > 1;

/**
 * Actors whose state is the fold of their stream through a pure machine. A command becomes a machine
 * event; if the machine accepts it, the event is appended with the expected version (snapshot cached in
 * the same transaction) and only then does the in-memory state move. Commands on one stream run one at
 * a time; actors not in memory are rebuilt from their snapshot and the events after it.
 */
export class ActorRuntime<M extends AnyStateMachine> {
  private readonly cache: BoundedCache<string, Loaded<M>>;
  private readonly turns = new Map<string, Promise<unknown>>();
  /** Snapshots are immutable, so every new actor can start from this one. */
  private readonly initial: AnyMachineSnapshot;

  constructor(
    private readonly log: EventLog,
    readonly machine: M,
    readonly streamPrefix: string,
    cacheSize = 10_000,
    /** Short streams (a few events each) fold faster than a snapshot is written: they may go without. */
    private readonly snapshots = true,
    /**
     * How often a command is decided again after another writer moved its stream, before StreamBusy.
     * Each lost race is another command served; streams many instances write at once may allow more.
     */
    private readonly conflictRetries = MAX_CONFLICT_RETRIES,
  ) {
    this.cache = new BoundedCache(cacheSize);
    // Widened first: a machine of any input starts here without one (the machines here take none).
    const anyMachine: AnyStateMachine = machine;
    this.initial = initialTransition(anyMachine)[0];
  }

  /**
   * The runtime of a stream category in this log, made once: every service that folds `prefix:` streams
   * shares its cache and its turns, so no two in-memory copies of one actor can disagree.
   */
  static of<M extends AnyStateMachine>(
    log: EventLog,
    machine: M,
    streamPrefix: string,
    cacheSize?: number,
    snapshots?: boolean,
    conflictRetries?: number,
  ): ActorRuntime<M> {
    let runtimes = runtimesByLog.get(log);
    if (!runtimes) runtimesByLog.set(log, (runtimes = new Map()));
    const existing = runtimes.get(streamPrefix);
    if (existing) {
      if (existing.machine !== machine)
        throw new Error(`the ${streamPrefix}: streams already fold through another machine`);
      return existing as ActorRuntime<M>;
    }
    const made = new ActorRuntime(log, machine, streamPrefix, cacheSize, snapshots, conflictRetries);
    runtimes.set(streamPrefix, made as ActorRuntime<AnyStateMachine>);
    return made;
  }

  streamId(id: string): string {
    return `${this.streamPrefix}:${id}`;
  }

  /**
   * The actor's current state, from memory or rebuilt from the log. When other instances append to the
   * same log, what memory holds is brought up to date first (the events after its version, usually
   * none: one indexed read), so reads and decisions are never made on a stale state.
   */
  async get(id: string): Promise<Loaded<M>> {
    const cached = this.cache.get(id);
    if (!cached) return this.load(id);
    return this.log.shared ? this.catchUp(id, cached) : cached;
  }

  private async catchUp(id: string, cached: Loaded<M>): Promise<Loaded<M>> {
    const rest = await this.log.readStream(this.streamId(id), cached.version);
    if (rest.length === 0) return cached;
    const loaded = {
      snapshot: fold(this.machine, rest, cached.snapshot as AnyMachineSnapshot) as SnapshotFrom<M>,
      version: cached.version + rest.length,
    };
    this.cache.set(id, loaded);
    return loaded;
  }

  /**
   * Runs the first command of a stream the caller has just named (e.g. a fresh random id): no read of
   * the log is needed. Should the stream exist after all, the append conflicts and the command is
   * decided again against the stored state.
   */
  create(id: string, command: Command<M>): Promise<Outcome<M>> {
    const cached = this.cache.get(id);
    if (cached) return this.execute(id, command);
    this.cache.set(id, { snapshot: this.initial as SnapshotFrom<M>, version: 0 });
    return this.execute(id, command, true);
  }

  /** Runs one command in the actor's turn; `fresh`: the first decision is made on the cached state as it is. */
  execute(id: string, command: Command<M>, fresh = false): Promise<Outcome<M>> {
    const previous = this.turns.get(id) ?? Promise.resolve();
    const turn = previous.then(() => this.run(id, command, fresh));
    const settled = turn.catch(() => undefined);
    this.turns.set(id, settled);
    void settled.then(() => {
      if (this.turns.get(id) === settled) this.turns.delete(id);
    });
    return turn;
  }

  private async run(id: string, command: Command<M>, fresh: boolean): Promise<Outcome<M>> {
    for (let attempt = 0; attempt <= this.conflictRetries; attempt++) {
      const cached = fresh && attempt === 0 ? this.cache.get(id) : undefined;
      const current = cached ?? (await this.get(id));
      const decided =
        typeof command === 'function'
          ? await (
              command as (
                c: Loaded<M>,
              ) =>
                | MachineEvent<M>
                | MachineEvent<M>[]
                | undefined
                | Promise<MachineEvent<M> | MachineEvent<M>[] | undefined>
            )(current)
          : command;
      const events = decided === undefined ? [] : Array.isArray(decided) ? decided : [decided];
      if (events.length === 0) return { accepted: false, ...current };
      let next = current.snapshot as AnyMachineSnapshot;
      for (const event of events) {
        const after = step(this.machine, next, event);
        // xstate returns the same snapshot when no transition is enabled; only then ask `can` (an
        // enabled transition may also leave the snapshot unchanged).
        if (after === next && !next.can(event)) return { accepted: false, ...current };
        next = after;
      }
      const records: NewEvent[] = events.map(({ type, at, ...data }) => ({ type, at, data }));
      try {
        const version = current.version + events.length;
        const snapshot = this.snapshots && snapshotWanted(version) ? persistedState(next) : undefined;
        const stored = await this.log.append(this.streamId(id), current.version, records, snapshot);
        const loaded = { snapshot: next as SnapshotFrom<M>, version };
        this.cache.set(id, loaded);
        return { accepted: true, ...loaded, events: stored };
      } catch (error) {
        if (!(error instanceof VersionConflict)) throw error;
        this.cache.delete(id); // another writer moved the stream: rebuild and decide again
      }
    }
    throw new StreamBusy(this.streamId(id));
  }

  private async load(id: string): Promise<Loaded<M>> {
    const streamId = this.streamId(id);
    const stored = await this.log.loadSnapshot(streamId);
    const rest = await this.log.readStream(streamId, stored?.version ?? 0);
    const snapshot = fold(this.machine, rest, stored ? restore(this.machine, stored.state) : this.initial);
    const loaded = { snapshot: snapshot as SnapshotFrom<M>, version: (stored?.version ?? 0) + rest.length };
    this.cache.set(id, loaded);
    return loaded;
  }
}
