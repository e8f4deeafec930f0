/**
 * Verification results. Every verifier in this folder returns either `{ valid: true, ... }` or
 * `{ valid: false, check, reason }`, where `check` names the step that failed (e.g. `sd_hash`,
 * `chain`, `device_authentication`). Inside a verifier a failed step throws `CheckFailed`; the
 * verifier's entry point turns it into the result, so no caller ever has to catch.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

type Failure<C extends string> = { valid: false; check: C; reason: string };
export type Result<T, C extends string> = ({ valid: true } & T) | Failure<C>;

export class CheckFailed<C extends string = string> extends Error {
  constructor(
    readonly check: C,
    readonly reason: string,
  ) {
    super(`${check}: ${reason}`);
    this.name = 'CheckFailed';
  }
}

/** The checks that held, in the order they first held, while `withCheckTrail` runs (per async context). */
const trail = new AsyncLocalStorage<Set<string>>();

/** Throws `CheckFailed(check, reason)` unless `condition` holds; a check that holds joins the trail. */
export function ensure<C extends string>(condition: unknown, check: C, reason: string): asserts condition {
  if (!condition) throw new CheckFailed(check, reason);
  trail.getStore()?.add(check);
}

/** Notes a check that held without an `ensure` (e.g. a signature a library verified). */
export function held(check: string): void {
  trail.getStore()?.add(check);
}

/**
 * Runs `body` and returns what it returned with every check that held on the way, so a caller can
 * report the checks that passed as well as the one that failed.
 */
export async function withCheckTrail<T>(body: () => Promise<T>): Promise<{ value: T; held: string[] }> {
  const checks = new Set<string>();
  const value = await trail.run(checks, body);
  return { value, held: [...checks] };
}

/** Runs a verifier body and maps a thrown `CheckFailed` to a failure result; other errors propagate. */
export async function runChecks<T, C extends string>(body: () => Promise<T>): Promise<Result<T, C>> {
  try {
    return { valid: true, ...(await body()) } as Result<T, C>;
  } catch (error) {
    if (error instanceof CheckFailed) return { valid: false, check: error.check as C, reason: error.reason };
    throw error;
  }
}
