import { describe, expect, it } from 'vitest';
import { buildReport, type Registry } from '../../../services/conformance/registry.ts';

// Issue 14: the report `npm test` leaves (and `npm run conformance:report` writes) maps tests titled `[id] …`.
const registry = {
  digest: 'sha256:x',
  specs: [],
  requirements: [
    { id: 'a-001', tests: [] },
    { id: 'a-002', tests: [] },
    { id: 'a-003', tests: [] },
  ],
} as unknown as Registry;

describe('the conformance report', () => {
  it('PASS when every test of a requirement passed, FAIL when one failed, MISSING_TEST when none is titled with its id', () => {
    const report = buildReport(
      registry,
      [
        { file: 'test/x.test.ts', title: '[a-001] first', line: 3, passed: true },
        { file: 'test/x.test.ts', title: '[a-001] second', passed: true },
        { file: 'test/y.test.ts', title: '[a-002] one', line: 9, passed: true },
        { file: 'test/y.test.ts', title: '[a-002] two', line: 12, passed: false },
        { file: 'test/z.test.ts', title: 'a-003 without brackets', passed: true },
      ],
      'abc123',
      new Date('2026-11-24T00:00:00Z'),
    );
    expect(report).toMatchObject({
      schema_version: 1,
      commit: 'abc123',
      generated_at: '2026-11-24T00:00:00.000Z',
      registry_digest: 'sha256:x',
    });
    expect(report.requirements.map((r) => [r.id, r.verdict, r.tests.length])).toEqual([
      ['a-001', 'PASS', 2],
      ['a-002', 'FAIL', 2],
      ['a-003', 'MISSING_TEST', 0],
    ]);
    expect(report.requirements[1].tests[1]).toEqual({
      file: 'test/y.test.ts',
      name: '[a-002] two',
      line: 12,
      verdict: 'FAIL',
    });
  });
});
