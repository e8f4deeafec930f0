import type { Http } from './http.ts';

/** One transition of a published definition, as the log shows it: from a state, by an event, to a state. */
export type TransitionKey = string;
export const transitionKey = (from: string, event: string, to: string): TransitionKey => `${from} --${event}--> ${to}`;

/** The transition a coverage path leads to (a step may depend on it: a deferred offer for a deferral). */
interface GoalTransition {
  from: string;
  event: string;
  to: string;
}

/** What a run of a model can reach: the deployment (and the wallet harness, when given). */
export interface Target {
  http: Http;
  wallet?: Http;
}

/** Where an actor's state is read back: the transitions its log records, and the state it is in. */
export interface Observation {
  state: string;
  transitions: TransitionKey[];
}

/**
 * One thing a client may do, as a model command: `check` says whether the model lets it be tried now
 * (refusals the spec names are commands too), and `run` sends it, checks the answer the model
 * predicts, and moves the model.
 */
export interface Step<S> {
  name: string;
  /** Waits out a real interval: taken on coverage paths only, never in random runs. */
  slow?: boolean;
  check?(model: S): boolean;
  run(model: S, target: Target): Promise<void>;
}

/**
 * A machine's model: the HTTP commands that drive one of its actors, the state the model predicts,
 * and how to read the actor's logged state back. Transitions no HTTP request can cause are listed with
 * the reason, so coverage counts only the rest.
 */
export interface MachineModel<S extends { state: string }> {
  /** The machine's id in `/api/machines`. */
  machine: string;
  /** `transitionKey` -> why no request causes it within a run. */
  unreachable: Record<TransitionKey, string>;
  /** Needs the wallet harness (`--wallet`). */
  needsWallet?: boolean;
  /** Where coverage takes an event of every state (`* --e--> *`); default: the nearest state after the initial. */
  anywhereFrom?: string;
  /** The steps a random run may begin with, one chosen per run, so its commands act on a live actor. */
  start?: string[];
  /**
   * Run after each session: leaves nothing the deployment would count against the next one (a targeted
   * run still waiting for a person counts toward the client's limit of two at once).
   */
  finish?(model: S, target: Target): Promise<void>;
  /** A fresh model: one new actor, nothing sent yet. */
  create(): S;
  steps: Step<S>[];
  /**
   * The steps that take a path's `{event, guard}` from the published paths: what the client does so
   * that event happens with that guard holding (a guarded poll grants only after an approval, say).
   */
  stepsFor(event: string, guard: string | undefined, goal: GoalTransition): string[] | undefined;
  /**
   * A step that makes the actor's log readable without deciding anything the model checks (the agent
   * redeems its assertion to hold a token), for coverage paths that would otherwise end unread.
   */
  reveal?: string;
  /** Reads the actor's state as the deployment records it; undefined while nothing can be read yet. */
  observe(model: S, target: Target): Promise<Observation | undefined>;
}

/** A prediction that did not hold: what was expected, what came. */
export class ModelMismatch extends Error {}

/**
 * The deployment, as configured, cannot take this transition (it refuses itself as a flow target, an
 * extension is off): the transition is reported uncovered with this reason, never as a failure.
 */
export class NotReachableHere extends Error {}

/** Throws NotReachableHere when the deployment refused a targeted run's destination (its outbound guard). */
export function unlessDestinationRefused(what: string, answer: { status: number; body: any }): void {
  if (answer.status === 400 && answer.body?.error === 'destination_not_allowed')
    throw new NotReachableHere(`${what}: the deployment refuses the destination (${answer.body.error_description})`);
}

/** Checks one answer against the model's prediction (the spec's status and error code). */
export function expectAnswer(
  what: string,
  answer: { status: number; body: any },
  status: number,
  error?: string,
): void {
  const code = typeof answer.body === 'object' && answer.body ? answer.body.error : undefined;
  if (answer.status === status && (error === undefined || code === error)) return;
  const got = `${answer.status}${code ? ` ${code}` : ''}`;
  throw new ModelMismatch(`${what}: expected ${status}${error ? ` ${error}` : ''}, got ${got}`);
}

/** Checks a prediction about a value. */
export function expectEqual(what: string, actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    throw new ModelMismatch(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}
