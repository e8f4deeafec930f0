import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Artefact } from '../../services/palette/artefacts.ts';
import { buildPaletteIndex } from '../../adapters/palette/build-index.ts';
import { Palette } from '../../adapters/palette/sqlite-palette.ts';
import { paletteArtefacts } from '../../services/palette/source.ts';
import type { Bench, BenchRow } from './types.ts';
import { nodeFiles } from '../../adapters/files/node-files.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const QUERIES = [
  'pkce',
  'device code',
  'vc',
  'mdl',
  'oauth',
  'openid connect',
  'dpop',
  'refr',
  'token introspection',
  'rfc7523',
  'agent',
  'credential issuance',
  'x',
  'sign in',
  'jwt bearer',
];
const WORDS = [
  'token',
  'grant',
  'client',
  'issuer',
  'wallet',
  'proof',
  'key',
  'claim',
  'scope',
  'nonce',
  'signature',
  'credential',
  'holder',
  'verifier',
  'session',
  'refresh',
  'device',
  'consent',
  'audience',
  'metadata',
];

/** A synthetic artefact set of `n` entries, built deterministically from a small vocabulary. */
function generated(n: number): Artefact[] {
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
  return Array.from({ length: n }, (_, i) => ({
    id: `gen:${String(i).padStart(5, '0')}`,
    type: 'concept' as const,
    name: `${words(3)} ${i}`,
    summary: words(12),
    protocol: null,
    href: `/gen/${i}`,
    runnable: false,
    body: words(80),
    aliases: [words(2)],
    axes: [],
    edges: [],
  }));
}

function latencies(palette: Palette, rounds: number): { p50: number; p99: number } {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of QUERIES) {
      const t = process.hrtime.bigint();
      palette.query(q, { limit: 10 });
      samples.push(Number(process.hrtime.bigint() - t) / 1000);
    }
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length * 0.5)], p99: samples[Math.floor(samples.length * 0.99)] };
}

const bench: Bench = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-palette-'));
  const rows: BenchRow[] = [];
  try {
    for (const [label, artefacts] of [
      ['real index', paletteArtefacts(nodeFiles, ROOT, () => true)],
      ['generated 10,000 artefacts', generated(10_000)],
    ] as const) {
      const file = join(dir, `${label.replace(/\W+/g, '-')}.db`);
      buildPaletteIndex([...artefacts], file);
      const palette = new Palette(file);
      latencies(palette, 20); // warm up
      const { p50, p99 } = latencies(palette, 200);
      palette.close();
      rows.push({ name: `palette query p50, ${label} (${artefacts.length} artefacts)`, value: p50, unit: 'µs' });
      rows.push({ name: `palette query p99, ${label}`, value: p99, unit: 'µs', note: 'target < 2,000 µs' });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
};

export default bench;
