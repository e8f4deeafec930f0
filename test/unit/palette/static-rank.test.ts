import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Artefact } from '../../../services/palette/artefacts.ts';
import { buildPaletteIndex } from '../../../adapters/palette/build-index.ts';
import { CANDIDATE_COUNT_CAP, Palette, RANK_WINDOW } from '../../../adapters/palette/sqlite-palette.ts';

const dir = mkdtempSync(join(tmpdir(), 'portico-static-rank-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const artefact = (id: string, type: Artefact['type'], name: string): Artefact => ({
  id,
  type,
  name,
  summary: `${name} summary`,
  protocol: null,
  href: `/${id}`,
  runnable: false,
  body: 'refresh rotation details',
  aliases: [],
  axes: [],
  edges: [],
});

describe('palette static rank', () => {
  // Many requirement rows that sort (by id) before the protocol and concept rows, all matching "refresh".
  const requirements = Array.from({ length: RANK_WINDOW * 3 }, (_, i) =>
    artefact(`a-req:${String(i).padStart(4, '0')}`, 'requirement', `Refresh requirement ${i}`),
  );
  // Rows that match nothing, so "refresh" is a rare enough term for bm25 to weigh it.
  const fillers = Array.from({ length: 2000 }, (_, i) => ({
    ...artefact(`m:${i}`, 'concept', `Metadata ${i}`),
    body: 'discovery document',
  }));
  const file = join(dir, 'index.db');
  buildPaletteIndex(
    [
      ...requirements,
      ...fillers,
      artefact('z-protocol:refresh', 'protocol', 'Refresh tokens'),
      artefact('z-concept:rotation', 'concept', 'Refresh token rotation'),
    ],
    file,
  );
  const palette = new Palette(file);
  afterAll(() => palette.close());

  it('scores weightier types even when more than a window of lighter rows match first by id', () => {
    const { results, total_candidates } = palette.query('refresh', { limit: 5 });
    expect(total_candidates).toBe(RANK_WINDOW * 3 + 2);
    expect(results.map((r) => r.id).slice(0, 2)).toEqual(['z-protocol:refresh', 'z-concept:rotation']);
  });

  it('still finds the lighter rows when scoped to their type', () => {
    const { results } = palette.query('refresh requirement 7', { scope: 'requirement', limit: 3 });
    expect(results[0]?.type).toBe('requirement');
    expect(results.every((r) => r.type === 'requirement')).toBe(true);
  });

  it('caps the candidate count', () => {
    const many = Array.from({ length: CANDIDATE_COUNT_CAP + 5 }, (_, i) => artefact(`c:${i}`, 'concept', `Grant ${i}`));
    const big = join(dir, 'big.db');
    buildPaletteIndex(many, big);
    const p = new Palette(big);
    try {
      expect(p.query('grant').total_candidates).toBe(CANDIDATE_COUNT_CAP);
      expect(p.query('nothingmatches').results).toEqual([]);
    } finally {
      p.close();
    }
  });
});
