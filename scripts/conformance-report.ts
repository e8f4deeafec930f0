/**
 * `npm run conformance:report`: runs the test suite, maps each registry requirement to the results of
 * the tests titled `[<id>] ...`, and writes `conformance/report.json` with the commit it ran on and
 * the registry digest. `--from <vitest-json>` maps an existing vitest JSON result instead of running.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildReport, loadRegistry, type Verdict } from '../services/conformance/registry.ts';
import { nodeFiles } from '../adapters/files/node-files.ts';
import { loadToolSettings } from '../adapters/config.ts';

const { values } = parseArgs({
  options: {
    from: { type: 'string' },
    out: { type: 'string', default: 'conformance/report.json' },
    registry: { type: 'string', default: 'conformance/registry.yaml' },
  },
});
const registry = loadRegistry(nodeFiles, values.registry!);

interface VitestJson {
  testResults: Array<{
    name: string;
    assertionResults: Array<{ title: string; fullName: string; status: string; location?: { line: number } }>;
  }>;
}

let resultsFile = values.from;
if (!resultsFile) {
  resultsFile = join(mkdtempSync(join(tmpdir(), 'portico-report-')), 'vitest.json');
  const run = spawnSync(
    'npx',
    ['vitest', 'run', '--reporter=json', `--outputFile=${resultsFile}`, '--includeTaskLocation'],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (run.error) throw run.error;
}
const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as VitestJson;
const root = process.cwd();
const outcomes = results.testResults.flatMap((file) =>
  file.assertionResults.map((a) => ({
    file: file.name.replace(`${root}/`, ''),
    title: a.title,
    ...(a.location ? { line: a.location.line } : {}),
    passed: a.status === 'passed',
  })),
);
let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim();
} catch {}
const report = buildReport(registry, outcomes, loadToolSettings().buildCommit || commit);
const tmp = `${values.out}.tmp`;
writeFileSync(tmp, `${JSON.stringify(report, null, 2)}\n`);
renameSync(tmp, values.out!);
const count = (v: Verdict) => report.requirements.filter((r) => r.verdict === v).length;
console.log(
  `conformance report for ${report.commit}: ${count('PASS')} PASS, ${count('FAIL')} FAIL, ${count('MISSING_TEST')} MISSING_TEST -> ${values.out}`,
);
