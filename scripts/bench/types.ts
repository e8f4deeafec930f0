/** One printed figure of `npm run bench`. */
export interface BenchRow {
  /** What was measured, e.g. "jose ES256 sign". */
  name: string;
  value: number;
  unit: string;
  /** Optional ratio against a baseline measured in the same run, with the target it is held to. */
  ratio?: { against: string; value: number; target?: string };
  note?: string;
}

/** A bench module's default export. */
export type Bench = () => Promise<BenchRow[]>;

/** Runs `fn` repeatedly for about `ms` milliseconds and returns operations per second. */
export async function opsPerSecond(fn: () => unknown | Promise<unknown>, ms = 1500): Promise<number> {
  for (let i = 0; i < 20; i++) await fn();
  const start = process.hrtime.bigint();
  const limit = BigInt(ms) * 1_000_000n;
  let n = 0;
  let elapsed = 0n;
  while ((elapsed = process.hrtime.bigint() - start) < limit) {
    await fn();
    n++;
  }
  return (n * 1e9) / Number(elapsed);
}

/** Steady state first: lazily loaded modules, JIT and caches of the server under test warm up for this long. */
export const WARM_UP_MS = 1_500;

/**
 * Runs `flow` `concurrency` at a time for `durationMs`, after the same load for `warmUpMs` (not
 * counted); returns how many timed runs completed and over how many seconds.
 */
export async function concurrentFlows(flow: () => Promise<unknown>, concurrency: number, durationMs: number, warmUpMs = WARM_UP_MS): Promise<{ done: number; seconds: number }> {
  if (warmUpMs > 0) await concurrentFlows(flow, concurrency, warmUpMs, 0);
  let done = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() - started < durationMs) {
      await flow();
      done += 1;
    }
  }));
  return { done, seconds: (performance.now() - started) / 1000 };
}
