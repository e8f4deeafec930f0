import fc from 'fast-check';
import { countedKey, readPublished, type Published, type PublishedTransition } from './definition.ts';
import { RateLimited } from './http.ts';
import {
  ModelMismatch,
  NotReachableHere,
  type MachineModel,
  type Observation,
  type Step,
  type Target,
} from './model.ts';

/** A failed check: the commands that led to it, and how to run them again. */
export interface Failure {
  machine: string;
  phase: 'coverage' | 'random';
  commands: string[];
  message: string;
  seed?: number;
  path?: string;
}

export interface MachineReport {
  machine: string;
  version: string;
  /** Transitions an HTTP request can cause, and those the log showed taken. */
  reachable: string[];
  covered: string[];
  unreachable: Record<string, string>;
  /** Reachable over HTTP, but not against this deployment as configured, each with why. */
  notHere: Array<{ transition: string; reason: string }>;
  failures: Failure[];
  runs: number;
  /** Why the run stopped before the end (a 429, Ctrl-C); what was covered until then is reported. */
  stopped?: string;
}

/** The run was told to stop (Ctrl-C): what was covered so far is reported. */
class Stopped extends Error {}

/** How a run reports itself as it goes, and how it is told to stop. */
export interface RunControl {
  progress(line: string): void;
  signal?: AbortSignal;
}

type AnyState = { state: string };

/** Runs one step, then reads the log back: its state must be the model's, and its transitions count. */
class Session<S extends AnyState> {
  readonly done: string[] = [];
  constructor(
    private readonly model: MachineModel<S>,
    private readonly published: Published,
    private readonly target: Target,
    readonly covered: Set<string>,
    readonly state: S,
    private readonly signal?: AbortSignal,
  ) {}

  step(name: string): Step<S> {
    const step = this.model.steps.find((s) => s.name === name);
    if (!step) throw new Error(`the ${this.model.machine} model has no step "${name}"`);
    return step;
  }

  async take(step: Step<S>): Promise<void> {
    if (this.signal?.aborted) throw new Stopped('interrupted');
    this.done.push(step.name);
    await step.run(this.state, this.target);
    await this.observe();
  }

  async observe(): Promise<Observation | undefined> {
    const seen = await this.model.observe(this.state, this.target);
    if (!seen) return undefined;
    for (const key of seen.transitions) this.covered.add(countedKey(this.published, key));
    if (seen.state !== this.state.state)
      throw new ModelMismatch(`logged state is ${seen.state}, the model predicts ${this.state.state}`);
    return seen;
  }
}

/** The steps that lead to `transition`: the published path to its source, then the transition itself. */
function recipe<S extends AnyState>(model: MachineModel<S>, published: Published, t: PublishedTransition) {
  const from =
    t.from === '*'
      ? (model.anywhereFrom ??
        Object.entries(published.paths)
          .filter(([, p]) => p.length > 0)
          .sort((a, b) => a[1].length - b[1].length)[0]![0])
      : t.from;
  const path = published.paths[from];
  if (!path) return undefined;
  const names: string[] = [];
  for (const s of [...path, { event: t.event, guard: t.guard }]) {
    const steps = model.stepsFor(s.event, s.guard, t);
    if (!steps) return undefined;
    names.push(...steps);
  }
  return names;
}

/** Coverage first: every reachable transition, each on a fresh actor, along its published path. */
async function coverTransitions<S extends AnyState>(
  model: MachineModel<S>,
  published: Published,
  target: Target,
  found: { covered: Set<string>; notHere: Map<string, string>; failures: Failure[] },
  control: RunControl,
): Promise<void> {
  const { covered, notHere, failures } = found;
  for (const t of published.transitions) {
    if (t.key in model.unreachable || covered.has(t.key)) continue;
    const names = recipe(model, published, t);
    if (!names) {
      failures.push({ machine: model.machine, phase: 'coverage', commands: [], message: `no steps reach ${t.key}` });
      continue;
    }
    // Taken as is; when the log stays unreadable, again with the reveal step before the last one.
    const attempts = model.reveal ? [names, [...names.slice(0, -1), model.reveal, ...names.slice(-1)]] : [names];
    for (const [i, attempt] of attempts.entries()) {
      const session = new Session(model, published, target, covered, model.create(), control.signal);
      try {
        for (const name of attempt) {
          const step = session.step(name);
          if (step.check && !step.check(session.state))
            throw new ModelMismatch(`the model cannot take "${name}" in ${session.state.state}`);
          await session.take(step);
        }
        let seen = await session.observe();
        const reveal = model.reveal ? session.step(model.reveal) : undefined;
        if (!seen && reveal && (!reveal.check || reveal.check(session.state))) {
          await session.take(reveal);
          seen = await session.observe();
        }
        if (!seen && i < attempts.length - 1) continue;
        if (!seen) throw new ModelMismatch('the log could not be read back');
        if (!covered.has(t.key)) throw new ModelMismatch(`${t.key} was not taken`);
        control.progress(`  covered ${t.key}`);
      } catch (error) {
        if (error instanceof RateLimited || error instanceof Stopped) throw error;
        if (error instanceof NotReachableHere) {
          notHere.set(t.key, error.message);
          control.progress(`  not here ${t.key}: ${error.message}`);
          break;
        }
        control.progress(`  FAIL ${t.key}: ${(error as Error).message}`);
        failures.push({
          machine: model.machine,
          phase: 'coverage',
          commands: session.done,
          message: `covering ${t.key}: ${(error as Error).message}`,
        });
      } finally {
        await model.finish?.(session.state, target);
      }
      break;
    }
  }
}

