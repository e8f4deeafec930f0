import type { JsonObject } from '../untrusted/json.ts';
import type { HttpCapture } from './capture.ts';
import type { CheckResult } from './targets/checks.ts';
import type { SamlTarget, ScimTarget, Target } from './targets/target.ts';

/** What a runner gets: the origin to talk to, the recording HTTP client, a pause, and the caller's options. */
export interface RunContext {
  base: string;
  http: HttpCapture;
  /** Waits `ms` (a real pause in service; the clock moves instantly in tests). */
  wait(ms: number): Promise<void>;
  /** The service's clock, in epoch seconds: what the runner's own JWTs (`iat`, `exp`) are dated by. */
  nowS(): number;
  options: Record<string, unknown>;
  /** A run against an authorization server of the user's own (`{"target": {...}}`). */
  target?: Target;
  /** A run against a SCIM service provider of the user's own (`scim/check-server`). */
  scimTarget?: ScimTarget;
  /** An SP of the user's own that the SAML attack lab attacks. */
  samlTarget?: SamlTarget;
  /** Records the verdict of one named check on the target's answers (a failed one does not stop the run). */
  check(result: CheckResult): Promise<void>;
  /** Where a person comes back from the target's authorization endpoint: `{base}/runs/callback`. */
  callbackUrl: string;
  /**
   * Waits (in `awaiting_user`) for the person to sign in at `authorizationUrl` and come back with
   * `state`; answers the authorization response's parameters.
   */
  awaitUser(authorizationUrl: string, state: string): Promise<URLSearchParams>;
}

export type FlowRunner = (run: RunContext) => Promise<void>;

/** Runners by `<protocol>/<flow>`; a catalog flow without one is listed with `executable: false`. */
export class FlowRunners {
  private readonly runners = new Map<string, FlowRunner>();

  register(protocol: string, flow: string, runner: FlowRunner): this {
    this.runners.set(`${protocol}/${flow}`, runner);
    return this;
  }

  get(protocol: string, flow: string): FlowRunner | undefined {
    return this.runners.get(`${protocol}/${flow}`);
  }

  has(protocol: string, flow: string): boolean {
    return this.runners.has(`${protocol}/${flow}`);
  }
}

/** A failed expectation inside a runner: the run ends `failed` with this message. */
export class FlowFailure extends Error {}

export function expectStatus(actual: number, expected: number, what: string): void {
  if (actual !== expected) throw new FlowFailure(`${what}: expected HTTP ${expected}, got ${actual}`);
}

/** The string member `name` of an answer's JSON object; absent, empty or not a string fails the run. */
export function stringIn(answer: { json: JsonObject }, name: string): string {
  const value = answer.json[name];
  if (typeof value !== 'string' || value === '') throw new FlowFailure(`the answer carries no ${name}`);
  return value;
}

/** The number member `name` of an answer's JSON object; absent or not a number fails the run. */
export function numberIn(answer: { json: JsonObject }, name: string): number {
  const value = answer.json[name];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new FlowFailure(`the answer carries no ${name}`);
  return value;
}
