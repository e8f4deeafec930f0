import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Bench, BenchRow } from './types.ts';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const modules = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

function format(row: BenchRow): string {
  const value = row.value >= 100 ? Math.round(row.value).toLocaleString('en-US') : row.value.toFixed(2);
  let line = `  ${row.name.padEnd(58)} ${value.padStart(12)} ${row.unit}`;
  if (row.ratio)
    line += `  (x${row.ratio.value.toFixed(2)} vs ${row.ratio.against}${row.ratio.target ? `; target ${row.ratio.target}` : ''})`;
  if (row.note) line += `  ${row.note}`;
  return line;
}

console.log(`node ${process.version} on ${process.platform}/${process.arch}`);
for (const file of modules) {
  const mod = (await import(join(here, file))) as { default: Bench };
  console.log(`\n${file.replace('.bench.ts', '')}`);
  for (const row of await mod.default()) console.log(format(row));
}
