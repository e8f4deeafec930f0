/**
 * Verification results. Every verifier in this folder returns either `{ valid: true, ... }` or
 * `{ valid: false, check, reason }`, where `check` names the step that failed (e.g. `sd_hash`,
 * `chain`, `device_authentication`). Inside a verifier a failed step throws `CheckFailed`; the
 * verifier's entry point turns it into the result, so no caller ever has to catch.
 */
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

/**
 * The checks that held during one verification, in the order they first held. A caller that reports
 * them (the verifier's result, the status check) hands one trail down through the verifiers it calls;
 * it is passed explicitly because an AsyncLocalStorage would make Node 20 and 22 run a hook for every
 * promise of the process (x1.14 presentations a second without it, measured side by side).
 */
export class CheckTrail {
  private readonly checks = new Set<string>();

  /** Throws `CheckFailed(check, reason)` unless `condition` holds; a check that holds joins the trail. */
  ensure<C extends string>(condition: unknown, check: C, reason: string): asserts condition {
    if (!condition) throw new CheckFailed(check, reason);
    this.checks.add(check);
  }

  /** Notes a check that held without an `ensure` (e.g. a signature a library verified). */
  held(check: string): void {
    this.checks.add(check);
  }

  /** The checks that held so far, in the order they first held. */
  list(): string[] {
    return [...this.checks];
  }
}

/**
 * Runs a verifier body with `trail` (a fresh one when the caller keeps none) and maps a thrown
 * `CheckFailed` to a failure result; other errors propagate.
 */
export async function runChecks<T, C extends string>(
  trail: CheckTrail | undefined,
  body: (trail: CheckTrail) => Promise<T>,
): Promise<Result<T, C>> {
  try {
    return { valid: true, ...(await body(trail ?? new CheckTrail())) } as Result<T, C>;
  } catch (error) {
    if (error instanceof CheckFailed) return { valid: false, check: error.check as C, reason: error.reason };
    throw error;
  }
}
