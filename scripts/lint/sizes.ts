/**
 * No source file over 300 lines (issue 46 §6): a file that grows past it is split by responsibility, not
 * squeezed. Prints each one and exits 1 when there is one. `npm run lint:size`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const MAX_LINES = 300;
const SOURCE_FOLDERS = ['adapters', 'services', 'machines', 'projections', 'scripts'];

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

/** Every source file over the limit, with its line count. */
export function oversizedFiles(root = ROOT): Array<{ file: string; lines: number }> {
  const found = [];
  for (const folder of SOURCE_FOLDERS.filter((f) => existsSync(join(root, f))))
    for (const file of files(join(root, folder))) {
      const lines = readFileSync(file, 'utf8').split('\n').length - 1;
      if (lines > MAX_LINES) found.push({ file: relative(root, file), lines });
    }
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const found = oversizedFiles();
  for (const { file, lines } of found) console.log(`${file}: ${lines} lines (at most ${MAX_LINES})`);
  console.log(`size: ${found.length} file(s) over ${MAX_LINES} lines`);
  process.exit(found.length ? 1 : 0);
}
