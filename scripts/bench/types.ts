import { cpuSecondsOf } from './support/child-server.ts';

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

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** One side's figure in one round: flows per second and the server's CPU per flow. */
export interface FlowFigure {
  perSecond: number;
  cpuMicros: number;
}

/**
 * Runs `flow` against a server process like `concurrentFlows` (warm-up not counted) and also reads
 * that process's CPU time over the counted stretch, from /proc.
 */
export async function flowFigure(flow: () => Promise<unknown>, pid: number, concurrency: number, durationMs: number): Promise<FlowFigure> {
  await concurrentFlows(flow, concurrency, WARM_UP_MS, 0);
  const before = cpuSecondsOf(pid);
  const { done, seconds } = await concurrentFlows(flow, concurrency, durationMs, 0);
  return { perSecond: done / seconds, cpuMicros: ((cpuSecondsOf(pid) - before) / done) * 1e6 };
}

/**
 * Ours against a peer on a shared machine: `rounds` rounds, each measuring ours then the peer back to
 * back, so both sides of a round see the same stretch of the machine. The figures are the medians of
 * the rounds; the ratios are the medians of the per-round ratios (a noisy neighbour moves one round,
 * not the verdict). The per-round throughput ratios are given too.
 */
export async function interleavedRounds(rounds: number, ours: () => Promise<FlowFigure>, theirs: () => Promise<FlowFigure>) {
  const pairs: { ours: FlowFigure; theirs: FlowFigure }[] = [];
  for (let i = 0; i < rounds; i++) pairs.push({ ours: await ours(), theirs: await theirs() });
  const throughputRatios = pairs.map((p) => p.ours.perSecond / p.theirs.perSecond);
  return {
    ours: { perSecond: median(pairs.map((p) => p.ours.perSecond)), cpuMicros: median(pairs.map((p) => p.ours.cpuMicros)) },
    theirs: { perSecond: median(pairs.map((p) => p.theirs.perSecond)), cpuMicros: median(pairs.map((p) => p.theirs.cpuMicros)) },
    throughputRatio: median(throughputRatios),
    cpuRatio: median(pairs.map((p) => p.theirs.cpuMicros / p.ours.cpuMicros)),
    rounds: throughputRatios.map((r) => `x${r.toFixed(2)}`).join(' '),
  };
}
