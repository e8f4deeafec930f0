import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { cpuSecondsOf } from '../support/child-server.ts';
import type { FlowLoad } from './support/flow-load.ts';

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
export async function concurrentFlows(
  flow: () => Promise<unknown>,
  concurrency: number,
  durationMs: number,
  warmUpMs = WARM_UP_MS,
): Promise<{ done: number; seconds: number }> {
  if (warmUpMs > 0) await concurrentFlows(flow, concurrency, warmUpMs, 0);
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() - started < durationMs) {
        await flow();
        done += 1;
      }
    }),
  );
  return { done, seconds: (performance.now() - started) / 1000 };
}

/** The middle value (the mean of the two middle ones for an even count). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** One side's figure in one round: flows per second, the server's CPU per flow and what else used the machine. */
export interface FlowFigure {
  perSecond: number;
  cpuMicros: number;
  /** This process's CPU per flow: the load generator, which shares the machine with the server. */
  generatorMicros: number;
  /** The whole machine's busy time over the stretch, in cores (of `availableParallelism()`). */
  machineBusyCores: number;
}

/** Busy and total clock ticks of the whole machine so far (the aggregate `cpu` line of /proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8')
    .slice(0, 256)
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  // idle and iowait are the 4th and 5th fields.
  return { busy: total - fields[3] - fields[4], total };
}

/**
 * Runs `load` against a server process (warm-up not counted) and also reads, over the counted
 * stretch, that process's CPU time (from /proc), the load generator's (this process's) and how busy
 * the whole machine was: a server cannot go faster than the cores the generator leaves it.
 */
export async function flowFigure(load: FlowLoad, pid: number, durationMs: number): Promise<FlowFigure> {
  await load(WARM_UP_MS);
  const before = cpuSecondsOf(pid);
  const generatorBefore = process.cpuUsage();
  const machineBefore = machineTicks();
  const { done, seconds } = await load(durationMs);
  const generator = process.cpuUsage(generatorBefore);
  const machine = machineTicks();
  return {
    perSecond: done / seconds,
    cpuMicros: ((cpuSecondsOf(pid) - before) / done) * 1e6,
    generatorMicros: (generator.user + generator.system) / done,
    machineBusyCores:
      ((machine.busy - machineBefore.busy) / (machine.total - machineBefore.total)) * availableParallelism(),
  };
}

/**
 * Ours against a peer on a shared machine: `rounds` rounds, each measuring ours then the peer back to
 * back, so both sides of a round see the same stretch of the machine. The figures are the medians of
 * the rounds; the ratios are the medians of the per-round ratios (a noisy neighbour moves one round,
 * not the verdict), after one uncounted round of each. Each round's throughput ratio is given too, with
 * both sides' flows per second.
 */
export async function interleavedRounds(
  rounds: number,
  ours: () => Promise<FlowFigure>,
  theirs: () => Promise<FlowFigure>,
) {
  // One round first that does not count: both servers reach their steady state (JIT, caches) before
  // any round does; a slower-starting side would otherwise lose its first round.
  await ours();
  await theirs();
  const pairs: { ours: FlowFigure; theirs: FlowFigure }[] = [];
  for (let i = 0; i < rounds; i++) pairs.push({ ours: await ours(), theirs: await theirs() });
  const throughputRatios = pairs.map((p) => p.ours.perSecond / p.theirs.perSecond);
  const medianOf = (side: 'ours' | 'theirs'): FlowFigure => ({
    perSecond: median(pairs.map((p) => p[side].perSecond)),
    cpuMicros: median(pairs.map((p) => p[side].cpuMicros)),
    generatorMicros: median(pairs.map((p) => p[side].generatorMicros)),
    machineBusyCores: median(pairs.map((p) => p[side].machineBusyCores)),
  });
  return {
    ours: medianOf('ours'),
    theirs: medianOf('theirs'),
    throughputRatio: median(throughputRatios),
    cpuRatio: median(pairs.map((p) => p.theirs.cpuMicros / p.ours.cpuMicros)),
    rounds: pairs
      .map(
        (p, i) =>
          `x${throughputRatios[i].toFixed(2)} (${Math.round(p.ours.perSecond)}/${Math.round(p.theirs.perSecond)})`,
      )
      .join(' '),
  };
}

/**
 * The rows that say what else ran during a comparison: the load generator's CPU per flow and the whole
 * machine's busy cores, each side's median. When the machine is near full, throughput follows the
 * server's and the generator's CPU per flow together, not the server's alone.
 */
function machineRows(label: string, r: { ours: FlowFigure; theirs: FlowFigure }): BenchRow[] {
  const cores = availableParallelism();
  return [
    {
      name: `  load generator CPU per flow, ours / peer, ${label}`,
      value: r.ours.generatorMicros,
      unit: 'µs',
      note: `peer ${Math.round(r.theirs.generatorMicros).toLocaleString('en-US')} µs`,
    },
    {
      name: `  machine busy, ours / peer, ${label}`,
      value: r.ours.machineBusyCores,
      unit: `of ${cores} cores`,
      note: `peer ${r.theirs.machineBusyCores.toFixed(2)}`,
    },
  ];
}

/**
 * The rows of one side-by-side comparison with a peer: the peer's throughput, ours with the ratio and
 * its target, each side's server CPU per flow (lower is better: the ratio is the peer's over ours), and
 * the machine rows.
 */
export function peerComparisonRows(
  names: { peer: string; ours: string; against: string; label: string; note?: string },
  r: Awaited<ReturnType<typeof interleavedRounds>>,
): BenchRow[] {
  const { label } = names;
  return [
    { name: names.peer, value: r.theirs.perSecond, unit: 'flows/s' },
    {
      name: names.ours,
      value: r.ours.perSecond,
      unit: 'flows/s',
      ratio: { against: names.against, value: r.throughputRatio, target: '>= 1.5' },
      note: `rounds ${r.rounds}${names.note ? `; ${names.note}` : ''}`,
    },
    { name: `  server CPU per flow, peer, ${label}`, value: r.theirs.cpuMicros, unit: 'µs' },
    {
      name: `  server CPU per flow, ours, ${label}`,
      value: r.ours.cpuMicros,
      unit: 'µs',
      ratio: { against: 'peer CPU per flow (theirs / ours)', value: r.cpuRatio },
    },
    ...machineRows(label, r),
  ];
}
