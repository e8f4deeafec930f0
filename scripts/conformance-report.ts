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
import { loadRegistry, type Report, type Verdict } from '../services/conformance/registry.ts';

const { values } = parseArgs({ options: { from: { type: 'string' }, out: { type: 'string', default: 'conformance/report.json' }, registry: { type: 'string', default: 'conformance/registry.yaml' } } });
const registry = loadRegistry(values.registry!);

interface VitestJson { testResults: Array<{ name: string; assertionResults: Array<{ title: string; fullName: string; status: string; location?: { line: number } }> }> }

let resultsFile = values.from;
if (!resultsFile) {
  resultsFile = join(mkdtempSync(join(tmpdir(), 'portico-report-')), 'vitest.json');
  const run = spawnSync('npx', ['vitest', 'run', '--reporter=json', `--outputFile=${resultsFile}`, '--includeTaskLocation'], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.error) throw run.error;
}
const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as VitestJson;
const root = process.cwd();
const byId = new Map<string, Array<{ file: string; name: string; line?: number; verdict: Verdict }>>();
for (const file of results.testResults) {
  for (const a of file.assertionResults) {
    const m = /^\[([a-z0-9-]+)\] /.exec(a.title);
    if (!m) continue;
    const list = byId.get(m[1]) ?? [];
    list.push({ file: file.name.replace(`${root}/`, ''), name: a.title, ...(a.location ? { line: a.location.line } : {}), verdict: a.status === 'passed' ? 'PASS' : 'FAIL' });
    byId.set(m[1], list);
  }
}

let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
} catch {}
const report: Report = {
  schema_version: 1,
  commit: process.env.BUILD_COMMIT || commit,
  generated_at: new Date().toISOString(),
  registry_digest: registry.digest,
  requirements: registry.requirements.map((r) => {
    const tests = byId.get(r.id) ?? [];
    const verdict: Verdict = tests.length === 0 ? 'MISSING_TEST' : tests.every((t) => t.verdict === 'PASS') ? 'PASS' : 'FAIL';
    return { id: r.id, verdict, tests };
  }),
};
const tmp = `${values.out}.tmp`;
writeFileSync(tmp, `${JSON.stringify(report, null, 2)}\n`);
renameSync(tmp, values.out!);
const count = (v: Verdict) => report.requirements.filter((r) => r.verdict === v).length;
console.log(`conformance report for ${report.commit}: ${count('PASS')} PASS, ${count('FAIL')} FAIL, ${count('MISSING_TEST')} MISSING_TEST -> ${values.out}`);
