import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRegistry } from '../../../services/conformance/registry.ts';
import { nodeFiles } from '../../../adapters/files/node-files.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const registry = loadRegistry(nodeFiles, join(ROOT, 'conformance/registry.yaml'));

describe('conformance registry', () => {
  it('holds well over a hundred requirements with unique ids', () => {
    expect(registry.requirements.length).toBeGreaterThan(120);
    expect(new Set(registry.requirements.map((r) => r.id)).size).toBe(registry.requirements.length);
  });

  it('names tests that exist, titled with the requirement id, in the files it names', () => {
    const missing: string[] = [];
    for (const r of registry.requirements) {
      for (const t of r.tests) {
        const file = join(ROOT, t.file);
        const source = existsSync(file) ? readFileSync(file, 'utf8') : '';
        if (!source.includes(`'${t.name}'`) && !source.includes(`"${t.name}"`))
          missing.push(`${r.id}: ${t.file} "${t.name}"`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('names implementation files that exist', () => {
    const missing = registry.requirements.flatMap((r) =>
      r.implementation.filter((f) => !existsSync(join(ROOT, f))).map((f) => `${r.id}: ${f}`),
    );
    expect(missing).toEqual([]);
  });

  it('covers every spec the conformance issue lists', () => {
    const specs = new Set(registry.requirements.map((r) => r.spec));
    for (const id of [
      'rfc6749',
      'rfc6750',
      'rfc7009',
      'rfc7523',
      'rfc7636',
      'rfc7662',
      'rfc8414',
      'rfc8628',
      'rfc9068',
      'rfc9449',
      'rfc9728',
      'oidc-core',
    ])
      expect(specs.has(id), id).toBe(true);
  });
});
