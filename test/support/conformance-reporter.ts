import { execFileSync } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { buildReport, loadRegistry, type TestOutcome } from '../../services/conformance/registry.ts';
import { nodeFiles } from '../../adapters/files/node-files.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * Leaves `conformance/report.json` for the commit the tests ran on, so `npm test` alone is enough for
 * the requirement pages to show verdicts. Only a run that includes every test file the registry names
 * writes it: a filtered run would turn requirements it did not run into MISSING_TEST.
 */
export default class ConformanceReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const registry = loadRegistry(nodeFiles, `${ROOT}conformance/registry.yaml`);
    const ran = new Set(modules.map((m) => relative(ROOT, m.moduleId)));
    const missing = [...new Set(registry.requirements.flatMap((r) => r.tests.map((t) => t.file)))].filter(
      (f) => !ran.has(f),
    );
    if (missing.length > 0) {
      console.log(
        `conformance report not written: ${missing.length} test file(s) of the registry were not part of this run`,
      );
      return;
    }
    const outcomes: TestOutcome[] = [];
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        outcomes.push({
          file: relative(ROOT, module.moduleId),
          title: test.name,
          ...(test.location ? { line: test.location.line } : {}),
          passed: test.result().state === 'passed',
        });
      }
    }
    let commit = 'unknown';
    try {
      commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim();
    } catch {}
    const report = buildReport(registry, outcomes, process.env.BUILD_COMMIT || commit);
    const out = process.env.CONFORMANCE_REPORT_OUT || `${ROOT}conformance/report.json`;
    writeFileSync(`${out}.tmp`, `${JSON.stringify(report, null, 2)}\n`);
    renameSync(`${out}.tmp`, out);
    const count = (v: string) => report.requirements.filter((r) => r.verdict === v).length;
    console.log(
      `conformance report for ${report.commit}: ${count('PASS')} PASS, ${count('FAIL')} FAIL, ${count('MISSING_TEST')} MISSING_TEST -> ${relative(ROOT, out)}`,
    );
  }
}
