import type { SourceFiles } from '../content/files.ts';
import {
  MUST_FAMILY,
  explainerPath,
  loadReport,
  loadRegistry,
  type Registry,
  type Report,
  type RequirementEntry,
  type Verdict,
} from './registry.ts';

export const NOT_EVALUATED = 'Not evaluated for this build';
/** How a build gets its verdicts, said wherever none are shown. */
export const HOW_TO_EVALUATE =
  "Verdicts come from the self-test report of the exact commit the server runs: `npm test` (the whole suite) writes conformance/report.json for the checked-out commit, and a server started afterwards shows each test's result here.";

export interface RequirementView extends RequirementEntry {
  verdict: Verdict | typeof NOT_EVALUATED;
  verdict_note: string;
  /** `NOT_RUN`: the test exists, but no report of this build says how it went. */
  test_results: Array<{ file: string; name: string; line?: number; verdict: Verdict | 'NOT_RUN'; url?: string }>;
  implementation_links: Array<{ path: string; url?: string }>;
  explainer?: string;
  indexable: boolean;
}

/**
 * The conformance registry with the self-test report of the running build. Verdicts show only when the
 * report is valid and was generated from the commit the server runs; pages are indexable only with a
 * valid report, no MUST-family FAIL anywhere, and a written explainer.
 */
export class Conformance {
  readonly registry: Registry;
  private readonly report?: Report;
  readonly reportProblem?: string;

  constructor(
    private readonly files: SourceFiles,
    registryFile: string,
    reportFile: string | undefined,
    private readonly contentDir: string,
    private readonly build: { commit: string; repositoryUrl?: string },
    enabledExtensions: ReadonlySet<string> = new Set(),
  ) {
    const registry = loadRegistry(files, registryFile);
    const { report, problem } = loadReport(files, reportFile, registry);
    this.report = report;
    this.reportProblem = problem;
    // A spec (or one requirement) served only by an extension that is off is not this deployment's to claim.
    const on = (extension: string | undefined) => !extension || enabledExtensions.has(extension);
    const served = registry.specs.filter((s) => on(s.extension));
    const ids = new Set(served.map((s) => s.id));
    this.registry = {
      ...registry,
      specs: served,
      requirements: registry.requirements.filter((r) => ids.has(r.spec) && on(r.extension)),
    };
  }

  /** Verdicts apply to this build only. */
  private get current(): Report | undefined {
    return this.report && this.report.commit === this.build.commit ? this.report : undefined;
  }

  private get noMustFailure(): boolean {
    const r = this.current;
    if (!r) return false;
    const levels = new Map(this.registry.requirements.map((q) => [q.id, q.level]));
    return !r.requirements.some((q) => q.verdict === 'FAIL' && MUST_FAMILY.has(levels.get(q.id) ?? ''));
  }

  private link(path: string, line?: number): string | undefined {
    if (!this.build.repositoryUrl || this.build.commit === 'unknown') return undefined;
    return `${this.build.repositoryUrl}/blob/${this.build.commit}/${path}${line ? `#L${line}` : ''}`;
  }

  requirement(id: string): RequirementView | undefined {
    const r = this.registry.requirements.find((q) => q.id === id);
    if (!r) return undefined;
    const result = this.current?.requirements.find((q) => q.id === id);
    const explainerFile = explainerPath(this.contentDir, r);
    const explainer = this.files.exists(explainerFile)
      ? this.files.readText(explainerFile).replace(/^---[\s\S]*?---\s*/, '')
      : undefined;
    return {
      ...r,
      verdict: result?.verdict ?? NOT_EVALUATED,
      verdict_note: result
        ? `Self-test of commit ${this.build.commit}, not a certification.`
        : `${this.reportProblem ?? 'The loaded report was generated from another commit.'} ${HOW_TO_EVALUATE}`,
      test_results: (
        result?.tests ??
        r.tests.map((t) => ({ ...t, line: undefined as number | undefined, verdict: 'NOT_RUN' as const }))
      ).map((t) => ({ ...t, url: this.link(t.file, t.line) })),
      implementation_links: r.implementation.map((path) => ({ path, url: this.link(path) })),
      ...(explainer ? { explainer } : {}),
      indexable: this.noMustFailure && explainer !== undefined,
    };
  }

  specs() {
    return this.registry.specs.map((s) => {
      const reqs = this.registry.requirements.filter((r) => r.spec === s.id).map((r) => this.requirement(r.id)!);
      const verdicts: Record<string, number> = {};
      for (const r of reqs) verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
      return { ...s, requirement_count: reqs.length, indexable: reqs.some((r) => r.indexable), verdicts };
    });
  }

  spec(id: string) {
    const s = this.specs().find((x) => x.id === id);
    return (
      s && {
        ...s,
        requirements: this.registry.requirements.filter((r) => r.spec === id).map((r) => this.requirement(r.id)!),
      }
    );
  }

  indexablePages(): Array<{ path: string; title: string }> {
    return this.specs().flatMap((s) =>
      s.indexable
        ? [
            { path: `/spec/${s.id}`, title: s.title },
            ...this.spec(s.id)!
              .requirements.filter((r) => r.indexable)
              .map((r) => ({ path: `/spec/${s.id}/${r.id}`, title: `${r.id}: ${r.statement}` })),
          ]
        : [],
    );
  }

  loaded() {
    return {
      valid_report: this.report !== undefined,
      current: this.current !== undefined,
      problem: this.reportProblem,
    };
  }
}
