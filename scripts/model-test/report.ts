import type { Failure, MachineReport } from './runner.ts';

/** The tester's report: coverage per machine, then each failure with the command to run it again. */
export function formatReport(reports: MachineReport[], seed: number, runs: number): string {
  const lines: string[] = [];
  for (const r of reports) {
    const mark = r.failures.length > 0 ? 'FAIL' : r.stopped ? 'STOP' : 'ok  ';
    lines.push(
      `${mark} ${r.machine}: ${r.covered.length}/${r.reachable.length} transitions reachable over HTTP covered, ` +
        `${r.stopped ? `stopped (${r.stopped})` : `${r.runs} random runs`} (machine version ${r.version.slice(0, 12)}…)`,
    );
    for (const [key, why] of Object.entries(r.unreachable)) lines.push(`       not over HTTP: ${key} (${why})`);
    for (const { transition, reason } of r.notHere) lines.push(`       uncovered here: ${transition} (${reason})`);
    if (r.stopped)
      for (const key of r.reachable.filter((k) => !r.covered.includes(k)))
        lines.push(`       not reached before the stop: ${key}`);
  }
  const failures = reports.flatMap((r) => r.failures);
  for (const f of failures) lines.push('', ...formatFailure(f, seed, runs));
  const stopped = reports.find((r) => r.stopped);
  lines.push(
    '',
    failures.length > 0
      ? `model-test failed: ${failures.length} failure(s) (seed ${seed})`
      : stopped
        ? `model-test stopped before the end: ${stopped.stopped} (seed ${seed}); no failure until then`
        : `model-test passed (seed ${seed})`,
  );
  return lines.join('\n');
}

function formatFailure(f: Failure, seed: number, runs: number): string[] {
  const lines = [`FAIL ${f.machine} (${f.phase}): ${f.message}`];
  if (f.commands.length > 0) lines.push(`  commands: ${f.commands.join(' → ')}`);
  if (f.phase === 'random')
    lines.push(
      `  again: npm run model-test -- --machine ${f.machine} --seed ${f.seed ?? seed} --runs ${runs}` +
        (f.path ? ` (fast-check path ${f.path})` : ''),
    );
  return lines;
}