/** Then random runs: fast-check command sequences, refusals included, each on a fresh actor. */
async function randomRuns<S extends AnyState>(
  model: MachineModel<S>,
  published: Published,
  target: Target,
  covered: Set<string>,
  options: { runs: number; seed: number; maxCommands: number },
  signal?: AbortSignal,
): Promise<Failure | undefined> {
  const commands = model.steps
    .filter((step) => !step.slow)
    .map((step) =>
      fc.constant<fc.AsyncCommand<Session<S>, Target>>({
        check: (session) => !step.check || step.check(session.state),
        run: (session) => session.take(step),
        toString: () => step.name,
      }),
    );
  // The last run that failed is the shrunk counterexample: its steps are what the report shows.
  let failedSteps: string[] = [];
  const result = await fc.check(
    fc.asyncProperty(
      fc.constantFrom<string | undefined>(...(model.start ?? [undefined])),
      fc.commands(commands, { maxCommands: options.maxCommands, size: 'max' }),
      async (start, sequence) => {
        const session = new Session(model, published, target, covered, model.create(), signal);
        try {
          if (start !== undefined) await session.take(session.step(start));
          await fc.asyncModelRun(() => ({ model: session, real: target }), sequence);
        } catch (error) {
          failedSteps = [...session.done];
          throw error;
        } finally {
          await model.finish?.(session.state, target);
        }
      },
    ),
    { numRuns: options.runs, seed: options.seed },
  );
  if (!result.failed) return undefined;
  const error = result.errorInstance as Error | undefined;
  if (error instanceof RateLimited || error instanceof Stopped) throw error;
  // A random sequence that met a refusal of this deployment's configuration says nothing of the model.
  if (error instanceof NotReachableHere) return undefined;
  return {
    machine: model.machine,
    phase: 'random',
    commands: failedSteps,
    message: error?.message ?? 'the property failed',
    seed: result.seed,
    ...(result.counterexamplePath ? { path: result.counterexamplePath } : {}),
  };
}

/** Drives one machine's model against the deployment: coverage along the paths, then random runs. */
export async function testMachine<S extends AnyState>(
  model: MachineModel<S>,
  target: Target,
  options: { runs: number; seed: number; maxCommands: number },
  control: RunControl = { progress: () => undefined },
): Promise<MachineReport> {
  const published = await readPublished(target.http, model.machine);
  const failures: Failure[] = [];
  for (const key of Object.keys(model.unreachable))
    if (!published.transitions.some((t) => t.key === key))
      failures.push({
        machine: model.machine,
        phase: 'coverage',
        commands: [],
        message: `the model lists ${key} as unreachable, but the published definition has no such transition`,
      });
  const covered = new Set<string>();
  const notHere = new Map<string, string>();
  const reachable = published.transitions.map((t) => t.key).filter((k) => !(k in model.unreachable));
  control.progress(`${model.machine}: ${reachable.length} transitions reachable over HTTP`);
  let stopped: string | undefined;
  try {
    await coverTransitions(model, published, target, { covered, notHere, failures }, control);
    control.progress(`  ${options.runs} random runs`);
    const random = await randomRuns(model, published, target, covered, options, control.signal);
    if (random) failures.push(random);
    for (const key of reachable)
      if (!covered.has(key) && !notHere.has(key))
        failures.push({ machine: model.machine, phase: 'coverage', commands: [], message: `${key} was never taken` });
  } catch (error) {
    if (!(error instanceof RateLimited || error instanceof Stopped)) throw error;
    stopped = error.message;
  }
  return {
    machine: model.machine,
    version: published.version,
    reachable,
    covered: reachable.filter((k) => covered.has(k)),
    unreachable: model.unreachable,
    notHere: [...notHere].map(([transition, reason]) => ({ transition, reason })),
    failures,
    runs: options.runs,
    ...(stopped ? { stopped } : {}),
  };
}
