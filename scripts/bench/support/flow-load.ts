import autocannon from 'autocannon';

/** What one flow's steps leave for the next ones (one object per connection, fresh for each flow). */
type FlowContext = Record<string, any>;

/** One HTTP exchange of a multi-step flow. */
export interface FlowStep {
  method: 'GET' | 'POST';
  /** Path and query, from what the earlier steps of this flow kept. */
  path: (context: FlowContext) => string;
  /** The request body and its content type, if any. */
  body?: (context: FlowContext) => { type: string; text: string };
  headers?: (context: FlowContext) => Record<string, string>;
  /** Reads a 2xx answer into the context; throws when the flow went wrong. */
  read?: (body: string, context: FlowContext) => void;
}

/** Runs flows for `durationMs` and says how many completed, over how many seconds. */
export type FlowLoad = (durationMs: number) => Promise<{ done: number; seconds: number }>;

/**
 * Flows of `steps` against `base`, `connections` at a time (one flow per keep-alive connection, its
 * steps in order), driven by autocannon: its HTTP client costs a fraction of a general-purpose one,
 * so on a machine the generator shares with the server under test, the server sets the pace. Any
 * non-2xx answer, a failed `read` or a transport error fails the run: nothing is counted that did
 * not complete.
 */
export function flowLoad(base: string, steps: readonly FlowStep[], connections: number): FlowLoad {
  return async (durationMs) => {
    let done = 0;
    let failure: string | undefined;
    const fail = (why: string, context: FlowContext) => {
      failure ??= why;
      context.failed = true;
    };
    const requests = steps.map((step, index) => ({
      method: step.method,
      // A flow that failed starts over (autocannon restarts the sequence when setup returns nothing).
      setupRequest: (request: Record<string, any>, context: FlowContext) => {
        if (context.failed) return undefined;
        const body = step.body?.(context);
        return {
          ...request,
          method: step.method,
          path: step.path(context),
          headers: { ...step.headers?.(context), ...(body ? { 'content-type': body.type } : {}) },
          body: body?.text,
        };
      },
      onResponse: (status: number, body: string, context: FlowContext) => {
        if (context.failed) return;
        if (status < 200 || status >= 300)
          return fail(`${step.method} ${step.path(context)}: ${status} ${body}`, context);
        try {
          step.read?.(body, context);
        } catch (error) {
          return fail(`${step.method} ${step.path(context)}: ${(error as Error).message}`, context);
        }
        if (index === steps.length - 1) done += 1;
      },
    }));
    const started = performance.now();
    const result = await autocannon({
      url: base,
      connections,
      duration: durationMs / 1000,
      requests: requests as never,
    });
    const seconds = (performance.now() - started) / 1000;
    if (failure) throw new Error(`a flow failed: ${failure}`);
    if (result.errors > 0 || result.timeouts > 0)
      throw new Error(`${result.errors} transport errors, ${result.timeouts} timeouts`);
    return { done, seconds };
  };
}
