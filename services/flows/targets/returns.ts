import { invalidRequest } from '../../errors.ts';

/** A targeted run waits this long for the person to come back from the target's authorization endpoint. */
export const USER_WAIT_MS = 10 * 60_000;

interface Waiting {
  runId: string;
  since: number;
  resume(params: URLSearchParams): void;
  fail(error: Error): void;
}

/**
 * Runs of this process waiting for a person to come back to `{base}/runs/callback`, by the `state`
 * they sent with the authorization request (RFC 6749 §4.1.1): the callback finds its run by it.
 */
export class UserReturns {
  private readonly waiting = new Map<string, Waiting>();

  /** Settles with the authorization response's parameters when the person comes back. */
  wait(runId: string, state: string, now: number): Promise<URLSearchParams> {
    return new Promise((resume, fail) => this.waiting.set(state, { runId, since: now, resume, fail }));
  }

  /**
   * The callback: hands the response to the run that sent `state`; answers that run's id. A response
   * without state (a target that drops it) goes to the only run waiting, if there is exactly one, so its
   * `state echoed` check can fail; with several waiting it cannot be placed.
   */
  deliver(params: URLSearchParams): string {
    const state = params.get('state');
    const only = this.waiting.size === 1 ? [...this.waiting.keys()][0] : undefined;
    const key = state !== null && this.waiting.has(state) ? state : state === null ? only : undefined;
    const waiting = key === undefined ? undefined : this.waiting.get(key);
    if (!waiting)
      throw invalidRequest('No run waits for this state; the run may have ended, or the target dropped state');
    this.waiting.delete(key!);
    waiting.resume(params);
    return waiting.runId;
  }

  holds(runId: string): boolean {
    return [...this.waiting.values()].some((w) => w.runId === runId);
  }

  /** Ends the waits of `runId` (or of every run waiting since `before`) with `error`; answers the runs. */
  fail(error: Error, match: { runId?: string; before?: number }): string[] {
    const ended: string[] = [];
    for (const [state, w] of this.waiting)
      if (w.runId === match.runId || (match.before !== undefined && w.since <= match.before)) {
        this.waiting.delete(state);
        w.fail(error);
        ended.push(w.runId);
      }
    return ended;
  }
}
