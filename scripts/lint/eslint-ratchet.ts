/**
 * ESLint (eslint.config.js) with a ratchet: each rule's findings, per top folder, may not exceed the
 * counts in eslint-baseline.json. New code adds none; when a count falls the baseline is lowered
 * (`--update`). The two gates of issue 46 §6 have no baseline: `any` in services/ and `as unknown as`
 * anywhere must be zero, and `--update` cannot admit them. Prints every count, those two first.
 * `npm run lint:eslint`.
 */
import { ESLint } from 'eslint';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BASELINE = join(ROOT, 'scripts/lint/eslint-baseline.json');
const NAMED = ['services @typescript-eslint/no-explicit-any', '* no-restricted-syntax (as unknown as)'];

const eslint = new ESLint({ cwd: ROOT });
const results = await eslint.lintFiles(['adapters', 'services', 'machines', 'projections', 'scripts']);
const counts = new Map<string, number>();
const where = new Map<string, string[]>();
for (const result of results)
  for (const message of result.messages) {
    const file = relative(ROOT, result.filePath);
    const rule = message.ruleId ?? 'parse';
    const key = `${file.split('/')[0]} ${rule}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    where.set(key, [...(where.get(key) ?? []), `${file}:${message.line}`]);
  }
const total = (rule: string) => [...counts].filter(([k]) => k.endsWith(` ${rule}`)).reduce((n, [, c]) => n + c, 0);
const anyInServices = counts.get(NAMED[0]) ?? 0;
const doubleCasts = total('no-restricted-syntax');
console.log(`eslint: any in services/ ${anyInServices}; as unknown as ${doubleCasts}`);
if (anyInServices > 0 || doubleCasts > 0) {
  for (const [key, places] of where)
    if (key === NAMED[0] || key.endsWith(' no-restricted-syntax')) console.log(`  ${key}: ${places.join(', ')}`);
  console.log('eslint: both must be zero (no baseline admits them)');
  process.exit(1);
}

if (process.argv.includes('--update')) {
  writeFileSync(BASELINE, `${JSON.stringify(Object.fromEntries([...counts].sort()), null, 2)}\n`);
  console.log(`eslint: baseline written (${[...counts.values()].reduce((a, b) => a + b, 0)} findings)`);
  process.exit(0);
}
const baseline = JSON.parse(readFileSync(BASELINE, 'utf8')) as Record<string, number>;
let risen = 0;
let fallen = 0;
for (const key of new Set([...counts.keys(), ...Object.keys(baseline)].sort())) {
  const now = counts.get(key) ?? 0;
  const allowed = baseline[key] ?? 0;
  if (now > allowed) {
    risen++;
    console.log(`  ${key}: ${now} (baseline ${allowed}): new findings, e.g. ${where.get(key)!.slice(-3).join(', ')}`);
  } else if (now < allowed) fallen++;
  else console.log(`  ${key}: ${now}`);
}
if (fallen)
  console.log(`eslint: ${fallen} count(s) fell below the baseline; lower it with npm run lint:eslint -- --update`);
process.exit(risen || fallen ? 1 : 0);
