import { describe, expect, it } from 'vitest';
import { OAuthError } from '../../../services/errors.ts';
import { diffRuns, MAX_DIFF_EXCHANGES } from '../../../services/streams/diff.ts';
import type { StreamExport } from '../../../services/streams/export.ts';

// Issue 45 item 36: a diff's cost is bounded by run size, whatever a run (or an export file) holds.
const runOf = (exchanges: number): StreamExport =>
  ({
    format: 'portico-stream/1',
    stream: 'run:x',
    machine: { id: 'flowRun', version: 'v' },
    final_state: 'succeeded',
    digest: '',
    events: Array.from({ length: exchanges }, (_, i) => ({
      sequence: i + 1,
      version: i + 1,
      at: new Date(0).toISOString(),
      type: 'run.exchange_recorded',
      state: 'running',
      data: {
        step: `step ${i}`,
        request: { method: 'GET', url: `https://a.example/${i}`, headers: {} },
        response: { status: 200, headers: {}, body: {} },
        duration_ms: 1,
        annotations: [],
      },
    })),
  }) as unknown as StreamExport;

describe('diff size bound', () => {
  it(`compares runs of up to ${MAX_DIFF_EXCHANGES} exchanges, and refuses larger ones with invalid_request`, () => {
    expect(diffRuns(runOf(MAX_DIFF_EXCHANGES), runOf(MAX_DIFF_EXCHANGES)).same).toBe(true);
    let refused: unknown;
    try {
      diffRuns(runOf(MAX_DIFF_EXCHANGES + 1), runOf(1));
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(OAuthError);
    expect((refused as OAuthError).error).toBe('invalid_request');
  });
});
