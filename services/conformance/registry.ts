import { createHash } from 'node:crypto';
import type { SourceFiles } from '../content/files.ts';
import { join } from 'node:path';
import { parse } from 'yaml';

interface SpecEntry {
  id: string;
  title: string;
  version: string;
  url: string;
  /** The extension variable that serves this spec (decisions §11); a deployment without it lists it not. */
  extension?: string;
}
export interface RequirementEntry {
  id: string;
  spec: string;
  section: string;
  section_url: string;
  level: string;
  statement: string;
  roles: string[];
  tests: Array<{ file: string; name: string }>;
  implementation: string[];
  /** The extension variable that serves this one requirement of a spec served by default (decisions §11). */
  extension?: string;
}
export interface Registry {
  specs: SpecEntry[];
  requirements: RequirementEntry[];
  digest: string;
}

export type Verdict = 'PASS' | 'FAIL' | 'MISSING_TEST';
export interface Report {
  schema_version: number;
  commit: string;
  generated_at: string;
  registry_digest: string;
  requirements: Array<{
    id: string;
    verdict: Verdict;
    tests: Array<{ file: string; name: string; line?: number; verdict: Verdict }>;
  }>;
}

/** BCP 14 keywords whose failure blocks indexing (spec section 3). */
export const MUST_FAMILY = new Set(['MUST', 'MUST NOT', 'REQUIRED', 'SHALL', 'SHALL NOT']);
const LEVELS = new Set([...MUST_FAMILY, 'SHOULD', 'SHOULD NOT', 'RECOMMENDED', 'NOT RECOMMENDED', 'MAY', 'OPTIONAL']);
const ID = /^[a-z0-9]+(-[a-z0-9]+)*-\d{3}$/;

/** Reads and checks `conformance/registry.yaml`; its digest is the SHA-256 of the file's bytes. */
export function loadRegistry(files: SourceFiles, file: string): Registry {
  const bytes = files.readBytes(file);
  const data = parse(Buffer.from(bytes).toString('utf8')) as { specs: SpecEntry[]; requirements: RequirementEntry[] };
  const specIds = new Set(data.specs.map((s) => s.id));
  const seen = new Set<string>();
  for (const r of data.requirements) {
    if (!ID.test(r.id) || !r.id.startsWith(`${r.spec}-`))
      throw new Error(`${file}: requirement id "${r.id}" must be <spec>-<nnn>`);
    if (seen.has(r.id)) throw new Error(`${file}: duplicate requirement id ${r.id}`);
    seen.add(r.id);
    if (!specIds.has(r.spec)) throw new Error(`${file}: ${r.id} names unknown spec ${r.spec}`);
    if (!LEVELS.has(r.level)) throw new Error(`${file}: ${r.id} has unknown level ${r.level}`);
    for (const t of r.tests)
      if (!t.name.startsWith(`[${r.id}] `))
        throw new Error(`${file}: test "${t.name}" of ${r.id} must be titled "[${r.id}] ..."`);
  }
  return { ...data, digest: createHash('sha256').update(bytes).digest('hex') };
}

/** A report counts only when its schema is known and it was made from this very registry. */
export function loadReport(
  files: SourceFiles,
  file: string | undefined,
  registry: Registry,
): { report?: Report; problem?: string } {
  if (!file || !files.exists(file)) return { problem: 'no report loaded' };
  try {
    const report = JSON.parse(files.readText(file)) as Report;
    if (report.schema_version !== 1)
      return { problem: `unknown report schema_version ${String(report.schema_version)}` };
    if (report.registry_digest !== registry.digest) return { problem: 'the report was made from another registry' };
    return { report };
  } catch {
    return { problem: 'the report is not valid JSON' };
  }
}

export const explainerPath = (contentDir: string, r: { spec: string; id: string }) =>
  join(contentDir, 'requirements', r.spec, `${r.id}.md`);

/** One test's outcome as the report maps it: a test titled `[<requirement id>] …`. */
export interface TestOutcome {
  file: string;
  title: string;
  line?: number;
  passed: boolean;
}

/** The report of a run: each requirement's verdict from the tests titled with its id (none: MISSING_TEST). */
export function buildReport(
  registry: Registry,
  outcomes: readonly TestOutcome[],
  commit: string,
  now = new Date(),
): Report {
  const byId = new Map<string, Array<{ file: string; name: string; line?: number; verdict: Verdict }>>();
  for (const o of outcomes) {
    const m = /^\[([a-z0-9-]+)\] /.exec(o.title);
    if (!m) continue;
    const list = byId.get(m[1]) ?? [];
    list.push({
      file: o.file,
      name: o.title,
      ...(o.line !== undefined ? { line: o.line } : {}),
      verdict: o.passed ? 'PASS' : 'FAIL',
    });
    byId.set(m[1], list);
  }
  return {
    schema_version: 1,
    commit,
    generated_at: now.toISOString(),
    registry_digest: registry.digest,
    requirements: registry.requirements.map((r) => {
      const tests = byId.get(r.id) ?? [];
      const verdict: Verdict =
        tests.length === 0 ? 'MISSING_TEST' : tests.every((t) => t.verdict === 'PASS') ? 'PASS' : 'FAIL';
      return { id: r.id, verdict, tests };
    }),
  };
}
