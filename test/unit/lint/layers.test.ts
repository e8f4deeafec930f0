import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { layerBreaches } from '../../../scripts/lint/layers.ts';
import { oversizedFiles } from '../../../scripts/lint/sizes.ts';

// Issue 46 §6: the layer check lives in the repository, with the rule that adapters build no actors.
const root = mkdtempSync(join(tmpdir(), 'layers-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};

describe('the layer check', () => {
  it('holds on this repository', () => {
    expect(layerBreaches()).toEqual([]);
  });

  it('finds an adapter that builds an actor, an impure machine, a service on a driver and an upward import', () => {
    write(
      'adapters/http/x.ts',
      "import { ActorRuntime } from '../../services/actors/runtime.ts';\nconst r = ActorRuntime.of(log, m, 'x');\n",
    );
    write('machines/m.ts', "import { setup } from 'xstate';\nexport const at = Date.now();\n");
    write('services/s.ts', "import Database from 'better-sqlite3';\nimport { x } from '../adapters/http/x.ts';\n");
    write(
      'services/ok.ts',
      "import type { X } from '../adapters/http/x.ts';\n// new ActorRuntime( in a comment is fine\n",
    );
    const found = layerBreaches(root).join('\n');
    expect(found).toContain('adapters/http/x.ts:2: adapters build no actors');
    expect(found).toContain('machines/m.ts:2: machines read no clock and no randomness');
    expect(found).toContain('services/s.ts:1: services reach the store through the event-log port');
    expect(found).toContain('services/s.ts: services/ imports adapters/');
    expect(found).not.toContain('services/ok.ts');
  });
});

describe('the deciders rule (issue 46 §4)', () => {
  it('finds a service or an adapter that compares a state by name, not one that reports it', () => {
    write(
      'services/decide.ts',
      "if (loaded.snapshot.value === 'new') x();\nconst ok = found?.snapshot.matches('paused');\nconst shown = { status: snapshot.value };\nif (typeof snapshot.value !== 'string') y();\n",
    );
    write('adapters/http/decide.ts', "if (snapshot.value !== 'active') z();\n");
    const found = layerBreaches(root).join('\n');
    expect(found).toContain('services/decide.ts:1: services ask a machine’s deciders');
    expect(found).toContain('services/decide.ts:2: services ask a machine’s deciders');
    expect(found).not.toContain('services/decide.ts:3');
    expect(found).not.toContain('services/decide.ts:4');
    expect(found).toContain('adapters/http/decide.ts:1: adapters ask a machine’s deciders');
  });
});

describe('the size rule', () => {
  it('names a source file over 300 lines', () => {
    write('scripts/long.ts', 'x;\n'.repeat(301));
    write('scripts/short.ts', 'x;\n'.repeat(300));
    expect(oversizedFiles(root).map((f) => f.file)).toEqual(['scripts/long.ts']);
  });
});
