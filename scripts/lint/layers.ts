/**
 * The layering of docs/architecture.md ("Folders and the layering"), checked over every import, and the
 * rules that never bend: machines stay pure, services reach I/O through ports, adapters build no actors.
 * Prints each breach and exits 1 when there is one. `npm run lint:layers`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
type Layer = 'machines' | 'projections' | 'services' | 'adapters';

/** What each layer may not import (a type-only import is allowed where `typeOnly` says). */
const DENIED: Record<Layer, { deny: string[]; typeOnly?: string[]; packages?: RegExp }> = {
  machines: {
    deny: ['services', 'adapters', 'projections', 'scripts', 'test', 'content', 'conformance'],
    packages: /^xstate(\/|$)/,
  },
  projections: { deny: ['services', 'adapters', 'scripts', 'test'], typeOnly: ['adapters'] },
  services: { deny: ['adapters', 'scripts', 'test'], typeOnly: ['adapters'] },
  adapters: { deny: ['scripts', 'test'] },
};

/** A snapshot's state compared by name: what a state means is decided by its machine (issue 46 §4). */
const STATE_COMPARISON = /(?<!typeof )\bsnapshot\??\.value\s*[!=]==|\bsnapshot\??\.matches\(/;

/** Lines that may never appear in a layer, with the rule they break. */
const NEVER: Record<Layer, Array<[RegExp, string]>> = {
  machines: [
    [/\bDate\.now\(|new Date\(\)|Math\.random\(|\bset(Timeout|Interval)\(/, 'machines read no clock and no randomness'],
    [/from ['"](node:)?(fs|http|https|net|crypto|child_process)['"]/, 'machines do no I/O'],
  ],
  services: [
    [/from ['"](node:)?fs(\/promises)?['"]/, 'services reach files through a port (services/content/files.ts)'],
    [/from ['"](better-sqlite3|pg)['"]/, 'services reach the store through the event-log port'],
    [STATE_COMPARISON, 'services ask a machine’s deciders what a state means (machines/deciders.ts)'],
  ],
  // The composition root builds the services; services own their runtimes (one per stream category).
  adapters: [
    [/\bnew ActorRuntime\(|\bActorRuntime\.of\(|\bcreateActor\(/, 'adapters build no actors'],
    [STATE_COMPARISON, 'adapters ask a machine’s deciders what a state means (machines/deciders.ts)'],
  ],
  projections: [],
};

const IMPORT =
  /^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (/\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

export function layerBreaches(root = ROOT): string[] {
  const layerOf = (path: string) => relative(root, path).split(sep)[0];
  const breaches: string[] = [];
  for (const layer of Object.keys(DENIED) as Layer[]) {
    const rule = DENIED[layer];
    if (!existsSync(join(root, layer))) continue;
    for (const file of files(join(root, layer))) {
      const source = readFileSync(file, 'utf8');
      const rel = relative(root, file);
      for (const m of source.matchAll(IMPORT)) {
        const spec = m[3] ?? m[4] ?? m[5];
        const typeOnly = Boolean(m[2]);
        if (spec.startsWith('.')) {
          const target = layerOf(resolve(dirname(file), spec));
          if (target !== layer && rule.deny.includes(target) && !(typeOnly && rule.typeOnly?.includes(target)))
            breaches.push(`${rel}: ${layer}/ imports ${target}/ (${spec})`);
        } else if (rule.packages && !rule.packages.test(spec)) {
          breaches.push(`${rel}: ${layer}/ imports the package ${spec}; machines import xstate only`);
        }
      }
      source.split('\n').forEach((line, i) => {
        if (/^\s*(\/\/|\*)/.test(line)) return;
        for (const [pattern, why] of NEVER[layer])
          if (pattern.test(line)) breaches.push(`${rel}:${i + 1}: ${why}: ${line.trim()}`);
      });
    }
  }
  return breaches;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const breaches = layerBreaches();
  for (const breach of breaches) console.log(breach);
  console.log(`layers: ${breaches.length} breach(es)`);
  process.exit(breaches.length ? 1 : 0);
}
