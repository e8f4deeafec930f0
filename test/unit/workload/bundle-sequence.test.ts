import { describe, expect, it } from 'vitest';
import { BundleSequence } from '../../../services/workload/bundle.ts';

describe('spiffe_sequence', () => {
  const t0 = Date.UTC(2026, 10, 23);

  it('stays while the bundle is the same and rises when it changes', () => {
    const seq = new BundleSequence();
    const first = seq.observe('example.org', [{ kid: 'a' }], t0);
    expect(seq.observe('example.org', [{ kid: 'a' }], t0 + 5_000)).toBe(first);
    expect(seq.observe('example.org', [{ kid: 'b' }], t0 + 5_000)).toBeGreaterThan(first);
  });

  it('keeps rising across a restart of the service', () => {
    const before = new BundleSequence();
    let last = before.observe('example.org', [{ kid: 'a' }], t0);
    for (const kid of ['b', 'c', 'd']) last = before.observe('example.org', [{ kid }], t0 + 1_000);
    const after = new BundleSequence(); // a new process, a second later
    expect(after.observe('example.org', [{ kid: 'd' }], t0 + 2_000)).toBeGreaterThan(last);
  });

  it('counts each trust domain apart', () => {
    const seq = new BundleSequence();
    const a = seq.observe('a.example', [{ kid: 'x' }], t0);
    seq.observe('b.example', [{ kid: 'y' }], t0);
    seq.observe('b.example', [{ kid: 'z' }], t0);
    expect(seq.observe('a.example', [{ kid: 'x' }], t0)).toBe(a);
  });
});
